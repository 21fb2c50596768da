#!/usr/bin/env bash
# The conda recipes of packaging/conda, without rattler-build or conda-build
# (neither is packaged for Debian 12 and the build machines reach no other
# index): both recipes parse as their tools parse them (recipe.yaml as plain
# YAML; meta.yaml after selectors and Jinja), name this version and the same
# requirements and tests; then their build script runs as the tools run it
# (source copied as rattler-build copies a path source, PREFIX, SRC_DIR,
# CPU_COUNT, CMAKE_ARGS set) into a fresh prefix, the files the recipe's
# package_contents test names are there, and both recipes' test commands pass
# against that prefix.
source "$(dirname "$0")/lib.sh"
python3 -c 'import yaml, jinja2' 2> /dev/null || skip "python3 yaml/jinja2 are not installed"
recipes=$CONDACUDA_SOURCE_DIR/packaging/conda

note "both recipes parse and agree"
python3 - "$recipes" "$CONDACUDA_SOURCE_DIR" "$scratch" <<'PY'
import json, os, re, sys
import jinja2, yaml
recipes, source, scratch = sys.argv[1:]

def check(cond, what):
    if not cond:
        sys.exit("FAIL: " + what)

cmake_version = re.search(r"project\(condacuda VERSION (\S+)", open(os.path.join(source, "CMakeLists.txt")).read()).group(1)

# rattler-build: plain YAML; ${{ }} expressions are strings to YAML.
r = yaml.safe_load(open(os.path.join(recipes, "recipe.yaml")))
check(r.get("schema_version") == 1, "recipe.yaml: schema_version 1")
check(r["context"]["version"] == cmake_version, "recipe.yaml version %s != CMake %s" % (r["context"]["version"], cmake_version))
check(r["package"] == {"name": "${{ name }}", "version": "${{ version }}"}, "recipe.yaml package")
check(os.path.realpath(os.path.join(recipes, r["source"]["path"])) == os.path.realpath(source), "recipe.yaml source path")
check(os.path.isfile(os.path.join(recipes, r["build"]["script"])), "recipe.yaml build script")
for key in r:
    check(key in {"schema_version", "context", "package", "source", "build", "requirements", "tests", "about"}, "recipe.yaml: unknown key " + key)
scripts = [t["script"] for t in r["tests"] if "script" in t]
contents = [t["package_contents"] for t in r["tests"] if "package_contents" in t]
check(len(scripts) == 1 and len(contents) == 1, "recipe.yaml: one script test and one package_contents test")

# conda-build: selectors (`# [linux]`) first, then Jinja with its functions.
def selected(line):
    m = re.search(r"#\s*\[(.*)\]\s*$", line)
    if not m:
        return True
    return eval(m.group(1), {}, {"linux": True, "osx": False, "win": False, "unix": True})
text = "\n".join(l for l in open(os.path.join(recipes, "meta.yaml")).read().splitlines() if selected(l))
env = jinja2.Environment(undefined=jinja2.StrictUndefined)
rendered = env.from_string(text).render(compiler=lambda lang: lang + "_compiler", stdlib=lambda lang: lang + "_stdlib")
m = yaml.safe_load(rendered)
check(m["package"] == {"name": "condacuda", "version": cmake_version}, "meta.yaml package %s" % m["package"])
check("skip" not in m["build"], "meta.yaml: skipped on linux")
check(os.path.isfile(os.path.join(recipes, "build.sh")), "meta.yaml: build.sh beside it")

# The same requirements in both, modulo each tool's way of naming compilers.
norm = lambda reqs: sorted(re.sub(r"\$\{\{ (compiler|stdlib)\('(\w+)'\) \}\}", r"\2_\1", q) for q in reqs)
for section in ("build", "host"):
    check(norm(r["requirements"][section]) == sorted(m["requirements"][section]),
          "requirements.%s differ: %s vs %s" % (section, norm(r["requirements"][section]), sorted(m["requirements"][section])))
for dep in ("yaml-cpp", "cli11", "libboost-devel", "doctest"):
    check(any(q.split()[0] == dep for q in m["requirements"]["host"]), "host lacks " + dep)
# The same test commands, the file checks of meta.yaml standing for package_contents.
meta_cmds = m["test"]["commands"]
for c in scripts[0]:
    check(c in meta_cmds, "meta.yaml lacks the test command: " + c)
files = ["bin/" + b for b in contents[0]["bin"]] + contents[0]["files"]
json.dump({"files": files, "recipe_tests": scripts[0], "meta_tests": meta_cmds}, open(os.path.join(scratch, "recipes.json"), "w"))
print("# recipe.yaml and meta.yaml: version %s, %d host requirements, %d test commands, %d packaged files checked"
      % (cmake_version, len(m["requirements"]["host"]), len(meta_cmds), len(files)))
PY

note "the build script, run as the recipe tools run it"
work=$scratch/work prefix=$scratch/prefix
mkdir -p "$work" "$prefix"
# rattler-build copies a path source minus what .gitignore ignores.
if git -C "$CONDACUDA_SOURCE_DIR" rev-parse --git-dir > /dev/null 2>&1; then
  (cd "$CONDACUDA_SOURCE_DIR" && { git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$work" 2> /dev/null || true; })
else
  (cd "$CONDACUDA_SOURCE_DIR" && tar --exclude='./build*' -cf - .) | tar -xf - -C "$work"
fi
[ -f "$work/CMakeLists.txt" ] || fail "source copy"
# The full package build compiles condacuda a second time: without the unit
# tests (the suite already ran them on this source) to keep the run short.
start=$(date +%s)
(cd "$work" && env PREFIX="$prefix" SRC_DIR="$work" CPU_COUNT=2 RECIPE_DIR="$recipes" \
  CMAKE_ARGS="-DCONDACUDA_BUILD_TESTS=OFF" bash "$recipes/build.sh" > "$scratch/build.log" 2>&1) ||
  { tail -40 "$scratch/build.log"; fail "build.sh"; }
note "build.sh: $(( $(date +%s) - start )) s"

note "package contents"
python3 -c 'import json, sys; print("\n".join(json.load(open(sys.argv[1]))["files"]))' "$scratch/recipes.json" |
  while read -r f; do [ -e "$prefix/$f" ] || fail "not in the package: $f"; done
[ -z "$(find "$prefix" -path "$prefix/build*" -prune -o -name '*.a' -print)" ] || fail "static libraries in the package"
grep -q "libyaml-cpp" <<< "$(ldd "$prefix/bin/condacuda")" || fail "the conda build should link yaml-cpp dynamically"

note "both recipes' test commands, against the prefix"
for which in recipe_tests meta_tests; do
  mkdir -p "$scratch/$which"
  python3 -c 'import json, sys; print("\n".join(json.load(open(sys.argv[1]))[sys.argv[2]]))' "$scratch/recipes.json" "$which" \
    > "$scratch/$which.sh"
  (cd "$scratch/$which" && env PREFIX="$prefix" PATH="$prefix/bin:$PATH" bash -eo pipefail "$scratch/$which.sh") ||
    fail "$which failed"
  note "$which: $(wc -l < "$scratch/$which.sh") commands passed"
done
note "recipes: ok"
