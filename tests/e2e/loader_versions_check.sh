# shellcheck shell=bash
# The body of e2e.loader_glibc_2_31, e2e.loader_glibc_2_36 and
# e2e.loader_glibc_2_41 (issue 30): every version-dependent rule of the loader
# model (docs/loader-model.md §4, §5, §6, §2.4-2.5) as an experiment run by
# the real loader of that glibc and by doctor modelling it, which must agree
# on the verdict and on the loader's error text:
#   glibc 2.31: a Debian 11 root (bullseye), glibc 2.41: a Debian 13 root
#   (trixie), both cached by tests/e2e/debian_root.sh; glibc 2.36: this
#   machine (Debian 12), in a private mount namespace of its own.
# The experiments (tests/e2e/loader_versions.py, EXPERIMENTS): legacy hwcaps
# subfolders x86_64/ and tls/, glibc-hwcaps/x86-64-v2/, the ld.so.cache that
# glibc's ldconfig writes (its default format, -c compat, -c old; entries
# from a plain, a legacy-hwcaps and a glibc-hwcaps folder), the VERSYM
# assertion of check_match, an executable-stack library under dlopen and at
# start-up, DT_RELR with and without GLIBC_ABI_DT_RELR, load commands whose
# checks and texts changed (p_vaddr - p_offset, p_align above and below the
# page size), and the ABI note's kernel version. The fixtures are built in
# the root by its own gcc and ldconfig (tests/e2e/loader_versions_fixtures.sh);
# the DT_RELR library on this machine (binutils >= 2.38) and copied in.
# The real outcome: the dlopen probe (tests/tools/dlopen_probe.c, compiled in
# the root), or a program's start for the start-up case; doctor's: the static
# condacuda run in the same root (it models the glibc it finds there),
# `doctor -p ENV --imports ITEM --json`, each experiment a process of its own.
# Then the proof that the experiments can fail: doctor again with each other
# of the three versions (`--glibc 2.xx`); for each, at least one
# version-dependent experiment must disagree with the real loader.
# Prints the table and "N/N experiments agree on glibc 2.xx".
#
# Each test script is
#   source "$(dirname "$0")/loader_versions_check.sh"
#   loader_versions_check SUITE GLIBC       # SUITE: bullseye, trixie, host
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=debian_root.sh
source "$(dirname "${BASH_SOURCE[0]}")/debian_root.sh"

_lv_dir=$(dirname "${BASH_SOURCE[0]}")
_lv_versions=(2.31 2.36 2.41)

# The experiments' runner, run where the loader under test is (bash -c, in
# the root or in this machine's namespace). Arguments: WORK CONDACUDA OUT
# GLIBCS, then NAME KIND ENV ITEM per experiment (loader_versions.py). It
# writes OUT/NAME.{out,err,status} (the real run) and OUT/NAME.doctor-G.json
# for each G of GLIBCS (native: doctor's own choice; 2.xx: --glibc 2.xx).
_lv_runner='
work=$1 condacuda=$2 out=$3 glibcs=$4
shift 4
cd "$work"
while [ $# -ge 4 ]; do
  name=$1 kind=$2 env=$3 item=$4
  shift 4
  case $kind in
    dlopen) program=$work/probe ;;
    start) program=$work/$env/bin/python3 ;;
    *) echo "runner: unknown kind $kind" >&2; exit 2 ;;
  esac
  status=0
  "$program" "$work/$item" > "$out/$name.out" 2> "$out/$name.err" || status=$?
  echo "$status" > "$out/$name.status"
  for g in $glibcs; do
    glibc=()
    [ "$g" = native ] || glibc=(--glibc "$g")
    status=0
    "$condacuda" doctor -p "$work/$env" --context not-activated --no-ld-library-path \
      --imports "$work/$item" --json "${glibc[@]}" > "$out/$name.doctor-$g.json" 2> "$out/$name.doctor-$g.err" || status=$?
    echo "$status" > "$out/$name.doctor-$g.status" # loader_versions.py checks it against the document
  done
done
'

# This machine's counterpart of in_root: CMD in a private mount namespace,
# each --bind SRC DEST bound read-only over DEST there, with the clean
# environment in_root gives. Arguments: N, N pairs SRC DEST, CMD...
_lv_host_enter='
n=$1
shift
for ((i = 0; i < n; i++)); do
  mount --bind "$1" "$2"
  mount -o remount,bind,ro "$2"
  shift 2
done
exec env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$LV_HOME" LANG=C.UTF-8 TMPDIR="$LV_HOME" "$@"
'

# loader_versions_check SUITE GLIBC
loader_versions_check() {
  local suite=$1 glibc=$2 start=$SECONDS root="" work condacuda
  if [ "$suite" = host ]; then
    [ "$(getconf GNU_LIBC_VERSION)" = "glibc $glibc" ] ||
      _debian_root_unavailable "this machine has $(getconf GNU_LIBC_VERSION), not glibc $glibc (e2e.loader_glibc_${glibc/./_} runs on Debian 12)"
    [ "$(id -u)" = 0 ] ||
      _debian_root_unavailable "the ld.so.cache experiments need root (a mount namespace in which a cache is bound over /etc/ld.so.cache)"
    command -v unshare > /dev/null || _debian_root_unavailable "unshare is not installed"
    work=$scratch condacuda=$CONDACUDA
    mkdir -p "$scratch/home"
  else
    root=$(debian_root "$suite") || exit
    work=/scratch condacuda=/scratch/bin/condacuda
    mkdir -p "$scratch/bin"
    # The static condacuda, as the root sees it (a hard link where it can).
    ln -f "$CONDACUDA" "$scratch/bin/condacuda" 2> /dev/null || cp "$CONDACUDA" "$scratch/bin/condacuda"
  fi
  # r [--bind SRC DEST]... CMD...: CMD where the loader under test is.
  r() {
    if [ -n "$root" ]; then
      in_root "$root" "$scratch" "$@"
    else
      local binds=()
      while [ "${1:-}" = --bind ]; do
        binds+=("$2" "$3")
        shift 3
      done
      LV_HOME=$scratch/home unshare --mount --propagation private --fork --kill-child \
        bash -euc "$_lv_host_enter" host-enter "$((${#binds[@]} / 2))" "${binds[@]}" "$@"
    fi
  }

  expect_eq "$(r getconf GNU_LIBC_VERSION)" "glibc $glibc" "the glibc of ${root:-this machine}"
  note "glibc $glibc: $(r /lib/x86_64-linux-gnu/libc.so.6 | sed -n 1p)"
  note "$(r gcc --version | sed -n 1p), $(r ld --version | sed -n 1p)"

  note "fixtures, built by glibc $glibc's gcc and ldconfig"
  local t0=$SECONDS src=$CONDACUDA_SOURCE_DIR
  [ -n "$root" ] && src=/src
  r bash "$src/tests/e2e/loader_versions_fixtures.sh" "$work" "$src" > "$scratch/fixtures.log" 2>&1 ||
    { tail -n 20 "$scratch/fixtures.log" >&2; fail "tests/e2e/loader_versions_fixtures.sh failed in ${root:-this machine}"; }
  # DT_RELR needs binutils >= 2.38 (bullseye has 2.35.2): built here, the
  # same file for every loader. puts: a libc version need, which makes ld
  # add GLIBC_ABI_DT_RELR (rule 19).
  mkdir -p "$scratch/env/lib/relr"
  printf '#include <stdio.h>\nstatic int a, b, c;\nint* table[] = {&a, &b, &c, &a};\nint get(int i) { puts("get"); return *table[i]; }\n' \
    > "$scratch/relr.c"
  env -u LD_LIBRARY_PATH gcc -shared -fPIC -O1 -Wl,-z,pack-relative-relocs -Wl,-soname,libccrelr.so \
    -o "$scratch/env/lib/relr/libccrelr.so" "$scratch/relr.c" ||
    fail "this machine's gcc cannot link -z pack-relative-relocs (binutils >= 2.38 needed)"
  python3 "$_lv_dir/loader_versions.py" patch "$scratch"
  local f
  for f in new compat old; do
    note "ld.so.cache by glibc $glibc's ldconfig ${f/new/(its default format)}: $(python3 "$_lv_dir/loader_versions.py" layout "$scratch/cache/$f.cache")"
  done
  local t_fixtures=$((SECONDS - t0))

  # The versions doctor models: its own reading of the root, then each other one.
  local glibcs=native wrong=() v
  if grep -q -- '--glibc' <<< "$("$CONDACUDA" doctor --help)"; then
    for v in "${_lv_versions[@]}"; do
      [ "$v" = "$glibc" ] || wrong+=("$v")
    done
    glibcs="native ${wrong[*]}"
  else
    note "doctor has no --glibc yet: the wrong-version proof cannot run"
  fi

  note "the experiments: the real loader and doctor (${glibcs// /, })"
  t0=$SECONDS
  mkdir -p "$scratch/out"
  local group specs bind
  for group in root new compat old; do
    mapfile -t specs < <(python3 "$_lv_dir/loader_versions.py" specs | awk -v g="$group" '$1 == g { print $2; print $3; print $4; print $5 }')
    [ "${#specs[@]}" -gt 0 ] || continue
    bind=()
    [ "$group" = root ] || bind=(--bind "$scratch/cache/$group.cache" /etc/ld.so.cache)
    r "${bind[@]}" bash -c "$_lv_runner" runner "$work" "$condacuda" "$work/out" "$glibcs" "${specs[@]}"
  done
  local t_runs=$((SECONDS - t0))
  [ -z "$root" ] || [ -z "$(debian_root_mounts "$root")" ] || fail "mounts left on the root: $(debian_root_mounts "$root")"

  local status=0
  python3 "$_lv_dir/loader_versions.py" report "$scratch/out" "$glibc" "$work" "${wrong[@]}" || status=$?
  note "glibc $glibc: fixtures ${t_fixtures} s, experiments ${t_runs} s; all $((SECONDS - start)) s"
  [ "$status" = 0 ] || fail "glibc $glibc: the loader model and the real loader differ (above)"
  [ "${#wrong[@]}" -gt 0 ] || fail "doctor has no --glibc: the experiments were not shown to fail with the wrong version"
}
