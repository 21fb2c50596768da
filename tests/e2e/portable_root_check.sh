# shellcheck shell=bash
# The body of e2e.portable_bullseye and e2e.portable_trixie (issue 29): the
# portable condacuda (the static bin/condacuda, the GPU child
# libexec/condacuda/condacuda-probe, the tarball and the wheel of
# packaging/portable/build.sh) on another Debian release than this machine's,
# in a cached debootstrap root (tests/e2e/debian_root.sh):
#   - the root's glibc is the suite's, and the one doctor models (the static
#     condacuda reads it from the root's files, not from its own C library);
#   - the demo env built there, by the root's own gcc and python3;
#   - from the tarball (unpacked into ~/.local): --version, info, doctor
#     (the seed failure named), repair, doctor again, the real import through
#     `condacuda run` (and failing without it), lock and lock --check, check
#     (no GPU here: the GPU child must start and report no driver; and, the
#     control, with libexec/condacuda/condacuda-probe moved away it cannot
#     start), undo (the env's tree as before repair);
#   - the same verdicts as this machine's condacuda ($CONDACUDA) gives on the
#     demo env built here: info's components, doctor's outcome, summary, root
#     verdicts and findings before and after repair (paths and the python
#     version normalized);
#   - the wheel installed with the root's `python3 -m venv` and pip
#     (--no-index), its condacuda and `python -m condacuda` run, doctor (the
#     tarball's verdicts) and check (its GPU child starts).
# Each test script is
#   source "$(dirname "$0")/portable_root_check.sh"
#   portable_root_check SUITE GLIBC
# CONDACUDA_PORTABLE_DIST, when set, is a folder with the wheel and the tarball
# already built (the release's own files, say): packaging/portable/build.sh is
# not run.
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=debian_root.sh
source "$(dirname "${BASH_SOURCE[0]}")/debian_root.sh"

# portable_root_check SUITE GLIBC
portable_root_check() {
  local suite=$1 glibc=$2 start=$SECONDS root
  root=$(debian_root "$suite") || exit
  local t_root=$((SECONDS - start))
  # in SCRATCH's root: the command inside the root, $scratch at /scratch.
  r() { in_root "$root" "$scratch" "$@"; }

  note "$suite: the root's glibc is $glibc"
  expect_eq "$(r getconf GNU_LIBC_VERSION)" "glibc $glibc" "glibc in the $suite root"
  note "$(r /lib/x86_64-linux-gnu/libc.so.6 | sed -n 1p)"
  note "$(r python3 --version), $(r gcc --version | sed -n 1p)"

  note "the portable packages"
  local out=$scratch/out t0=$SECONDS
  mkdir -p "$out"
  if [ -n "${CONDACUDA_PORTABLE_DIST:-}" ]; then
    cp "$CONDACUDA_PORTABLE_DIST"/condacuda-*.whl "$CONDACUDA_PORTABLE_DIST"/condacuda-*.tar.gz "$out/"
  else
    local build_sh=$CONDACUDA_SOURCE_DIR/packaging/portable/build.sh
    [ -x "$build_sh" ] || fail "$build_sh is missing or not executable"
    "$build_sh" "$out" --build-dir "$CONDACUDA_BUILD_DIR" > "$scratch/build.log" 2>&1 ||
      { tail -n 20 "$scratch/build.log" >&2; fail "packaging/portable/build.sh failed"; }
  fi
  local wheels=() tarballs=()
  mapfile -t wheels < <(cd "$out" && ls condacuda-*-py3-none-manylinux_2_28_x86_64.whl 2> /dev/null)
  mapfile -t tarballs < <(cd "$out" && ls condacuda-*-linux-x86_64.tar.gz 2> /dev/null)
  [ "${#wheels[@]}" = 1 ] || fail "expected one condacuda-*-py3-none-manylinux_2_28_x86_64.whl in $out, found: ${wheels[*]:-none}"
  [ "${#tarballs[@]}" = 1 ] || fail "expected one condacuda-*-linux-x86_64.tar.gz in $out, found: ${tarballs[*]:-none}"
  local wheel=${wheels[0]} tarball=${tarballs[0]} version
  version=${tarball#condacuda-}
  version=${version%-linux-x86_64.tar.gz}
  note "$wheel ($(du -k "$out/$wheel" | cut -f1) KB), $tarball ($(du -k "$out/$tarball" | cut -f1) KB), in $((SECONDS - t0)) s"
  local top
  top=$(tar -tzf "$out/$tarball" | cut -d/ -f1 | sort -u)
  expect_eq "$top" "condacuda-$version-linux-x86_64" "the tarball's one top folder"
  local local_dir=$scratch/home/.local
  mkdir -p "$local_dir"
  tar -xzf "$out/$tarball" --strip-components=1 -C "$local_dir"
  local f
  for f in bin/condacuda libexec/condacuda/condacuda-probe share/condacuda; do
    [ -e "$local_dir/$f" ] || fail "the tarball has no $top/$f"
  done
  note "bin/condacuda: $(file -b "$local_dir/bin/condacuda" | cut -d, -f1-2,4)"

  local cc=/scratch/home/.local/bin/condacuda
  local renv=/scratch/demo/env rsys=/scratch/demo/system-cuda-12.0/lib64
  local rpy=$renv/bin/python3
  local import='import demotorch; print("sparse", demotorch.sparse_version())'
  local t_checks=$SECONDS

  note "$suite: condacuda --version, --print-share-dir"
  grep -qx "condacuda $version" <<< "$(r "$cc" --version)" || fail "$cc --version: not condacuda $version"
  expect_eq "$(r "$cc" --print-share-dir)" /scratch/home/.local/share/condacuda "--print-share-dir in the root"

  note "$suite: the GPU child's start-up on this glibc (src/probe/glibc_floor.c: constructors, the unwinder, dlopen)"
  expect_eq "$(r /scratch/home/.local/libexec/condacuda/condacuda-probe --self-test)" \
    "$(printf 'constructors: ran once\nexceptions: caught\ndlopen: libm.so.6 cos(0) = 1')" "condacuda-probe --self-test in the root"

  note "$suite: the demo env, built in the root by its gcc and python3"
  r /src/examples/demo-env/build.sh /scratch/demo > /dev/null
  tree_state "$scratch/demo/env" > "$scratch/before-repair.txt"

  note "$suite: without repair, the system nvJitLink first, the import fails like the seed report"
  local got
  got=$(r env LD_LIBRARY_PATH="$rsys" "$rpy" -c "$import" 2>&1) && fail "the import loaded in the $suite root without repair: $got"
  case $got in
    *"undefined symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12"*) ;;
    *) fail "the import failed otherwise than the seed report: $got" ;;
  esac

  note "$suite: info"
  r "$cc" info -p "$renv"
  r "$cc" info -p "$renv" --json > "$scratch/root-info.json"

  note "$suite: doctor with the system nvJitLink first: exit 1, __nvJitLinkAddData_12_1 named"
  expect_status 1 r env LD_LIBRARY_PATH="$rsys" "$cc" doctor -p "$renv" --json > "$scratch/root-doctor-before.json"
  grep -q '__nvJitLinkAddData_12_1' "$scratch/root-doctor-before.json" || fail "doctor does not name __nvJitLinkAddData_12_1"
  expect_eq "$(json "$scratch/root-doctor-before.json" '[(f["code"], f["symbol"]) for f in j["findings"] if f["severity"] == "error"]')" \
    "[('undefined-symbol', '__nvJitLinkAddData_12_1')]" "doctor's error findings in the root"
  # The static condacuda has glibc 2.36 inside: the model must be of the root's (sys/machine.cpp reads it from its files).
  expect_eq "$(json "$scratch/root-doctor-before.json" '(j["loader"]["glibc"], j["node"]["glibc"])')" \
    "('$glibc', '$glibc')" "the glibc doctor models in the root"

  note "$suite: repair, doctor again (exit 0)"
  r env LD_LIBRARY_PATH="$rsys" "$cc" repair -p "$renv" --json > "$scratch/root-repair.json"
  expect_eq "$(json "$scratch/root-repair.json" 'j["outcome"]')" repaired "repair's outcome in the root"
  expect_status 0 r env LD_LIBRARY_PATH="$rsys" "$cc" doctor -p "$renv" --json > "$scratch/root-doctor-after.json"

  note "$suite: the import through condacuda run"
  expect_eq "$(r env LD_LIBRARY_PATH="$rsys" "$cc" run -p "$renv" -- "$rpy" -c "$import")" "sparse 12100" "condacuda run in the root"

  note "$suite: lock, lock --check"
  r "$cc" lock -p "$renv" -o /scratch/lock.yml
  [ -s "$scratch/lock.yml" ] || fail "lock wrote no /scratch/lock.yml"
  r "$cc" lock -p "$renv" --check /scratch/lock.yml

  note "$suite: check (no GPU here: the GPU child starts and finds no driver)"
  local status=0
  r "$cc" check -p "$renv" --json > "$scratch/root-check.json" || status=$?
  json "$scratch/root-check.json" '"outcome %s, exit %s, probe: %s (%s), reason: %s" % (j["outcome"], j["exit_code"], j["probe"]["outcome"], j["probe"]["started_with"], j["reason"][:100])'
  expect_eq "$status" 3 "check's exit status in the root (3: no GPU)"
  expect_eq "$(json "$scratch/root-check.json" '(j["outcome"], j["probe"]["finished"], j["probe"]["outcome"], j["probe"]["protocol_errors"])')" \
    "('no-gpu', True, 'exited with 0', [])" "check: the GPU child ran to its end"
  expect_eq "$(json "$scratch/root-check.json" '[(l["soname"], l["loaded"]) for l in j["libraries"] if l["component"] == "driver"]')" \
    "[('libcuda.so.1', False)]" "check: the child looked for the driver"
  expect_eq "$(json "$scratch/root-check.json" 'sorted(l["component"] for l in j["libraries"] if l["loaded"])')" \
    "['cudart', 'cusparse', 'nvjitlink']" "check: the env's libraries the child loaded"
  note "$suite: check without libexec/condacuda/condacuda-probe: the child cannot start (the control: check runs that program)"
  local probe=$local_dir/libexec/condacuda/condacuda-probe
  mv "$probe" "$probe.away"
  expect_status 1 r "$cc" check -p "$renv" --json > "$scratch/root-check-noprobe.json"
  mv "$probe.away" "$probe"
  expect_eq "$(json "$scratch/root-check-noprobe.json" '(j["outcome"], j["probe"]["finished"], j["probe"]["outcome"].startswith("could not be started"))')" \
    "('fail', False, True)" "check without its GPU child"

  note "$suite: undo: the env's tree is as before repair"
  r "$cc" undo -p "$renv"
  tree_state "$scratch/demo/env" > "$scratch/after-undo.txt"
  diff "$scratch/before-repair.txt" "$scratch/after-undo.txt" >&2 || fail "undo in the $suite root left the env changed"
  local t_checks_done=$((SECONDS - t_checks))

  note "the same demo env on this machine ($(getconf GNU_LIBC_VERSION)), with $CONDACUDA"
  local t_host=$SECONDS
  export XDG_CACHE_HOME=$scratch/host-cache # lock's hash cache: not the caller's
  demo_env "$scratch/hostdemo"
  "$CONDACUDA" info -p "$env" --json > "$scratch/host-info.json"
  expect_status 1 env LD_LIBRARY_PATH="$system" "$CONDACUDA" doctor -p "$env" --json > "$scratch/host-doctor-before.json"
  LD_LIBRARY_PATH=$system "$CONDACUDA" repair -p "$env" > /dev/null
  expect_status 0 env LD_LIBRARY_PATH="$system" "$CONDACUDA" doctor -p "$env" --json > "$scratch/host-doctor-after.json"
  t_host=$((SECONDS - t_host))
  local what
  for what in info doctor-before doctor-after; do
    _portable_verdicts "$scratch/host-$what.json" "$env" "$system" > "$scratch/host-$what.txt"
    _portable_verdicts "$scratch/root-$what.json" "$renv" "$rsys" > "$scratch/root-$what.txt"
    echo "--- $what, this machine:"
    cat "$scratch/host-$what.txt"
    if ! cmp -s "$scratch/host-$what.txt" "$scratch/root-$what.txt"; then
      diff "$scratch/host-$what.txt" "$scratch/root-$what.txt" >&2 || true
      fail "$what: the $suite root's verdicts differ from this machine's (diff above: < here, > $suite)"
    fi
    echo "--- $what, $suite: the same"
  done

  note "$suite: the wheel, in the root's python3 -m venv"
  local t_wheel=$SECONDS
  r python3 -m venv /scratch/venv
  r /scratch/venv/bin/pip install --no-index --disable-pip-version-check -q "/scratch/out/$wheel"
  grep -qx "condacuda $version" <<< "$(r /scratch/venv/bin/condacuda --version)" || fail "the venv's condacuda --version"
  grep -qx "condacuda $version" <<< "$(r /scratch/venv/bin/python -m condacuda --version)" || fail "python -m condacuda --version"
  expect_status 1 r env LD_LIBRARY_PATH="$rsys" /scratch/venv/bin/condacuda doctor -p "$renv" --json > "$scratch/wheel-doctor.json"
  _portable_verdicts "$scratch/wheel-doctor.json" "$renv" "$rsys" > "$scratch/wheel-doctor.txt"
  cmp -s "$scratch/root-doctor-before.txt" "$scratch/wheel-doctor.txt" ||
    fail "the wheel's doctor differs from the tarball's: $(diff "$scratch/root-doctor-before.txt" "$scratch/wheel-doctor.txt")"
  expect_status 1 r /scratch/venv/bin/condacuda doctor -p "$renv" > /dev/null # the text report runs too (no LD_LIBRARY_PATH: the unrepaired demo env misses its link)
  status=0
  r /scratch/venv/bin/condacuda check -p "$renv" --json > "$scratch/wheel-check.json" || status=$?
  expect_eq "$status:$(json "$scratch/wheel-check.json" '(j["outcome"], j["probe"]["finished"], j["probe"]["outcome"])')" \
    "3:('no-gpu', True, 'exited with 0')" "the wheel's check: its GPU child ran"
  t_wheel=$((SECONDS - t_wheel))

  [ -z "$(debian_root_mounts "$root")" ] || fail "mounts left on the root: $(debian_root_mounts "$root")"
  note "$suite: root ${t_root} s, condacuda in the root ${t_checks_done} s, on this machine ${t_host} s, the wheel ${t_wheel} s; all ${SECONDS} s"
}

# _portable_verdicts FILE PREFIX SYSTEM: what must be the same here and in the
# root of an info or doctor document, one fact a line, with PREFIX, SYSTEM
# and the python version (python3.N, cpython-3N) normalized.
_portable_verdicts() {
  python3 - "$@" << 'PY'
import json, re, sys
path, prefix, system = sys.argv[1:]
j = json.load(open(path))
def norm(s):
    if s is None:
        return None
    s = s.replace(system, "SYSTEM").replace(prefix, "ENV")
    s = re.sub(r"python3\.\d+", "python3.N", s)
    return re.sub(r"cpython-3\d+", "cpython-3N", s)
out = ["schema " + j["schema"], "outcome %s exit_code %s" % (j["outcome"], j["exit_code"])]
if j["schema"].startswith("condacuda.info/"):
    out.append("cuda %s majors %s" % (j["cuda"], j["cuda_majors"]))
    for c in j["components"]:
        p = c["package"] or {}
        out.append("component %s %s %s %s %s major %s (%s)" % (c["component"], c["soname"], norm(c["file"]),
                   p.get("name"), p.get("version"), c["cuda_major"], c["cuda_major_source"]))
else:
    out.append("summary " + json.dumps(j["summary"], sort_keys=True))
    for r in j["roots"]:
        out.append("root %s %s %s" % (norm(r["file"]), r["verdict"], norm(r["error"])))
    for f in j["findings"]:
        out.append("finding %s %s %s %s via %s" % (f["severity"], f["code"], f["library"], f["symbol"], norm(f["via_entry"])))
print("\n".join(out[:2] + sorted(out[2:])))
PY
}
