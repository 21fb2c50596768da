#!/usr/bin/env bash
# packaging/portable/build.sh OUTDIR [--build-dir DIR] [--keep-stage]
#
# The portable packages of condacuda (docs/portable.md, "The wheel and the
# tarball"), in OUTDIR:
#   condacuda-VERSION-py3-none-manylinux_2_28_x86_64.whl   (make_wheel.py)
#   condacuda-VERSION-linux-x86_64.tar.gz                  (bin/ libexec/ share/, the license in
#                                                          share/doc/condacuda/, under
#                                                          condacuda-VERSION-linux-x86_64/)
# VERSION is what the staged binary's --version says.
#
# With --build-dir DIR it packages that configured and built tree as it is
# (nothing is compiled: build it first); without, it configures a Release
# build in OUTDIR/build (Ninja, no tests) and builds it with $JOBS jobs (2).
# Either way `cmake --install DIR --prefix OUTDIR/stage/tree --strip` stages
# the tree; tests/tools/check_manylinux.py must pass on it (the binary
# static or within glibc 2.28, the probe within glibc 2.28, no libstdc++
# symbol versions, no library outside the manylinux allow-list), else the
# packages are not made. OUTDIR/stage is removed when the packages are made
# (--keep-stage keeps it) and kept, for a look, when something failed.
# Timestamps in both packages are SOURCE_DATE_EPOCH, by default the last
# commit's time: the same tree gives the same bytes.
set -euo pipefail

usage() {
  echo "usage: packaging/portable/build.sh OUTDIR [--build-dir DIR] [--keep-stage]"
}
die() {
  echo "build.sh: $*" >&2
  exit 1
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
outdir='' build_dir='' keep_stage=''
while [ $# -gt 0 ]; do
  case $1 in
    --build-dir) [ $# -ge 2 ] || { usage >&2; exit 2; }; build_dir=$2; shift 2 ;;
    --build-dir=*) build_dir=${1#--build-dir=}; shift ;;
    --keep-stage) keep_stage=1; shift ;;
    -h | --help) usage; exit 0 ;;
    -*) usage >&2; exit 2 ;;
    *) [ -z "$outdir" ] || { usage >&2; exit 2; }; outdir=$1; shift ;;
  esac
done
[ -n "$outdir" ] || { usage >&2; exit 2; }
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)

if [ -z "$build_dir" ]; then
  build_dir=$outdir/build
  cmake -S "$repo" -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCONDACUDA_BUILD_TESTS=OFF
  cmake --build "$build_dir" -j"${JOBS:-2}"
fi
if [ ! -f "$build_dir/CMakeCache.txt" ] || [ ! -f "$build_dir/cmake_install.cmake" ]; then
  die "$build_dir is not a configured build tree (no CMakeCache.txt): configure and build it first"
fi

if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
  SOURCE_DATE_EPOCH=$(git -C "$repo" log -1 --format=%ct 2> /dev/null || echo 315532800)
fi
export SOURCE_DATE_EPOCH

stage=$outdir/stage
tree=$stage/tree
rm -rf "$stage"
mkdir -p "$stage"
on_exit() {
  local status=$?
  [ "$status" = 0 ] || echo "build.sh: failed; the staging folder is kept: $stage" >&2
}
trap on_exit EXIT

if ! cmake --install "$build_dir" --prefix "$tree" --strip > "$stage/install.log" 2>&1; then
  cat "$stage/install.log" >&2
  die "$build_dir is not built (cmake --install failed, above): build it first (cmake --build $build_dir)"
fi
for f in bin/condacuda libexec/condacuda/condacuda-probe share/condacuda/templates/releases.yml share/man/man1/condacuda.1; do
  [ -f "$tree/$f" ] || die "the installed tree has no $f: not a portable build"
done

version_line=$("$tree/bin/condacuda" --version)
version=${version_line#condacuda }
[[ $version =~ ^[0-9]+(\.[0-9]+)*$ ]] || die "unexpected --version output: $version_line"

echo "build.sh: the glibc floor (manylinux_2_28) of the staged tree"
(cd "$tree" && python3 "$repo/tests/tools/check_manylinux.py" --policy manylinux_2_28 .) ||
  die "the staged tree fails the manylinux_2_28 glibc floor (above)"

wheel=$(python3 "$here/make_wheel.py" "$tree" "$outdir")

name=condacuda-$version-linux-x86_64
# No LICENSE at the top: unpacked into ~/.local it would land as ~/.local/LICENSE;
# it is share/doc/condacuda/LICENSE, where the install tree keeps it.
mv "$tree" "$stage/$name"
tarball=$outdir/$name.tar.gz
tar --sort=name --format=gnu --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" \
  --mode='u=rwX,go=rX' -C "$stage" -cf - "$name" | gzip -9n > "$tarball.part"
mv "$tarball.part" "$tarball"

[ -n "$keep_stage" ] || rm -rf "$stage"
for f in "$wheel" "$tarball"; do
  echo "build.sh: $f ($(stat -c %s "$f") bytes)"
done
