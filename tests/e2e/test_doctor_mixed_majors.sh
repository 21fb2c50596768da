#!/usr/bin/env bash
# CUDA 12 and 13 wheels in one env (issue 14, case 4), with real python: the
# demo env (a CUDA 12 torch stand-in and its cu12 wheels) plus the CUDA 13
# wheels a careless `pip install` brings, nvidia-cusparse 12.6.3.3 and
# nvidia-nvjitlink 13.0.88 (nvidia/cu13/lib, their dist-info RECORDs). The
# env's CUDA major is its consumers': doctor's fix removes the two stray
# packages and names no installed package to install; lock's series is 12.x;
# repair leaves the CUDA 13 folder out of the hook, its verification lines
# agree with themselves and the activated import works; once the strays are
# uninstalled (as pip does: the files of their RECORD), doctor is healthy.
source "$(dirname "$0")/lib.sh"
export XDG_CACHE_HOME=$scratch/cache

demo_env "$scratch/demo"
export LD_LIBRARY_PATH=$system

note "the CUDA 13 wheels: cuSPARSE (soname libcusparse.so.12 in CUDA 13 too) and nvJitLink 13"
cu13=$sp/nvidia/cu13/lib
mkdir -p "$cu13"
printf 'int nvJitLinkVersion(unsigned* major, unsigned* minor) { *major = 13; *minor = 0; return 0; }\n' > "$scratch/jit13.c"
gcc -shared -fPIC -Wl,-soname,libnvJitLink.so.13 -o "$cu13/libnvJitLink.so.13" "$scratch/jit13.c"
printf 'int nvJitLinkVersion(unsigned*, unsigned*);\nint cusparseCreate(void** h) { unsigned a, b; *h = (void*)1; return nvJitLinkVersion(&a, &b); }\n' > "$scratch/sparse13.c"
gcc -shared -fPIC -Wl,-soname,libcusparse.so.12 -Wl,--no-as-needed -Wl,--enable-new-dtags,-rpath,'$ORIGIN' \
  -o "$cu13/libcusparse.so.12" "$scratch/sparse13.c" -L"$cu13" -l:libnvJitLink.so.13
wheel() { # NAME VERSION FILE...: a dist-info as pip writes it (METADATA, RECORD)
  local dist=$sp/${1//-/_}-$2.dist-info
  mkdir -p "$dist"
  printf 'Metadata-Version: 2.1\nName: %s\nVersion: %s\n' "$1" "$2" > "$dist/METADATA"
  shift 2
  { for f in "$@"; do echo "$f,,"; done; echo "${dist#"$sp"/}/METADATA,,"; echo "${dist#"$sp"/}/RECORD,,"; } > "$dist/RECORD"
}
wheel nvidia-cusparse 12.6.3.3 nvidia/cu13/lib/libcusparse.so.12
wheel nvidia-nvjitlink 13.0.88 nvidia/cu13/lib/libnvJitLink.so.13

note "doctor: the fix removes the strays, and installs nothing already installed"
expect_status 1 "$CONDACUDA" doctor -p "$env" --json > "$scratch/doctor.json"
mixed='[f for f in j["findings"] if f["code"] == "misaligned" and "another CUDA major" in f["title"]]'
expect_eq "$(json "$scratch/doctor.json" "len($mixed)")" 1 "one finding for both strays"
expect_eq "$(json "$scratch/doctor.json" "${mixed}[0]['fix']")" \
  "\`pip uninstall -y nvidia-cusparse nvidia-nvjitlink\` (the env's CUDA 12 copies stay: nvidia-cusparse-cu12 12.1.0.106, nvidia-nvjitlink-cu12 12.4.127)" \
  "the fix"
expect_eq "$(json "$scratch/doctor.json" "'the env\\'s consumers need CUDA 12: ' in ${mixed}[0]['title']")" True "why 12"
expect_eq "$(json "$scratch/doctor.json" '[f["fix"] for f in j["findings"] if "in place of" in f["fix"] or "pip install" in f["fix"]]')" \
  "[]" "no fix installs a package the env has"

note "lock: the series is the consumers' major"
expect_status 0 "$CONDACUDA" lock -p "$env" --driver none -o "$scratch/cuda.lock.yml"
series=$(python3 -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["alignment"]["series"])' "$scratch/cuda.lock.yml")
expect_eq "$series" 12.4 "the series, the newest of the CUDA 12 wheels (nvidia-nvjitlink-cu12 12.4.127), not 13.0"

note "repair: no CUDA 13 folder in the hook, verification lines that agree with themselves"
"$CONDACUDA" repair -p "$env" --color never > "$scratch/repair.txt" || { cat "$scratch/repair.txt" >&2; fail "repair"; }
layout_ok repair "$scratch/repair.txt"
grep -q '^  ok  this shell: 6/6 files load ' "$scratch/repair.txt" || { cat "$scratch/repair.txt" >&2; fail "this shell's line"; }
if grep -E 'FAILS|fails ' "$scratch/repair.txt"; then fail "a failing verification line"; fi
if ! grep -q '^note: left for you (no repair changes it): misaligned: ' "$scratch/repair.txt" ||
  ! grep -qx '       pip uninstall -y nvidia-cusparse nvidia-nvjitlink' "$scratch/repair.txt"; then
  cat "$scratch/repair.txt" >&2
  fail "the note naming the strays, its command alone on a line"
fi
if grep -q 'nvidia/cu13/lib' "$env/etc/conda/activate.d/condacuda.sh"; then fail "the hook puts the CUDA 13 folder first"; fi
activated_import=$(bash -c 'set -eu; export CONDA_PREFIX=$1; . "$CONDA_PREFIX/etc/conda/activate.d/condacuda.sh"
  "$CONDA_PREFIX/bin/python3" -c "import demotorch; print(demotorch.sparse_version())"' activation "$env")
expect_eq "$activated_import" "12100" "the activated import, system CUDA 12.0 on LD_LIBRARY_PATH"

note "pip uninstall nvidia-cusparse nvidia-nvjitlink: healthy, the same major everywhere"
for dist in "$sp"/nvidia_cusparse-12.6.3.3.dist-info "$sp"/nvidia_nvjitlink-13.0.88.dist-info; do
  while IFS=, read -r rel _; do rm -f "${sp:?}/$rel"; done < "$dist/RECORD"
  rmdir "$dist"
done
rmdir "$cu13" "$sp/nvidia/cu13"
"$CONDACUDA" doctor -p "$env" --json > "$scratch/after.json" || { cat "$scratch/after.json" >&2; fail "doctor after the uninstall"; }
"$CONDACUDA" lock -p "$env" --driver none -o "$scratch/after.lock.yml"
expect_eq "$(python3 -c 'import sys, yaml; a = yaml.safe_load(open(sys.argv[1]))["alignment"]; print(a["series"], a["aligned"])' "$scratch/after.lock.yml")" \
  "12.4 True" "lock after the uninstall"
