# shellcheck shell=bash
# The body of e2e.agreement_glibc_2_31 and e2e.agreement_glibc_2_41 (issue
# 30): the differential tests that compare doctor with the real loader on
# this machine, run again in a cached Debian root (tests/e2e/debian_root.sh)
# whose ld.so is another glibc's, and their agreement figures for that glibc:
#   - scenario roots: e2e.doctor_spec and e2e.doctor_demo, the scripts
#     themselves, unchanged (their fixtures built by the root's gcc and
#     python3, every root of every case compared by tests/e2e/doctor_oracle.py
#     with a real dlopen (the dlopen probe, or the env's python and ctypes)
#     and with `ldd -r`); and, where this machine has /usr/local/cuda's CUDA
#     13 wheels (bound read-only at /opt in the root), their 31 real libraries
#     laid out as an env, clean and with an older nvJitLink 13 on
#     LD_LIBRARY_PATH (e2e.doctor_cuda13's two cases: its builders and its
#     oracle; not its exit statuses, which on this machine rest on its
#     ld.so.cache listing /usr/local/cuda/lib);
#   - import sequences: e2e.import_sequences unchanged (60 random sequences of
#     RTLD_LOCAL and RTLD_GLOBAL dlopens in one process, every step);
#   - the hostile corpus, generated in the root: AGREEMENT_HOSTILE_COUNT
#     variants (seed 1; default 2000, as e2e.hostile_corpus) of its
#     bases (hostile_corpus_bases: compiled by the root's gcc, the root's libz,
#     the CUDA 13 libcudart), doctor against the dlopen probe in a fresh
#     process each (tests/tools/hostile_corpus.py).
# In the root: condacuda is this build's (static: it runs unchanged there and
# models the glibc of the root it runs in, checked), copied to
# /scratch/bin/condacuda; the oracle is the root's own ld.so: the dlopen probe
# (tests/tools/dlopen_probe.c) compiled by the root's gcc (with -ldl below
# glibc 2.34), the root's python3 and ldd.
# The same rules as on this machine: every scenario root and every sequence
# step agrees (verdict and first error text), and of the hostile variants
# doctor never says "loads" where the loader refuses, crashes or hangs (the
# agreement figure counts the variants both call loading or both call not).
# Every part runs even when an earlier one failed; the test fails at the end,
# naming each failure. Prints the figures:
#   glibc 2.31: scenario roots agreed: A/T
#   glibc 2.31: import sequences agreed: A/T
#   glibc 2.31: hostile corpus sample: A/T (...)
# Each test script is
#   source "$(dirname "$0")/agreement_root_check.sh"
#   agreement_root_check SUITE GLIBC
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=debian_root.sh
source "$(dirname "${BASH_SOURCE[0]}")/debian_root.sh"

# agreement_root_check SUITE GLIBC
agreement_root_check() {
  local suite=$1 glibc=$2 root
  root=$(debian_root "$suite") || exit
  local t0=$SECONDS
  # The CUDA 13 wheels of this machine, bound read-only at /opt in the root
  # (the root has no /usr/local/cuda to bind over).
  local -a bind=()
  local cuda=""
  if [ -d /usr/local/cuda/dist-info ] && [ -d /usr/local/cuda/lib ]; then
    cuda=$(realpath /usr/local/cuda)
    bind=(--bind "$cuda" /opt)
  else
    note "no /usr/local/cuda/dist-info here: the CUDA 13 wheels' roots and the libcudart base are left out"
  fi
  r() { in_root "$root" "$scratch" "${bind[@]}" "$@"; }
  # The suites' variables inside the root (lib.sh's, for the scripts run there).
  local -a inner=(env CONDACUDA=/scratch/bin/condacuda CONDACUDA_SOURCE_DIR=/src CONDACUDA_BUILD_DIR=/scratch/no-build-dir
    CONDACUDA_DLOPEN_PROBE=/scratch/bin/dlopen_probe CONDACUDA_CUDA_ROOT=/opt)

  note "$suite: the root's glibc is $glibc"
  expect_eq "$(r getconf GNU_LIBC_VERSION)" "glibc $glibc" "glibc in the $suite root"
  note "$(r python3 --version), $(r gcc --version | sed -n 1p)"

  note "$suite: condacuda (this build's, static) and the dlopen probe (the root's gcc)"
  mkdir -p "$scratch/bin"
  cp "$CONDACUDA" "$scratch/bin/condacuda"
  case $(file -b "$scratch/bin/condacuda") in
    *static*) ;;
    *) fail "$CONDACUDA is not a static program: it cannot run unchanged in the $suite root ($(file -b "$CONDACUDA" | cut -d, -f1-3))" ;;
  esac
  # --as-needed: from glibc 2.34 dlopen is in libc and libdl.so.2 a stub
  # (tests/CMakeLists.txt builds this machine's probe so); below it, -ldl.
  r gcc -O1 -Wl,--as-needed -o /scratch/bin/dlopen_probe /src/tests/tools/dlopen_probe.c -ldl
  note "dlopen_probe needs: $(r ldd /scratch/bin/dlopen_probe | awk '/=>/ { printf "%s ", $1 }')"
  mkdir -p "$scratch/empty-env/conda-meta"
  touch "$scratch/empty-env/conda-meta/history"
  expect_status 0 r "${inner[@]}" /scratch/bin/condacuda doctor -p /scratch/empty-env --json > "$scratch/glibc.json"
  local modelled
  modelled=$(json "$scratch/glibc.json" 'j["loader"]["glibc"]')
  expect_eq "$modelled" "$glibc" "the glibc doctor models in the $suite root"

  local -a failures=()
  local agreed=0 total=0 status name

  # part NAME CMD...: runs CMD in the root (the suites' variables set), its
  # output in $scratch/NAME.log; a failure is remembered, not fatal.
  part() {
    local name=$1
    shift
    local t=$SECONDS
    status=0
    r "${inner[@]}" "$@" > "$scratch/$name.log" 2>&1 || status=$?
    if [ "$status" != 0 ]; then
      failures+=("$name (exit $status, $scratch/$name.log)")
      echo "--- $name failed (exit $status): its disagreements (DIFF: a root, MISS: a hostile variant), its last lines"
      grep -E -A2 '^(DIFF|MISS) ' "$scratch/$name.log" || true
      echo "..."
      tail -n 8 "$scratch/$name.log"
    fi
    note "$suite: $name: $((SECONDS - t)) s"
  }
  # roots NAME: adds the oracle's "N roots, M disagreements" lines of NAME.log.
  roots() {
    local n m a=0 t=0
    while read -r n m; do
      t=$((t + n))
      a=$((a + n - m))
    done < <(sed -n 's/^\([0-9]*\) roots, \([0-9]*\) disagreements$/\1 \2/p' "$scratch/$1.log")
    note "$suite: $1: $a of $t roots agree ($(grep -c '^[0-9]* roots, ' "$scratch/$1.log") cases)"
    [ "$t" -gt 0 ] || failures+=("$1: no roots compared")
    agreed=$((agreed + a))
    total=$((total + t))
  }

  note "$suite: scenario roots (doctor_oracle.py: every root against the real dlopen and ldd -r)"
  for name in doctor_spec doctor_demo; do
    part "$name" bash "/src/tests/e2e/test_$name.sh"
    roots "$name"
  done
  if [ -n "$cuda" ]; then
    part cuda13 bash -c 'source /src/tests/e2e/agreement_root_check.sh && _agreement_cuda13' cuda13
    roots cuda13
  fi
  local scenario_figure="$agreed/$total"

  note "$suite: import sequences (import_sequences.py: 60 random sequences, every step)"
  part import_sequences bash /src/tests/e2e/test_import_sequences.sh
  local seq_figure
  seq_figure=$(sed -n 's/^\([0-9]*\) sequences, [0-9]* with both outcomes, \([0-9]*\) disagreements$/\1 \2/p' \
    "$scratch/import_sequences.log" | awk '{ print $1 - $2 "/" $1 }')
  [ -n "$seq_figure" ] || { seq_figure="none/0"; failures+=("import_sequences: no figure"); }

  local count=${AGREEMENT_HOSTILE_COUNT:-2000}
  note "$suite: the hostile corpus in the root: $count variants (seed 1)"
  part hostile_corpus bash -c 'source /src/tests/e2e/agreement_root_check.sh && _agreement_hostile "$1"' hostile "$count"
  grep '^# [0-9a-z]' "$scratch/hostile_corpus.log" || true
  local hostile_figure
  hostile_figure=$(sed -n "s/^# \([0-9]*\) variants: doctor and the loader agree on \([0-9]*\) .*says 'loads' where the loader does not: \([0-9]*\)$/\2\/\1 (doctor says 'loads' where ld.so does not: \3)/p" \
    "$scratch/hostile_corpus.log")
  [ -n "$hostile_figure" ] || { hostile_figure="none"; failures+=("hostile_corpus: no figure"); }

  [ -z "$(debian_root_mounts "$root")" ] || fail "mounts left on the root: $(debian_root_mounts "$root")"
  echo "glibc $glibc: scenario roots agreed: $scenario_figure"
  echo "glibc $glibc: import sequences agreed: $seq_figure"
  echo "glibc $glibc: hostile corpus sample: $hostile_figure"
  note "$suite: all in $((SECONDS - t0)) s (the root cached)"
  if [ "${#failures[@]}" -gt 0 ]; then
    printf 'FAIL: %s\n' "${failures[@]}" >&2
    fail "doctor and glibc $glibc's loader disagree, or a part failed (above; logs in $scratch)"
  fi
}

# The parts that run inside the root as functions of this file:
#   bash -c 'source /src/tests/e2e/agreement_root_check.sh && FUNCTION ARGS' ...
# (sourcing it there sources lib.sh: the suites' prelude, $scratch under the
# root's /tmp).

# _agreement_cuda13: the CUDA 13 wheels of $CONDACUDA_CUDA_ROOT (/opt) as an
# env, every root against the real loader, clean and with an older nvJitLink
# 13 first on LD_LIBRARY_PATH (e2e.doctor_cuda13's cases). doctor's exit
# status is not checked: it depends on which roots the root's ld.so.cache
# lets load (none of /opt is in it; this machine's lists /usr/local/cuda/lib);
# the oracle checks every root's verdict and first error either way.
_agreement_cuda13() {
  make_cuda13_env "$scratch/cu13"
  local old=$scratch/old-cuda/lib64
  make_old_nvjitlink13 "$old"
  local oracle=$CONDACUDA_SOURCE_DIR/tests/e2e/doctor_oracle.py
  note "clean LD_LIBRARY_PATH"
  local status=0 # healthy where the root's glibc runs the env's libraries; the oracle below judges the verdict
  env -u LD_LIBRARY_PATH "$CONDACUDA" doctor -p "$scratch/cu13" --json > "$scratch/clean.json" || status=$?
  doctor_status_agrees "$scratch/clean.json" "$status"
  expect_eq "$(json "$scratch/clean.json" 'j["summary"]["roots"]')" 31 roots
  env -u LD_LIBRARY_PATH python3 "$oracle" "$scratch/clean.json" --probe "$CONDACUDA_DLOPEN_PROBE" --ldd
  note "planted older nvJitLink 13"
  expect_status 1 env LD_LIBRARY_PATH="$old" "$CONDACUDA" doctor -p "$scratch/cu13" --json > "$scratch/planted.json"
  expect_eq "$(json "$scratch/planted.json" "'$old' in [f['via_entry'] for f in j['findings'] if f['code'] == 'undefined-symbol']")" \
    True "the planted nvJitLink's undefined-symbol finding"
  LD_LIBRARY_PATH=$old python3 "$oracle" "$scratch/planted.json" --probe "$CONDACUDA_DLOPEN_PROBE" --ldd
}

# _agreement_hostile COUNT: COUNT hostile variants (seed 1) of
# hostile_corpus_bases (the root's gcc and libz, $CONDACUDA_CUDA_ROOT's
# libcudart), with e2e.hostile_corpus's checks: the unchanged bases load in
# both, and doctor never says "loads" where the loader refuses, crashes or
# hangs (each such variant printed with what was done to it).
_agreement_hostile() {
  local count=$1 corpus=$CONDACUDA_SOURCE_DIR/tests/tools/hostile_corpus.py
  local -a bases
  hostile_corpus_bases "$scratch/bases" "$CONDACUDA_CUDA_ROOT" > "$scratch/bases.txt"
  mapfile -t bases < "$scratch/bases.txt"
  note "bases: ${bases[*]##*/}"
  local env=$scratch/env i status=0
  mkdir -p "$env/conda-meta" "$env/lib"
  touch "$env/conda-meta/history"
  for i in "${!bases[@]}"; do cp "${bases[$i]}" "$env/lib/libcufft_base$i.so"; done
  python3 "$corpus" generate "$env/lib" "$count" 1 "${bases[@]}" > "$scratch/variants.txt" 2> /dev/null
  hostile_corpus_doctor "$env" "${bases[@]}"
  # The glibc minor: the known gaps of older releases are counted apart (hostile_corpus.py KNOWN_GAPS).
  local minor
  minor=$(json "$scratch/doctor.json" 'j["loader"]["glibc"].split(".")[1]')
  python3 "$corpus" compare "$scratch/doctor.json" "$CONDACUDA_DLOPEN_PROBE" "$scratch/pairs.txt" "$minor" 2> /dev/null || status=$?
  if [ "$status" != 0 ]; then
    local f line
    while read -r f line; do
      echo "MISS $f ${line}"
      echo "     $(grep "^$f " "$scratch/variants.txt")"
    done < <(grep -E '^[^ ]+ doctor=loads \(.*\) loader=(refuses|crash|hang) ' "$scratch/pairs.txt")
    fail "doctor says \"loads\" where the loader does not (above)"
  fi
}
