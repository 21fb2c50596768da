#!/usr/bin/env bash
# The conda recipes of packaging/conda and the build they run, without
# rattler-build or conda-build (neither is packaged for Debian 12 and the build
# machines reach no other index): this test renders the recipes itself and
# runs their build script.
# - Both recipes parse as their tools parse them (recipe.yaml as plain YAML,
#   its `if:` selectors evaluated; meta.yaml after selectors and Jinja), in
#   both source modes (CONDACUDA_RELEASE unset: this checkout; set: the
#   release tarball, url + sha256), and agree on version, requirements,
#   tests, license (SPDX BSD-3-Clause, license_file), about links and
#   extra.recipe-maintainers.
# - Their build script, packaging/conda/build.sh, as its text says: cmake
#   -G Ninja, Release, CONDACUDA_STATIC_RUNTIME=OFF, CONDACUDA_BUILD_TESTS=ON
#   and CMAKE_ARGS last; the build; ctest -L unit unless cross-compiling;
#   cmake --install; then only the lines that put the link scripts and the
#   activation notice into the prefix.
# - The package's prefix. By default (e2e.recipe_build, seconds): this
#   build's `cmake --install` plus those lines of build.sh after its own
#   install, run for real (install_condacuda_package, lib.sh). With
#   CONDACUDA_FULL_RECIPE_BUILD=1 (e2e.recipe_build_full, label `full`,
#   which tests/run.sh runs only with CONDACUDA_FULL=1): build.sh itself, run
#   as the tools run it (source copied as rattler-build copies a path source;
#   PREFIX, SRC_DIR, CPU_COUNT, and the CMAKE_ARGS of conda-forge's compiler
#   activation minus its toolchain paths) into a fresh prefix, a second
#   Release build with the unit tests built and run as the recipes' build
#   runs them (neither recipe turns them off), yaml-cpp linked dynamically.
# - The files of the recipe's package_contents test are there, the license
#   file the recipes name is installed (share/doc/condacuda/LICENSE), and
#   both recipes' test commands pass against that prefix.
source "$(dirname "$0")/lib.sh"
python3 -c 'import yaml, jinja2' 2> /dev/null || skip "python3 yaml/jinja2 are not installed"
recipes=$CONDACUDA_SOURCE_DIR/packaging/conda

note "both recipes parse and agree, in both source modes"
python3 - "$recipes" "$CONDACUDA_SOURCE_DIR" "$scratch" <<'PY'
import json, os, re, sys
import jinja2, yaml
recipes, source, scratch = sys.argv[1:]

def check(cond, what):
    if not cond:
        sys.exit("FAIL: " + what)

cmake_version = re.search(r"project\(condacuda VERSION (\S+)", open(os.path.join(source, "CMakeLists.txt")).read()).group(1)
REPO = "https://github.com/condacuda/condacuda"
RELEASE_URL = REPO + "/archive/refs/tags/v%s.tar.gz" % cmake_version
is_sha256 = lambda s: isinstance(s, str) and re.fullmatch(r"[0-9a-f]{64}", s) is not None

# rattler-build: plain YAML; ${{ }} expressions are strings to YAML. The
# `if:` selectors this recipe uses are evaluated here: the platform and
# env.exists("CONDACUDA_RELEASE"); any other is an error of this test.
r = yaml.safe_load(open(os.path.join(recipes, "recipe.yaml")))
check(r.get("schema_version") == 1, "recipe.yaml: schema_version 1")
ctx = r["context"]
check(ctx["version"] == cmake_version, "recipe.yaml version %s != CMake %s" % (ctx["version"], cmake_version))
check(r["package"] == {"name": "${{ name }}", "version": "${{ version }}"}, "recipe.yaml package")
for key in r:
    check(key in {"schema_version", "context", "package", "source", "build", "requirements", "tests", "about", "extra"},
          "recipe.yaml: unknown key " + key)

def selector(expr, release):
    known = {"linux": True, "unix": True, "osx": False, "win": False,
             'env.exists("CONDACUDA_RELEASE")': release}
    check(expr in known, "recipe.yaml: a selector this test does not evaluate: " + expr)
    return known[expr]

def flatten(node, release):
    if isinstance(node, list):
        out = []
        for item in node:
            if isinstance(item, dict) and "if" in item:
                chosen = item.get("then" if selector(item["if"], release) else "else", [])
                chosen = flatten(chosen, release)
                out.extend(chosen if isinstance(chosen, list) else [chosen])
            else:
                out.append(flatten(item, release))
        return out
    if isinstance(node, dict):
        return {k: flatten(v, release) for k, v in node.items()}
    return node

def expand(value):
    return re.sub(r"\$\{\{ (\w+) \}\}", lambda m: str(ctx[m.group(1)]), value)

for release in (False, True):
    src = flatten(r["source"], release)
    src = src if isinstance(src, list) else [src]
    check(len(src) == 1, "recipe.yaml (release=%s): one source, got %s" % (release, src))
    s = src[0]
    if release:
        check(set(s) == {"url", "sha256"}, "recipe.yaml release source: url + sha256, got %s" % s)
        check(expand(s["url"]) == RELEASE_URL, "recipe.yaml release url %s" % expand(s["url"]))
        check(is_sha256(expand(s["sha256"])), "recipe.yaml release sha256: 64 hex digits")
    else:
        check(os.path.realpath(os.path.join(recipes, s["path"])) == os.path.realpath(source), "recipe.yaml source path")
        check(s.get("use_gitignore") is True, "recipe.yaml: use_gitignore")
check(os.path.isfile(os.path.join(recipes, r["build"]["script"])), "recipe.yaml build script")
# The build runs build.sh as it is: no environment of the recipe's own (that
# could set CMAKE_ARGS, e.g. turn the unit tests off).
check(r["build"]["script"] == "build.sh" and not ({"env", "script_env"} & set(r["build"])), "recipe.yaml: build.script is build.sh, no env")
scripts = [t["script"] for t in r["tests"] if "script" in t]
contents = [t["package_contents"] for t in r["tests"] if "package_contents" in t]
check(len(scripts) == 1 and len(contents) == 1, "recipe.yaml: one script test and one package_contents test")

# conda-build: selectors (`# [linux]`) first, then Jinja with its functions
# and `environ` (conda-build's os.environ).
def selected(line):
    m = re.search(r"#\s*\[(.*)\]\s*$", line)
    if not m:
        return True
    return eval(m.group(1), {}, {"linux": True, "osx": False, "win": False, "unix": True})
text = "\n".join(l for l in open(os.path.join(recipes, "meta.yaml")).read().splitlines() if selected(l))
env = jinja2.Environment(undefined=jinja2.StrictUndefined)
def render(environ):
    rendered = env.from_string(text).render(compiler=lambda lang: lang + "_compiler",
                                            stdlib=lambda lang: lang + "_stdlib", environ=environ)
    return yaml.safe_load(rendered)
m = render({})
mr = render({"CONDACUDA_RELEASE": "1"})
check(set(m["source"]) == {"git_url"}, "meta.yaml local source: git_url, got %s" % m["source"])
check(os.path.realpath(os.path.join(recipes, m["source"]["git_url"])) == os.path.realpath(source), "meta.yaml: local source git_url")
check(set(mr["source"]) == {"url", "sha256"}, "meta.yaml release source: url + sha256, got %s" % mr["source"])
check(mr["source"]["url"] == RELEASE_URL, "meta.yaml release url %s" % mr["source"]["url"])
check(is_sha256(mr["source"]["sha256"]), "meta.yaml release sha256: 64 hex digits")
check(mr["source"]["sha256"] == ctx["sha256"], "the recipes' release sha256 differ")
check({k: v for k, v in mr.items() if k != "source"} == {k: v for k, v in m.items() if k != "source"},
      "meta.yaml: CONDACUDA_RELEASE changes more than the source")
check(m["package"] == {"name": "condacuda", "version": cmake_version}, "meta.yaml package %s" % m["package"])
check("skip" not in m["build"], "meta.yaml: skipped on linux")
check(not ({"script", "script_env"} & set(m["build"])), "meta.yaml: build.sh is the build script, no script_env")
check(os.path.isfile(os.path.join(recipes, "build.sh")), "meta.yaml: build.sh beside it")

# The same requirements in both, modulo each tool's way of naming compilers.
norm = lambda reqs: sorted(re.sub(r"\$\{\{ (compiler|stdlib)\('(\w+)'\) \}\}", r"\2_\1", q) for q in reqs)
for section in ("build", "host"):
    check(norm(r["requirements"][section]) == sorted(m["requirements"][section]),
          "requirements.%s differ: %s vs %s" % (section, norm(r["requirements"][section]), sorted(m["requirements"][section])))
for dep in ("yaml-cpp", "cli11", "libboost-devel", "doctest"):
    check(any(q.split()[0] == dep for q in m["requirements"]["host"]), "host lacks " + dep)

# License and about: what a conda-forge reviewer reads.
ra, ma = r["about"], m["about"]
for name, about in (("recipe.yaml", ra), ("meta.yaml", ma)):
    check(about.get("license") == "BSD-3-Clause", name + ": license BSD-3-Clause (SPDX), got %s" % about.get("license"))
    check(about.get("license_file") == "LICENSE", name + ": license_file LICENSE")
    check(about.get("summary") == ra["summary"], name + ": summary")
# Both tools look a license_file up in the source folder (then the recipe's).
lic = os.path.join(source, ra["license_file"])
check(os.path.isfile(lic) and open(lic).readline().strip() == "BSD 3-Clause License", "LICENSE: the BSD-3-Clause text at the source root")
check(ra.get("homepage") == REPO and ra.get("repository") == REPO, "recipe.yaml: about.homepage/repository %s" % REPO)
check(ra.get("documentation", "").startswith(REPO + "/") and "README" in ra["documentation"], "recipe.yaml: about.documentation (the README)")
check((ma.get("home"), ma.get("dev_url"), ma.get("doc_url")) == (ra["homepage"], ra["repository"], ra["documentation"]),
      "meta.yaml: about.home/dev_url/doc_url differ from recipe.yaml's homepage/repository/documentation")
for name, recipe in (("recipe.yaml", r), ("meta.yaml", m)):
    maint = (recipe.get("extra") or {}).get("recipe-maintainers")
    check(isinstance(maint, list) and maint and all(isinstance(h, str) and re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9/-]*", h) for h in maint),
          name + ": extra.recipe-maintainers, a list of GitHub handles")
check(r["extra"] == m["extra"], "extra differs between the recipes")

# The same test commands, the file checks of meta.yaml standing for package_contents.
meta_cmds = m["test"]["commands"]
for c in scripts[0]:
    check(c in meta_cmds, "meta.yaml lacks the test command: " + c)
files = ["bin/" + b for b in contents[0]["bin"]] + contents[0]["files"]
license_installed = "share/doc/condacuda/" + ra["license_file"]
check(license_installed in files, "package_contents lacks " + license_installed)
check('test -f "$PREFIX/%s"' % license_installed in meta_cmds, "meta.yaml's tests lack the check of " + license_installed)
json.dump({"files": files, "recipe_tests": scripts[0], "meta_tests": meta_cmds,
           "license_file": ra["license_file"], "license_installed": license_installed},
          open(os.path.join(scratch, "recipes.json"), "w"))
print("# recipe.yaml and meta.yaml: version %s, %s, %d host requirements, %d test commands, %d packaged files checked; release sha256 %s"
      % (cmake_version, ra["license"], len(m["requirements"]["host"]), len(meta_cmds), len(files),
         "a placeholder (all zeros)" if set(ctx["sha256"]) == {"0"} else ctx["sha256"]))
PY

note "build.sh's commands, from its text (e2e.recipe_build_full runs them)"
python3 - "$recipes/build.sh" <<'PY'
import shlex, sys

def check(cond, what):
    if not cond:
        sys.exit("FAIL: build.sh: " + what)

# Its commands, one a line: comment lines out, continuation lines joined,
# blanks collapsed.
lines, cur = [], ""
for raw in open(sys.argv[1]).read().splitlines():
    if not cur and raw.lstrip().startswith("#"):
        continue
    if raw.endswith("\\"):
        cur += raw[:-1] + " "
        continue
    cur = " ".join((cur + raw).split())
    if cur:
        lines.append(cur)
    cur = ""

def one(prefix, what):
    found = [i for i, l in enumerate(lines) if l.startswith(prefix)]
    check(len(found) == 1, "%s: %d lines start with %r, one expected" % (what, len(found), prefix))
    return found[0]

s = one("set ", "its shell options")
check(shlex.split(lines[s])[1:] == ["-euxo", "pipefail"], "set -euxo pipefail (a failed step fails the build), got %s" % lines[s])
configure = one("cmake -S ", "the configure command")
words = shlex.split(lines[configure])
check(words[:7] == ["cmake", "-S", "${SRC_DIR:-.}", "-B", "build-conda", "-G", "Ninja"],
      "cmake -S ${SRC_DIR:-.} -B build-conda -G Ninja, got %s" % words[:7])
for d in ("-DCMAKE_BUILD_TYPE=Release", "-DCMAKE_INSTALL_PREFIX=$PREFIX", "-DCMAKE_INSTALL_LIBDIR=lib",
          "-DCONDACUDA_STATIC_RUNTIME=OFF", "-DCONDACUDA_BUILD_TESTS=ON"):
    check(d in words, "the configure command lacks " + d)
# Unquoted, so that a list splits into arguments; last, so that a packager's settings win.
check(lines[configure].split()[-1] == "${CMAKE_ARGS:-}", "${CMAKE_ARGS:-} last and unquoted, got %s" % lines[configure].split()[-1])
build = one("cmake --build ", "the build command")
check(shlex.split(lines[build])[:3] == ["cmake", "--build", "build-conda"], "cmake --build build-conda, got %s" % lines[build])
unit = one("ctest ", "the unit tests")
check(shlex.split(lines[unit])[:5] == ["ctest", "--test-dir", "build-conda", "-L", "unit"],
      "ctest --test-dir build-conda -L unit, got %s" % lines[unit])
check(lines[unit - 1].startswith("if ") and '"${CONDA_BUILD_CROSS_COMPILATION:-0}" != 1' in lines[unit - 1]
      and lines[unit + 1] == "fi", "the unit tests run unless cross-compiling, got %s" % lines[unit - 1])
install = one("cmake --install ", "the install command")
check(lines[install] == "cmake --install build-conda", "cmake --install build-conda, got %s" % lines[install])
check(configure < build < unit < install, "the order: configure, build, unit tests, install")
# What install_condacuda_package runs after this build's own install.
after = lines[install + 1:]
check(after and not [l for l in after if l.split()[0] in ("cmake", "ctest", "ninja", "make")],
      "after cmake --install: no build step, got %s" % after)
print("# build.sh: cmake -G Ninja, Release, static runtime off, tests on, ${CMAKE_ARGS:-} last; "
      "ctest -L unit unless cross-compiling; cmake --install, then %d commands" % len(after))
PY

prefix=$scratch/prefix
if [ "${CONDACUDA_FULL_RECIPE_BUILD:-}" = 1 ]; then
  note "the build script, run as the recipe tools run it (the unit tests included)"
  work=$scratch/work
  mkdir -p "$work" "$prefix"
  # rattler-build copies a path source minus what .gitignore ignores.
  if git -C "$CONDACUDA_SOURCE_DIR" rev-parse --git-dir > /dev/null 2>&1; then
    (cd "$CONDACUDA_SOURCE_DIR" && { git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$work" 2> /dev/null || true; })
  else
    (cd "$CONDACUDA_SOURCE_DIR" && tar --exclude='./build*' -cf - .) | tar -xf - -C "$work"
  fi
  [ -f "$work/CMakeLists.txt" ] || fail "source copy"
  # CMAKE_ARGS as conda-forge's compiler activation sets it, minus the toolchain
  # paths (-DCMAKE_AR=..., CMAKE_FIND_ROOT_PATH=$PREFIX;...): here the
  # compilers and libraries are the system's.
  start=$(date +%s)
  (cd "$work" && env PREFIX="$prefix" SRC_DIR="$work" CPU_COUNT=2 RECIPE_DIR="$recipes" \
    CMAKE_ARGS="-DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=$prefix -DCMAKE_INSTALL_LIBDIR=lib" \
    bash "$recipes/build.sh" > "$scratch/build.log" 2>&1) ||
    { tail -40 "$scratch/build.log"; fail "build.sh"; }
  note "build.sh: $(( $(date +%s) - start )) s"
  # build.sh runs under `set -x`: its trace shows the unit tests ran, and passed.
  grep -q '^+ ctest --test-dir build-conda -L unit' "$scratch/build.log" || fail "build.sh did not run the unit tests"
  unit_summary=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests failed out of [0-9]+' "$scratch/build.log" || true)
  [ -n "$unit_summary" ] || fail "no ctest summary in build.sh's log"
  grep -q '^100% tests passed, 0 tests failed' <<< "$unit_summary" || fail "unit tests in build.sh: $unit_summary"
  note "build.sh's unit tests: $unit_summary"
  grep -q "libyaml-cpp" <<< "$(ldd "$prefix/bin/condacuda")" || fail "the conda build should link yaml-cpp dynamically"
  source_dir=$work
else
  note "the package's prefix: this build's cmake --install, then build.sh's lines after its own (build.sh itself: CONDACUDA_FULL_RECIPE_BUILD=1)"
  install_condacuda_package "$prefix"
  source_dir=$CONDACUDA_SOURCE_DIR
fi

note "package contents"
python3 -c 'import json, sys; print("\n".join(json.load(open(sys.argv[1]))["files"]))' "$scratch/recipes.json" |
  while read -r f; do [ -e "$prefix/$f" ] || fail "not in the package: $f"; done
[ -z "$(find "$prefix" -path "$prefix/build*" -prune -o -name '*.a' -print)" ] || fail "static libraries in the package"
license_file=$(json "$scratch/recipes.json" 'j["license_file"]')
license_installed=$(json "$scratch/recipes.json" 'j["license_installed"]')
cmp -s "$source_dir/$license_file" "$prefix/$license_installed" ||
  fail "the prefix lacks the recipes' license_file ($license_file) as $license_installed"
note "license: $license_file of the source is $license_installed in the prefix"

note "both recipes' test commands, against the prefix"
for which in recipe_tests meta_tests; do
  mkdir -p "$scratch/$which"
  python3 -c 'import json, sys; print("\n".join(json.load(open(sys.argv[1]))[sys.argv[2]]))' "$scratch/recipes.json" "$which" \
    > "$scratch/$which.sh"
  (cd "$scratch/$which" && env PREFIX="$prefix" PATH="$prefix/bin:$PATH" bash -eo pipefail "$scratch/$which.sh") ||
    fail "$which failed"
  note "$which: $(wc -l < "$scratch/$which.sh") commands passed"
done
note "recipe build: ok"
