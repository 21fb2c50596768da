#!/usr/bin/env bash
# The wheel (issue 29): packaging/portable/build.sh makes it from this build;
# it is a valid wheel (its RECORD lists every file with the right hash and
# size; METADATA and WHEEL say what pip reads), pip installs it offline into
# a fresh venv, the venv's bin/condacuda and `python -m condacuda` run, find
# the share folder and the probe in the venv, diagnose the demo env's seed
# failure and repair it; and `pip uninstall` removes every file it put there.
source "$(dirname "$0")/lib.sh"
python3 -c 'import ensurepip, venv' 2> /dev/null || skip "python3 has no venv and ensurepip (Debian: python3-venv)"
demo_env "$scratch/demo"

note "build.sh packages this build"
out=$scratch/out
"$CONDACUDA_SOURCE_DIR/packaging/portable/build.sh" "$out" --build-dir "$CONDACUDA_BUILD_DIR" > "$scratch/build.log" 2>&1 ||
  { cat "$scratch/build.log"; fail "build.sh"; }
cat "$scratch/build.log"
version=$("$CONDACUDA" --version)
version=${version#condacuda }
wheel=$out/condacuda-$version-py3-none-manylinux_2_28_x86_64.whl
expect_eq "$(cd "$out" && ls)" "condacuda-$version-linux-x86_64.tar.gz
$(basename "$wheel")" "what build.sh leaves in OUTDIR"

note "the wheel: a zip whose RECORD lists every file with its hash and size"
python3 - "$wheel" "$version" "$CONDACUDA_SOURCE_DIR/LICENSE" << 'PY'
import base64, csv, email.parser, hashlib, io, stat, sys, zipfile
path, version, license_path = sys.argv[1:]
z = zipfile.ZipFile(path)
assert z.testzip() is None, "a member's CRC is wrong"
names = z.namelist()
assert len(names) == len(set(names)), "duplicate members"
di = "condacuda-%s.dist-info" % version
data = "condacuda-%s.data" % version
assert names[-1] == di + "/RECORD", "RECORD is not last"
rows = list(csv.reader(io.StringIO(z.read(di + "/RECORD").decode())))
assert [r[0] for r in rows] == names, "RECORD does not list the members in order: %s" % [r[0] for r in rows]
for name, digest, size in rows:
    content = z.read(name)
    if name == di + "/RECORD":
        assert (digest, size) == ("", ""), "RECORD's own line is not empty"
        continue
    want = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(content).digest()).rstrip(b"=").decode()
    assert digest == want and int(size) == len(content), "%s: RECORD says %s %s" % (name, digest, size)
programs = {data + "/scripts/condacuda", data + "/data/libexec/condacuda/condacuda-probe",
            data + "/data/share/condacuda/hooks/post-link.sh", data + "/data/share/condacuda/hooks/pre-unlink.sh"}
for name in names:
    m = z.getinfo(name).external_attr >> 16
    assert stat.S_ISREG(m), name
    want = 0o755 if name in programs else 0o644
    assert stat.S_IMODE(m) == want, "%s: mode %o, expected %o" % (name, stat.S_IMODE(m), want)
    assert z.getinfo(name).date_time >= (1980, 1, 1, 0, 0, 0)
for must in [data + "/scripts/condacuda", data + "/data/libexec/condacuda/condacuda-probe",
             data + "/data/share/condacuda/templates/releases.yml", data + "/data/share/condacuda/hooks/post-link.sh",
             data + "/data/share/condacuda/hooks/pre-unlink.sh", data + "/data/share/man/man1/condacuda.1",
             data + "/data/share/bash-completion/completions/condacuda", data + "/data/share/zsh/site-functions/_condacuda",
             data + "/data/share/fish/vendor_completions.d/condacuda.fish",
             "condacuda/__init__.py", "condacuda/__main__.py", di + "/LICENSE", di + "/METADATA", di + "/WHEEL"]:
    assert must in names, "missing: " + must
stray = [n for n in names if not n.startswith((data + "/scripts/", data + "/data/libexec/", data + "/data/share/", "condacuda/", di + "/"))]
assert not stray, "stray members: %s" % stray
meta = email.parser.Parser().parsestr(z.read(di + "/METADATA").decode())
for key, want in [("Name", "condacuda"), ("Version", version), ("License", "BSD-3-Clause"),
                  ("License-File", "LICENSE"), ("Requires-Python", ">=3.8")]:
    assert meta[key] == want, "METADATA %s: %r" % (key, meta[key])
assert meta["Metadata-Version"] in ("2.1", "2.2", "2.3", "2.4") and meta["Summary"], "METADATA"
assert "condacuda" in meta.get_payload(), "METADATA has no description"
wheel = email.parser.Parser().parsestr(z.read(di + "/WHEEL").decode())
for key, want in [("Wheel-Version", "1.0"), ("Root-Is-Purelib", "false"), ("Tag", "py3-none-manylinux_2_28_x86_64")]:
    assert wheel[key] == want, "WHEEL %s: %r" % (key, wheel[key])
assert wheel["Generator"], "WHEEL Generator"
assert z.read(di + "/LICENSE") == open(license_path, "rb").read(), "the wheel's LICENSE is not the repository's"
assert ('__version__ = "%s"' % version).encode() in z.read("condacuda/__init__.py"), "__version__"
print("# %d members, RECORD verified" % len(names))
PY
note "wheel $(stat -c %s "$wheel") bytes"

note "a fresh venv; pip installs the wheel with no index"
venv=$scratch/venv
python3 -m venv "$venv"
export PIP_CONFIG_FILE=/dev/null PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
"$venv/bin/python" -m pip --version
listing() { (cd "$venv" && find . ! -type d | LC_ALL=C sort); }
listing > "$scratch/before.txt"
"$venv/bin/python" -m pip install --no-index "$wheel" > "$scratch/pip.log" 2>&1 || { cat "$scratch/pip.log"; fail "pip install"; }
listing > "$scratch/installed.txt"
comm -13 "$scratch/before.txt" "$scratch/installed.txt" | sed 's|^|#   |'
for f in bin/condacuda libexec/condacuda/condacuda-probe share/condacuda/templates/releases.yml \
         share/condacuda/hooks/post-link.sh share/man/man1/condacuda.1 share/bash-completion/completions/condacuda \
         share/zsh/site-functions/_condacuda share/fish/vendor_completions.d/condacuda.fish share/doc/condacuda/LICENSE; do
  [ -f "$venv/$f" ] || fail "pip installed no $f"
done
for f in bin/condacuda libexec/condacuda/condacuda-probe share/condacuda/hooks/post-link.sh share/condacuda/hooks/pre-unlink.sh; do
  [ -x "$venv/$f" ] || fail "not executable: $f"
done

note "the venv's condacuda and python -m condacuda"
expect_eq "$("$venv/bin/condacuda" --version)" "condacuda $version" "bin/condacuda --version"
expect_eq "$("$venv/bin/python" -m condacuda --version)" "condacuda $version" "python -m condacuda --version"
expect_eq "$("$venv/bin/python" -c 'import condacuda; print(condacuda.__version__, condacuda.binary_path())')" \
  "$version $venv/bin/condacuda" "condacuda.__version__, condacuda.binary_path()"
expect_eq "$("$venv/bin/condacuda" --print-share-dir)" "$venv/share/condacuda" "--print-share-dir"
[ -f "$("$venv/bin/condacuda" --print-share-dir)/templates/releases.yml" ] || fail "the share folder has no templates"
# With the venv's bin/ not on PATH and from another folder: found through RECORD.
expect_eq "$(cd / && env PATH=/usr/bin:/bin "$venv/bin/python" -m condacuda --print-share-dir)" "$venv/share/condacuda" \
  "python -m condacuda from elsewhere"

note "the demo env: doctor names the seed's symbol (exit status through python -m), repair, the import loads"
expect_status 1 env LD_LIBRARY_PATH="$system" "$venv/bin/condacuda" doctor -p "$env" > "$scratch/doctor.txt"
grep -q "__nvJitLinkAddData_12_1" "$scratch/doctor.txt" || { cat "$scratch/doctor.txt"; fail "doctor does not name the undefined symbol"; }
expect_status 1 env LD_LIBRARY_PATH="$system" "$venv/bin/python" -m condacuda doctor -p "$env" > /dev/null
expect_status 2 "$venv/bin/python" -m condacuda doctor -p "$scratch/no-such-env" > /dev/null 2>&1
LD_LIBRARY_PATH=$system "$venv/bin/condacuda" repair -p "$env" > "$scratch/repair.txt" || { cat "$scratch/repair.txt"; fail "repair"; }
expect_eq "$(LD_LIBRARY_PATH=$system "$venv/bin/condacuda" run -p "$env" -- "$py" -c "$import")" "sparse 12100" "the import after repair"
expect_status 0 env LD_LIBRARY_PATH="$system" "$venv/bin/condacuda" doctor -p "$env" > /dev/null
note "doctor on the venv itself"
expect_status 0 env -u LD_LIBRARY_PATH "$venv/bin/condacuda" doctor -p "$venv" > "$scratch/doctor-venv.txt"
head -n 1 "$scratch/doctor-venv.txt"

note "pip uninstall removes every file it installed"
"$venv/bin/python" -m pip uninstall -y condacuda > "$scratch/uninstall.log" 2>&1 || { cat "$scratch/uninstall.log"; fail "pip uninstall"; }
listing > "$scratch/after.txt"
diff "$scratch/before.txt" "$scratch/after.txt" || fail "files left or removed by install + uninstall (above)"
note "wheel in a venv: ok"
