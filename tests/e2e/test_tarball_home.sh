#!/usr/bin/env bash
# The release tarball (issue 29): packaging/portable/build.sh makes it from
# this build; its members are exactly the documented tree under one top
# folder (no stray file, no absolute or `..` path, no link, sane modes, owner
# 0); unpacked into ~/.local with --strip-components=1 the binary runs with
# HOME there, finds ~/.local/share/condacuda and diagnoses the demo env. The
# tarball's binary and probe are the wheel's; a second build.sh gives the same
# bytes; build.sh refuses a build tree that is not configured or not built.
source "$(dirname "$0")/lib.sh"
demo_env "$scratch/demo"

note "build.sh packages this build"
out=$scratch/out
"$CONDACUDA_SOURCE_DIR/packaging/portable/build.sh" "$out" --build-dir "$CONDACUDA_BUILD_DIR" > "$scratch/build.log" 2>&1 ||
  { cat "$scratch/build.log"; fail "build.sh"; }
version=$("$CONDACUDA" --version)
version=${version#condacuda }
top=condacuda-$version-linux-x86_64
tarball=$out/$top.tar.gz
wheel=$out/condacuda-$version-py3-none-manylinux_2_28_x86_64.whl
[ -f "$tarball" ] || fail "no $tarball"

note "the tarball's members: the documented tree"
{
  echo bin/condacuda
  echo libexec/condacuda/condacuda-probe
  (cd "$CONDACUDA_SOURCE_DIR/templates" && find . -type f | sed 's|^\./|share/condacuda/templates/|')
  echo share/condacuda/hooks/post-link.sh
  echo share/condacuda/hooks/pre-unlink.sh
  echo share/man/man1/condacuda.1
  echo share/bash-completion/completions/condacuda
  echo share/zsh/site-functions/_condacuda
  echo share/fish/vendor_completions.d/condacuda.fish
  echo share/doc/condacuda/LICENSE
} | sed "s|^|$top/|" | LC_ALL=C sort > "$scratch/expected.txt"
python3 - "$tarball" "$top" > "$scratch/members.txt" << 'PY'
import stat, sys, tarfile
path, top = sys.argv[1:]
programs = {top + "/" + p for p in ("bin/condacuda", "libexec/condacuda/condacuda-probe",
                                    "share/condacuda/hooks/post-link.sh", "share/condacuda/hooks/pre-unlink.sh")}
problems, files, dirs, mtimes = [], [], set(), set()
with tarfile.open(path, "r:gz") as t:
    for m in t.getmembers():
        name = m.name
        parts = name.split("/")
        if name.startswith("/") or ".." in parts or "" in parts[:-1] or parts[0] != top:
            problems.append("bad path: %r" % name)
        if m.uid or m.gid:
            problems.append("%s: owner %d:%d" % (name, m.uid, m.gid))
        mtimes.add(m.mtime)
        if m.isdir():
            dirs.add(name.rstrip("/"))
            if m.mode != 0o755:
                problems.append("%s/: mode %o" % (name, m.mode))
        elif m.isfile():
            files.append(name)
            want = 0o755 if name in programs else 0o644
            if m.mode != want:
                problems.append("%s: mode %o, expected %o" % (name, m.mode, want))
        else:
            problems.append("%s: neither a file nor a folder (type %r)" % (name, m.type))
for f in files:  # every file's folders are members too, and no other folder
    d = f.rsplit("/", 1)[0]
    while d:
        if d not in dirs:
            problems.append("no member for the folder %s/" % d)
        d = d.rsplit("/", 1)[0] if "/" in d else ""
used = {f.rsplit("/", i)[0] for f in files for i in range(1, f.count("/") + 1)}
problems += ["empty folder %s/" % d for d in sorted(dirs - used)]
if len(mtimes) != 1:
    problems.append("members with different times: %s" % sorted(mtimes))
if problems:
    sys.exit("\n".join(problems))
print("\n".join(sorted(files)))
PY
diff "$scratch/expected.txt" "$scratch/members.txt" || fail "the tarball's files are not the documented tree (above: - missing, + stray)"
note "$(wc -l < "$scratch/members.txt") files under $top/"

note "unpacked into ~/.local: the binary runs with HOME there"
home=$scratch/home
mkdir -p "$home/.local"
tar -xzf "$tarball" -C "$home/.local" --strip-components=1
bin=$home/.local/bin/condacuda
expect_eq "$(HOME=$home "$bin" --version)" "condacuda $version" "--version"
expect_eq "$(env -i HOME="$home" "$bin" --version)" "condacuda $version" "--version with an empty environment"
expect_eq "$(HOME=$home "$bin" --print-share-dir)" "$home/.local/share/condacuda" "--print-share-dir"
[ -f "$home/.local/share/condacuda/templates/releases.yml" ] || fail "no templates in the share folder"
[ -f "$home/.local/share/condacuda/templates/hooks/activate.sh.in" ] || fail "no hook templates in the share folder"
[ -x "$home/.local/libexec/condacuda/condacuda-probe" ] || fail "no probe in ~/.local/libexec/condacuda"
cmp -s "$home/.local/share/doc/condacuda/LICENSE" "$CONDACUDA_SOURCE_DIR/LICENSE" || fail "the tarball's LICENSE is not the repository's"
[ ! -e "$home/.local/LICENSE" ] || fail "the tarball litters ~/.local with a LICENSE"
expect_status 1 env HOME="$home" LD_LIBRARY_PATH="$system" "$bin" doctor -p "$env" > "$scratch/doctor.txt"
grep -q "__nvJitLinkAddData_12_1" "$scratch/doctor.txt" || { cat "$scratch/doctor.txt"; fail "doctor does not name the undefined symbol"; }
expect_status 2 env HOME="$home" "$bin" doctor -p "$scratch/no-such-env" > /dev/null 2>&1

note "the tarball's programs are the wheel's"
for pair in scripts/condacuda:bin/condacuda data/libexec/condacuda/condacuda-probe:libexec/condacuda/condacuda-probe; do
  python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]))' \
    "$wheel" "condacuda-$version.data/${pair%%:*}" > "$scratch/from-wheel"
  cmp -s "$scratch/from-wheel" "$home/.local/${pair#*:}" || fail "differs from the wheel: ${pair#*:}"
done

note "a second build.sh gives the same bytes"
"$CONDACUDA_SOURCE_DIR/packaging/portable/build.sh" "$scratch/again" --build-dir "$CONDACUDA_BUILD_DIR" > /dev/null 2>&1 ||
  fail "build.sh, second time"
cmp "$tarball" "$scratch/again/$top.tar.gz" || fail "the tarball is not reproducible"
cmp "$wheel" "$scratch/again/$(basename "$wheel")" || fail "the wheel is not reproducible"

note "build.sh refuses a build tree that is not configured, or not built"
mkdir -p "$scratch/not-configured" "$scratch/not-built"
expect_status 1 "$CONDACUDA_SOURCE_DIR/packaging/portable/build.sh" "$scratch/x" --build-dir "$scratch/not-configured" 2> "$scratch/err1.txt"
grep -q "is not a configured build tree" "$scratch/err1.txt" || { cat "$scratch/err1.txt"; fail "message, not configured"; }
: > "$scratch/not-built/CMakeCache.txt"
echo "file(INSTALL DESTINATION \"\${CMAKE_INSTALL_PREFIX}/bin\" TYPE EXECUTABLE FILES \"$scratch/not-built/src/condacuda\")" \
  > "$scratch/not-built/cmake_install.cmake"
expect_status 1 "$CONDACUDA_SOURCE_DIR/packaging/portable/build.sh" "$scratch/y" --build-dir "$scratch/not-built" 2> "$scratch/err2.txt"
grep -q "is not built" "$scratch/err2.txt" || { cat "$scratch/err2.txt"; fail "message, not built"; }
expect_status 2 "$CONDACUDA_SOURCE_DIR/packaging/portable/build.sh" 2> /dev/null

note "sizes: bin/condacuda $(stat -c %s "$bin") bytes, libexec/condacuda/condacuda-probe $(stat -c %s "$home/.local/libexec/condacuda/condacuda-probe") bytes (stripped), wheel $(stat -c %s "$wheel") bytes, tarball $(stat -c %s "$tarball") bytes"
note "tarball in ~/.local: ok"
