#!/usr/bin/env bash
# The generated man page (condacuda __generate man, installed as
# share/man/man1/condacuda.1): man renders it without a warning, with the NAME
# line once and every section; and what it says agrees with the sources and
# the README, so neither can drift: EXIT STATUS with the README's "Exit codes"
# table, FINDINGS with the README's "Findings" table and with every finding
# code doctor/findings.hpp defines and src/ reports, ENVIRONMENT with every
# variable the sources, hooks and activation notice read; the EXAMPLES' own
# command lines run against a stub env without a usage error. Skipped (125)
# without man (tests/install-deps.sh installs man-db as root).
source "$(dirname "$0")/lib.sh"
command -v man > /dev/null || skip "man is not installed (tests/install-deps.sh installs man-db, as root)"

page=$scratch/condacuda.1
"$CONDACUDA" __generate man > "$page"
installed=$CONDACUDA_BUILD_DIR/generated/condacuda.1
if [ -f "$installed" ]; then
  cmp -s "$page" "$installed" || fail "$installed (what cmake --install installs) is not the binary's page"
fi

note "man renders it without a warning"
MANWIDTH=200 man -l --warnings "$page" > "$scratch/rendered.raw" 2> "$scratch/warnings"
[ ! -s "$scratch/warnings" ] || fail "man/groff warnings: $(cat "$scratch/warnings")"
col -b < "$scratch/rendered.raw" > "$scratch/rendered"
# troff reads Latin-1 where man-db's preconv does not run first: ASCII only (\[uXXXX])
! LC_ALL=C grep -n '[^[:print:][:space:]]' "$page" || fail "the page has bytes past ASCII (above)"

note "the NAME line once, without the program's name twice"
names=$(grep -c '^ *condacuda - ' "$scratch/rendered" || true)
expect_eq "$names" 1 "lines 'condacuda - ...'"
! grep -q 'condacuda - condacuda' "$scratch/rendered" || fail "NAME says the name twice"
grep -q '^ *condacuda - make the CUDA libraries' "$scratch/rendered" || fail "NAME line: $(grep -m1 ' - ' "$scratch/rendered")"

note "every section, once"
for section in NAME SYNOPSIS DESCRIPTION COMMANDS EXAMPLES ENVIRONMENT 'EXIT STATUS' FILES FINDINGS 'SEE ALSO'; do
  expect_eq "$(grep -cx "$section" "$scratch/rendered" || true)" 1 "section $section"
done

note "EXIT STATUS, FINDINGS, ENVIRONMENT, FILES and EXAMPLES against the README and the sources"
python3 - "$page" "$CONDACUDA_SOURCE_DIR" > "$scratch/examples" << 'PY'
import glob, os, re, sys

page, source = sys.argv[1], sys.argv[2]
problems = []

def unroff(text):
    text = re.sub(r"\\\[u([0-9A-F]{4,5})\]", lambda m: chr(int(m.group(1), 16)), text)
    return (text.replace(r"\(aq", "'").replace(r"\-", "-").replace(r"\&", "")
            .replace(r"\fB", "").replace(r"\fI", "").replace(r"\fR", "").replace(r"\e", "\\"))

def sections(roff):
    """section title -> its lines (roff)"""
    out, title = {}, None
    for line in roff.split("\n"):
        if line.startswith(".SH "):
            title = line[4:].strip('"')
            out[title] = []
        elif title is not None:
            out[title].append(line)
    return out

def entries(lines):
    """.TP / .B TERM / text... -> [(term, text)]"""
    out, i = [], 0
    while i < len(lines):
        if lines[i] == ".TP" and i + 1 < len(lines) and lines[i + 1].startswith(".B "):
            term, text, i = unroff(lines[i + 1][3:]), [], i + 2
            while i < len(lines) and not lines[i].startswith("."):
                text.append(unroff(lines[i]))
                i += 1
            out.append((term, " ".join(text)))
        else:
            i += 1
    return out

def readme_table(readme, heading):
    """the rows of the first table under `## heading`, Markdown backticks removed"""
    block = readme.split("\n## " + heading + "\n", 1)[1].split("\n## ", 1)[0]
    rows = [l for l in block.split("\n") if l.startswith("|")][2:]
    return [[c.strip().replace("`", "") for c in r.strip("|").split("|")] for r in rows]

roff = open(page, encoding="utf-8").read()
man = sections(roff)
readme = open(os.path.join(source, "README.md"), encoding="utf-8").read()

# EXIT STATUS: the README's codes, each meaning as the README words it (the
# man page may say more after it).
man_codes = dict(entries(man["EXIT STATUS"]))
readme_codes = dict((r[0], r[1]) for r in readme_table(readme, "Exit codes"))
if set(man_codes) != set(readme_codes):
    problems.append("exit codes: man %s, README %s" % (sorted(man_codes), sorted(readme_codes)))
for code, meaning in readme_codes.items():
    if code in man_codes and not man_codes[code].startswith(meaning):
        problems.append("exit code %s: man says %r, README %r" % (code, man_codes[code], meaning))

# FINDINGS: the README's table word for word; every code findings.hpp defines
# and src/ reports; none that findings.hpp does not define.
findings_hpp = open(os.path.join(source, "src/doctor/findings.hpp"), encoding="utf-8").read()
code_block = findings_hpp.split("namespace code {", 1)[1].split("}", 1)[0]
defined = dict(re.findall(r'constexpr const char\* (\w+) = "([a-z-]+)";', code_block))
used = set()
for path in glob.glob(os.path.join(source, "src/**/*.[ch]pp"), recursive=True):
    if path.endswith(("doctor/findings.hpp", "report/cli_docs.cpp")):
        continue
    used |= set(re.findall(r"\bcode::(\w+)", open(path, encoding="utf-8").read()))
reported = {defined[name] for name in used if name in defined}
man_findings = {}
for code, text in entries(man["FINDINGS"]):
    severity, _, what = text.partition(": ")
    man_findings[code] = (severity, what)
readme_findings = {r[0]: (r[1], r[2]) for r in readme_table(readme, "Findings")}
for code in sorted(set(man_findings) | set(readme_findings)):
    if man_findings.get(code) != readme_findings.get(code):
        problems.append("finding %s: man %r, README %r" % (code, man_findings.get(code), readme_findings.get(code)))
for code in sorted(reported - set(man_findings)):
    problems.append("finding %s is reported by src/ but not in the man page" % code)
for code in sorted(set(man_findings) - set(defined.values())):
    problems.append("finding %s is in the man page but not in doctor/findings.hpp" % code)
for code in sorted(set(defined.values()) - reported - set(man_findings)):
    print("# note: finding code %s is defined in findings.hpp but nothing reports it" % code, file=sys.stderr)

# ENVIRONMENT: every variable the sources read (getenv, discovery's variables,
# check's warnings, the hooks' state), the hooks and the notice read.
def grep(pattern, paths):
    found = set()
    for path in paths:
        found |= set(re.findall(pattern, open(path, encoding="utf-8").read()))
    return found
src = glob.glob(os.path.join(source, "src/**/*.[ch]pp"), recursive=True)
read = grep(r'getenv\("([A-Z][A-Z0-9_]+)"\)', src)
read |= grep(r'"([A-Z][A-Z0-9_]{2,})"', [os.path.join(source, "src/env/discovery.cpp")])
read |= grep(r'vars\.find\("([A-Z][A-Z0-9_]+)"\)', src)
read |= grep(r'name == "([A-Z][A-Z0-9_]+)"', [os.path.join(source, "src/check/verdict.cpp")])
read |= grep(r'hook_state_variable = "([A-Z_]+)"', src)
read |= grep(r'\bget\("([A-Z][A-Z0-9_]+)"\)', [os.path.join(source, "src/sys/jupyter_files.cpp")])  # Jupyter's variables
read |= grep(r"\b(CONDACUDA_[A-Z_]+)", glob.glob(os.path.join(source, "templates/hooks/*")) +
             glob.glob(os.path.join(source, "hooks/activate.d/*")))
read |= {"CONDA_PREFIX", "VIRTUAL_ENV", "CONDA_ENVS_PATH", "CONDA_ENVS_DIRS", "MAMBA_ROOT_PREFIX", "XDG_CACHE_HOME",
         "NO_COLOR", "TERM", "LD_LIBRARY_PATH", "CONDACUDA_QUIET", "CONDACUDA_CHILD_START"}
documented = set()
for term, _ in entries(man["ENVIRONMENT"]):
    documented |= {v.strip() for v in term.split(",")}
for var in sorted(read - documented):
    problems.append("variable %s is read but not in ENVIRONMENT" % var)
for var in sorted(documented - read):
    problems.append("variable %s is in ENVIRONMENT but nothing reads it" % var)

# FILES: the manifest, the hooks and the caches, at the paths the sources use.
files = dict(entries(man["FILES"]))
for path in ["$PREFIX/etc/condacuda/manifest.yml", "$PREFIX/etc/conda/activate.d/condacuda.{sh,fish,csh}",
             "$PREFIX/etc/conda/deactivate.d/condacuda.{sh,fish,csh}", "$XDG_CACHE_HOME/condacuda/hashes",
             "$XDG_CACHE_HOME/condacuda/fatbins", "$XDG_CACHE_HOME/condacuda/load-checks",
             "$XDG_CACHE_HOME/condacuda/system-folders", "$XDG_CACHE_HOME/condacuda/dist-info",
             "$XDG_CACHE_HOME/condacuda/results",
             "$PREFIX/etc/condacuda/originals/<hash>-<name>"]:
    if path not in files:
        problems.append("FILES lacks " + path)
for needle in ['manifest_path = "etc/condacuda/manifest.yml"', 'originals_folder = "etc/condacuda/originals"',
               '"/condacuda/hashes"', 'default_cache_path("fatbins")', 'default_cache_path("load-checks")',
               'default_cache_path("system-folders")', 'default_cache_path("dist-info")',
               'default_cache_path("results")']:
    if not grep(re.escape(needle), src):
        problems.append("the sources no longer say " + needle + " (FILES may be out of date)")

# EXAMPLES: printed for the shell to run (the command lines, as a person types them).
nf = "\n".join(man["EXAMPLES"])
for want in ["condacuda doctor -p ./env", "condacuda repair -p ./env", "condacuda check -p ./env",
             "condacuda lock -p ./env -o cuda.lock.yml", "condacuda lock --check cuda.lock.yml -p ./env",
             "srun condacuda run -p /envs/train -- python train.py", "__nvJitLinkAddData_12_1"]:
    if want not in unroff(nf):
        problems.append("EXAMPLES lack " + want)
for line in unroff(nf).split("\n"):
    line = line.split("  #")[0].strip()
    if line.startswith("$ condacuda "):
        print(line[2:])
    elif line.startswith("srun "):
        print(line[5:])

for p in problems:
    print("FAIL: " + p, file=sys.stderr)
sys.exit(1 if problems else 0)
PY

note "the examples' command lines run (a stub env; no usage error)"
stub=$scratch/work/env
mkdir -p "$stub/conda-meta" "$stub/bin"
touch "$stub/conda-meta/history" "$scratch/work/train.py"
printf '#!/bin/sh\nexit 0\n' > "$stub/bin/python" && chmod +x "$stub/bin/python"
[ -s "$scratch/examples" ] || fail "no command lines in EXAMPLES"
while IFS= read -r line; do
  read -ra words <<< "${line//\/envs\/train/.\/env}"
  status=0
  (cd "$scratch/work" && env -u LD_LIBRARY_PATH -u CONDA_PREFIX -u VIRTUAL_ENV XDG_CACHE_HOME="$scratch/cache" \
    "$CONDACUDA" "${words[@]:1}" > "$scratch/example.out" 2>&1) || status=$?
  case $status in
    0 | 1 | 3) note "exit $status: $line" ;;
    *) fail "example '$line' exits $status: $(cat "$scratch/example.out")" ;;
  esac
done < "$scratch/examples"
note "man page: ok"
