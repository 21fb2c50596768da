#!/usr/bin/env bash
# An env whose nvjitlink wheel is older than its cusparse needs: cuSPARSE of
# CUDA 12.4.1 (12.3.1.170, built against nvJitLink 12.4: it references
# __nvJitLinkAddData_12_4) next to nvidia-nvjitlink-cu12 12.1.105 (entry
# points up to _12_1). `lock` says aligned: false by both the symbol and the
# release rule; doctor reports the same rules' failures as misaligned
# findings; `lock --check` of the env as it was (nvjitlink 12.4.127) reports
# the verdict change. Built like examples/demo-env, with version scripts.
source "$(dirname "$0")/lib.sh"

demo_src=$CONDACUDA_SOURCE_DIR/examples/demo-env/src
pyver=$(python3 -c 'import sys; print("python%d.%d" % sys.version_info[:2])')
env=$scratch/env
sp=$env/lib/$pyver/site-packages
mkdir -p "$env/conda-meta" "$sp/nvidia/nvjitlink/lib" "$sp/nvidia/cusparse/lib" "$scratch/build"
printf '==> 2026-01-01 00:00:00 <==\n' > "$env/conda-meta/history"
export XDG_CACHE_HOME=$scratch/cache

cc() { gcc -O1 -fPIC -shared "$@"; }
# nvJitLink 12.4 (what cuSPARSE was linked against) and 12.1 (what the env gets).
cc -DNVJITLINK_MINOR=4 -Wl,-soname,libnvJitLink.so.12 -Wl,--version-script="$demo_src/nvjitlink-12.4.map" \
  -o "$scratch/build/libnvJitLink.so.12" "$demo_src/nvjitlink.c"
cat > "$scratch/build/nvjitlink-12.1.map" <<'MAP'
libnvJitLink.so.12 {
  global:
    __nvJitLinkCreate_12_0; __nvJitLinkAddData_12_0; __nvJitLinkComplete_12_0; __nvJitLinkDestroy_12_0;
    __nvJitLinkCreate_12_1; __nvJitLinkAddData_12_1; __nvJitLinkComplete_12_1; __nvJitLinkDestroy_12_1;
    nvJitLinkVersion;
  local: *;
};
MAP
cc -DNVJITLINK_MINOR=1 -Wl,-soname,libnvJitLink.so.12 -Wl,--version-script="$scratch/build/nvjitlink-12.1.map" \
  -o "$scratch/build/libnvJitLink-12.1.so" "$demo_src/nvjitlink.c"
sed 's/__nvJitLinkAddData_12_1/__nvJitLinkAddData_12_4/g' "$demo_src/cusparse.c" > "$scratch/build/cusparse.c"
cc -Wl,-soname,libcusparse.so.12 -Wl,--enable-new-dtags,-rpath,'$ORIGIN:$ORIGIN/../../nvjitlink/lib' \
  -o "$sp/nvidia/cusparse/lib/libcusparse.so.12" "$scratch/build/cusparse.c" -L"$scratch/build" -l:libnvJitLink.so.12

# wheel NAME VERSION FILE...: a dist-info with METADATA and a RECORD.
wheel() {
  local name=$1 version=$2 dist
  shift 2
  dist=$sp/${name//-/_}-$version.dist-info
  rm -rf "$sp/${name//-/_}"-*.dist-info
  mkdir -p "$dist"
  printf 'Metadata-Version: 2.1\nName: %s\nVersion: %s\n' "$name" "$version" > "$dist/METADATA"
  (cd "$sp" && for f in "$@"; do echo "$f,,"; done > "$dist/RECORD")
}
install_nvjitlink() { # VERSION FILE
  cp "$2" "$sp/nvidia/nvjitlink/lib/libnvJitLink.so.12"
  wheel nvidia-nvjitlink-cu12 "$1" nvidia/nvjitlink/lib/libnvJitLink.so.12
}
wheel nvidia-cusparse-cu12 12.3.1.170 nvidia/cusparse/lib/libcusparse.so.12

note "as it was: nvjitlink 12.4.127 -> aligned"
install_nvjitlink 12.4.127 "$scratch/build/libnvJitLink.so.12"
"$CONDACUDA" lock -p "$env" -o "$scratch/good.yml"
grep -q '^  aligned: true$' "$scratch/good.yml" || fail "aligned before the downgrade"
expect_status 0 env -u LD_LIBRARY_PATH "$CONDACUDA" doctor -p "$env" > /dev/null

note "nvjitlink downgraded to 12.1.105: aligned: false by the symbol and the release rule"
install_nvjitlink 12.1.105 "$scratch/build/libnvJitLink-12.1.so"
"$CONDACUDA" lock -p "$env" > "$scratch/bad.yml"
grep -q '^  aligned: false$' "$scratch/bad.yml" || fail "aligned: false"
"$CONDACUDA" lock -p "$env" --json > "$scratch/bad.json"
expect_eq "$(json "$scratch/bad.json" 'j["alignment"]["aligned"]')" "False" aligned
expect_eq "$(json "$scratch/bad.json" '[(r["rule"], r["result"]) for r in j["alignment"]["rules"]]')" \
  "[('symbols', 'fail'), ('same-major', 'pass'), ('releases', 'fail'), ('driver', 'skipped')]" rules
expect_eq "$(json "$scratch/bad.json" '[r["min_release"] for r in j["alignment"]["rules"]][0]')" "12.4" "implied release"
ev() { json "$scratch/bad.json" "[e for r in j['alignment']['rules'] if r['rule'] == '$1' for e in r['evidence'] if '$2' in e][0]"; }
expect_eq "$(ev symbols missing)" \
  "libcusparse.so.12 -> libnvJitLink.so.12 (pip nvidia-nvjitlink-cu12 12.1.105): 4 symbols of version libnvJitLink.so.12, 1 missing: __nvJitLinkAddData_12_4; highest __nvJitLinkAddData_12_4 needs 12.4" \
  "symbol evidence"
expect_eq "$(ev releases ' < ')" \
  "nvJitLink 12.1 < 12.4: libnvJitLink.so.12 (pip nvidia-nvjitlink-cu12 12.1.105) for libcusparse.so.12 (pip nvidia-cusparse-cu12 12.3.1.170)" \
  "release evidence"

note "doctor: misaligned findings from the same rules, next to the loader's undefined symbol"
expect_status 1 env -u LD_LIBRARY_PATH "$CONDACUDA" doctor -p "$env" --json > "$scratch/doctor.json"
expect_eq "$(json "$scratch/doctor.json" 'sorted(f["code"] for f in j["findings"])')" \
  "['misaligned', 'misaligned', 'undefined-symbol']" "finding codes"
f='[f for f in j["findings"] if f["code"] == "misaligned"]'
expect_eq "$(json "$scratch/doctor.json" "[x['fix'] for x in $f]")" \
  "[\"pip install --upgrade 'nvidia-nvjitlink-cu12>=12.4'\", \"pip install --upgrade 'nvidia-nvjitlink-cu12>=12.4'\"]" fixes
expect_eq "$(json "$scratch/doctor.json" "[x['min_release'] for x in $f]")" "['12.4', '12.4']" "doctor min release"
expect_status 1 env -u LD_LIBRARY_PATH "$CONDACUDA" doctor -p "$env" --color never > "$scratch/doctor.txt"
layout_ok doctor "$scratch/doctor.txt"
grep -q "alignment rule 'symbols'" "$scratch/doctor.txt" || fail "doctor names the rule"

note "lock --check of the env as it was: the verdict changed"
expect_status 1 "$CONDACUDA" lock --check "$scratch/good.yml" -p "$env" --color never > "$scratch/drift.txt"
cat "$scratch/drift.txt"
grep -Eq '^  version +nvjitlink .*12.4.127 +pip nvidia-nvjitlink-cu12 12.1.105$' <<< "$(joined_rows "$scratch/drift.txt")" || fail "version change"
grep -Eq '^  verdict +rule symbols +pass +fail$' <<< "$(joined_rows "$scratch/drift.txt")" || fail "symbols verdict"
grep -Eq '^  verdict +rule releases +pass +fail$' <<< "$(joined_rows "$scratch/drift.txt")" || fail "releases verdict"
grep -Eq '^  verdict +aligned +true +false$' <<< "$(joined_rows "$scratch/drift.txt")" || fail "aligned verdict"
grep -q 'rule symbols now: libcusparse.so.12 -> libnvJitLink.so.12 .*1 missing: __nvJitLinkAddData_12_4' <<< "$(flat "$scratch/drift.txt")" || fail "why"
note "misaligned env: ok"
