# shellcheck shell=bash
# Sourced by the e2e suites (tests/e2e/lib.sh) and tests/tools/compare_outputs.sh.
# make_cuda13_env DIR: a venv-style env whose site-packages holds the real
# CUDA 13 wheel contents of /usr/local/cuda, laid out as their RECORD files
# say (hard links; symlinks when /usr/local is another file system). Each link
# made or removed changes the shared inode's ctime: CTest runs the suites that
# call this one at a time (RESOURCE_LOCK cuda13_inodes, tests/CMakeLists.txt).
# Returns 125 (skip) when /usr/local/cuda/dist-info is absent.
make_cuda13_env() {
  local dest=$1 cuda=${CONDACUDA_CUDA_ROOT:-/usr/local/cuda}
  [ -d "$cuda/dist-info" ] || return 125
  local pyver sp
  pyver=$(python3 -c 'import sys; print("python%d.%d" % sys.version_info[:2])')
  sp=$dest/lib/$pyver/site-packages
  mkdir -p "$sp" "$dest/bin"
  printf 'home = /usr/bin\ninclude-system-site-packages = false\nversion = 3\n' > "$dest/pyvenv.cfg"
  local dist rel file src
  for dist in "$cuda"/dist-info/*.dist-info; do
    cp -r "$dist" "$sp/"
    while IFS=, read -r rel _; do
      case "$rel" in nvidia/*/lib/*.so*) ;; *) continue ;; esac
      file=${rel##*/}
      src=$cuda/lib/$file
      [ -e "$src" ] || continue
      mkdir -p "$sp/${rel%/*}"
      ln "$(readlink -f "$src")" "$sp/$rel" 2>/dev/null || ln -s "$(readlink -f "$src")" "$sp/$rel"
    done < "$dist/RECORD"
  done
}
