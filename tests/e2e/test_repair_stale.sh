#!/usr/bin/env bash
# An env that changes after `repair` (issue 14, cases 1 and 3), with real
# python and a real shell activating the env as conda does:
#  - a CUDA wheel and a consumer of it installed after the repair: the hook's
#    folders are stale, and the activated load of the new consumer fails;
#    activation in bash, zsh, dash and fish says so on stderr in one line (the
#    folder that changed, `condacuda repair -p ENV`), which CONDACUDA_QUIET=1
#    hides and a fresh or updated repair does not print;
#    doctor names the stale repair (`stale-repair`, the folder it lacks);
#    `condacuda run` uses today's plan, so it works as on an env never
#    repaired; `repair` updates the hooks and the finding goes;
#  - the cuSPARSE wheel uninstalled as pip does (the files of its RECORD):
#    the symlink repair put in its folder points at nothing and keeps the
#    folder alive; doctor names it (`dangling-repair-link`); `repair` removes
#    it, and so does `undo`.
source "$(dirname "$0")/lib.sh"
demo_env "$scratch/demo"
export LD_LIBRARY_PATH=$system

"$CONDACUDA" repair -p "$env" > /dev/null
tree_state "$env" > "$scratch/repaired"

shell_list=$(activation_shells)
mapfile -t shells <<< "$shell_list"
expect_quiet_activation() { # $1: what the situation is
  local sh
  for sh in "${shells[@]}"; do expect_eq "$(activation_stderr "$sh" "$env")" "" "$sh activation, $1"; done
}
expect_stale_line() { # $1: the folder named
  local sh out
  for sh in "${shells[@]}"; do
    out=$(activation_stderr "$sh" "$env")
    expect_eq "$(printf '%s\n' "$out" | wc -l)" 1 "$sh: one line"
    case "$out" in
      "condacuda: $1 changed after the repair of this env's CUDA libraries; to update it: condacuda repair -p \"\$CONDA_PREFIX\" (CONDACUDA_QUIET=1 hides this)") ;;
      *) fail "$sh: stale line: $out" ;;
    esac
    expect_eq "$(CONDACUDA_QUIET=1 activation_stderr "$sh" "$env")" "" "$sh: CONDACUDA_QUIET=1 hides the line"
  done
}
expect_quiet_activation "fresh repair"
# The env was made 20 s ago and repaired 10 s ago (tcsh compares mtimes in
# whole seconds: a change within the second of the repair would go unseen).
backdate_repair() {
  touch -d "@$(($(date +%s) - 20))" "$sp/nvidia"
  touch -d "@$(($(date +%s) - 10))" "$env/etc/condacuda"
}
backdate_repair
expect_quiet_activation "repair ten seconds old"

note "the repair's record removed (rm -rf etc/condacuda): every shell says so"
# dash's `[ A -nt B ]` is false when B is missing, so its fast path used to
# return before the record was checked (issue 26): each shell, tcsh included.
norecord=$scratch/norecord
cp -a "$env" "$norecord"
rm -rf "$norecord/etc/condacuda"
missing="condacuda: etc/condacuda, the record of this env's CUDA repair, is missing; to update it: condacuda repair -p \"\$CONDA_PREFIX\" (CONDACUDA_QUIET=1 hides this)"
# ksh sources the sh hook too (conda's posix activator); CONDACUDA_QUIET=1
# hides the line in every shell (issue 26 point 10 e: tcsh's was never tried).
record_shells=("${shells[@]}")
if command -v ksh > /dev/null; then record_shells+=(ksh); elif [ -n "${CI:-}" ]; then fail "ksh is not installed"; fi
for sh in "${record_shells[@]}"; do
  expect_eq "$(activation_stderr "$sh" "$norecord")" "$missing" "$sh, no record"
  expect_eq "$(CONDACUDA_QUIET=1 activation_stderr "$sh" "$norecord")" "" "$sh, no record, CONDACUDA_QUIET=1"
done
if command -v tcsh > /dev/null; then
  tcsh_stderr() { # PREFIX: what sourcing the env's csh hook prints on stderr
    { tcsh -c 'setenv CONDA_PREFIX "$1"; source "$CONDA_PREFIX/etc/conda/activate.d/condacuda.csh"' "$1" > /dev/null; } 2>&1
  }
  expect_eq "$(tcsh_stderr "$norecord")" "$missing" "tcsh, no record"
  expect_eq "$(CONDACUDA_QUIET=1 tcsh_stderr "$norecord")" "" "tcsh, no record, CONDACUDA_QUIET=1"
  expect_eq "$(tcsh_stderr "$env")" "" "tcsh, the record there and current"
elif [ -n "${CI:-}" ]; then fail "tcsh is not installed"; fi
rm -rf "$norecord"

note "a CUDA wheel and its consumer installed after the repair"
mkdir -p "$sp/nvidia/cublas/lib"
printf 'int cublasCreate_v2(void) { return 0; }\n' > "$scratch/cublas.c"
gcc -shared -fPIC -Wl,-soname,libcublas.so.12 -o "$sp/nvidia/cublas/lib/libcublas.so.12" "$scratch/cublas.c"
printf 'int cublasCreate_v2(void);\nint extra(void) { return cublasCreate_v2(); }\n' > "$scratch/use.c"
gcc -shared -fPIC -o "$sp/demotorch/_extra.so" "$scratch/use.c" -Wl,--no-as-needed -L"$sp/nvidia/cublas/lib" -l:libcublas.so.12
load_extra="import ctypes; ctypes.CDLL('$sp/demotorch/_extra.so'); print('extra loads')"
activated() { # python code, run in a shell that activates the env as conda does
  bash -c 'set -eu; export CONDA_PREFIX=$1
    for f in $(ls "$CONDA_PREFIX"/etc/conda/activate.d/*.sh | sort); do . "$f"; done
    "$CONDA_PREFIX/bin/python3" -c "$2"' activation "$env" "$1"
}

note "activation says the repair is stale, in every shell"
expect_stale_line "${sp#"$env"/}/nvidia"

note "the failure: the stale hook lacks the new folder"
out=$(CONDACUDA_QUIET=1 activated "$load_extra" 2>&1 || true)
case "$out" in *"libcublas.so.12: cannot open shared object file"*) ;; *) fail "stale hook, activated: $out" ;; esac

note "doctor names the stale repair and what today's plan adds"
expect_status 1 "$CONDACUDA" doctor -p "$env" --json > "$scratch/stale.json" # libcublas.so.12 not found
f='[f for f in j["findings"] if f["code"] == "stale-repair"]'
expect_eq "$(json "$scratch/stale.json" "len($f)")" 1 "one stale-repair finding"
expect_eq "$(json "$scratch/stale.json" "any('+ folder lib/python3' in e and e.endswith('/nvidia/cublas/lib') for e in ${f}[0]['evidence'])")" \
  True "the folder the hook lacks"
expect_eq "$(json "$scratch/stale.json" "${f}[0]['fix'].startswith('run \`condacuda repair -p')")" True "its fix"

note "condacuda run uses today's plan, not the stale hook"
expect_eq "$("$CONDACUDA" run -p "$env" -- "$py" -c "$load_extra")" "extra loads" "run on a stale repair"
case "$("$CONDACUDA" run -p "$env" --print-ld-library-path)" in *"/nvidia/cublas/lib"*) ;; *) fail "run's value lacks cublas" ;; esac

note "repair updates the hooks; the finding goes"
"$CONDACUDA" repair -p "$env" --json > "$scratch/update.json"
expect_eq "$(json "$scratch/update.json" 'j["outcome"]')" repaired "updating repair"
expect_quiet_activation "updated repair"
note "a change that leaves the plan as it is: an unchanged repair silences the line"
backdate_repair
touch "$sp/nvidia"
expect_stale_line "${sp#"$env"/}/nvidia"
"$CONDACUDA" repair -p "$env" --json > "$scratch/unchanged.json"
expect_eq "$(json "$scratch/unchanged.json" 'j["outcome"]')" unchanged "repair of an env whose plan did not change"
expect_quiet_activation "unchanged repair"
expect_eq "$(activated "$load_extra")" "extra loads" "activated after the update"
"$CONDACUDA" doctor -p "$env" --json > "$scratch/current.json"
expect_eq "$(json "$scratch/current.json" '[f["code"] for f in j["findings"] if f["code"] in ("stale-repair", "dangling-repair-link")]')" \
  "[]" "no stale finding once repaired"
rm -rf "$sp/nvidia/cublas" "$sp/demotorch/_extra.so"
"$CONDACUDA" repair -p "$env" > /dev/null
tree_state "$env" > "$scratch/t"
cmp -s "$scratch/repaired" "$scratch/t" || fail "repair after removing the extra wheel is not the first repair"

note "pip uninstall nvidia-cusparse-cu12: repair's link is left pointing at nothing"
link=$sp/nvidia/cusparse/lib/libnvJitLink.so.12
[ -L "$link" ] || fail "no repair link in cusparse/lib"
dist=$(echo "$sp"/nvidia_cusparse_cu12-*.dist-info)
[ -f "$dist/RECORD" ] || fail "no cuSPARSE RECORD"
cp -a "$env" "$scratch/env-before-uninstall"
uninstall_cusparse() { # as pip does: the files its RECORD lists, then the folders left empty
  local root=$1 rel
  while IFS=, read -r rel _; do rm -f "$root/${sp#"$env"/}/$rel"; done < "$dist/RECORD"
  find "$root/${sp#"$env"/}/nvidia/cusparse" "$root/${dist#"$env"/}" -depth -type d -empty -delete 2> /dev/null || true
}
uninstall_cusparse "$env"
[ -L "$link" ] || fail "pip's removal took the link"
expect_eq "$(ls "${link%/*}")" "libnvJitLink.so.12" "all that is left of cuSPARSE's folder"
expect_status 1 "$CONDACUDA" doctor -p "$env" --json > "$scratch/dangling.json"
f='[f for f in j["findings"] if f["code"] == "dangling-repair-link"]'
expect_eq "$(json "$scratch/dangling.json" "[a.split('site-packages/')[1] for a in ${f}[0]['affects']]")" \
  "['nvidia/cusparse/lib/libnvJitLink.so.12']" "the dangling link named"
# Its consumer goes too (else the repair could not verify, on a machine
# without another libcusparse.so.12, and would write nothing).
rm -rf "$sp/demotorch"
"$CONDACUDA" repair -p "$env" > "$scratch/out" || { cat "$scratch/out" >&2; fail "repair after the uninstall"; }
[ ! -L "$link" ] || fail "repair left the dangling link"

note "undo removes a dangling link it created"
rm -rf "$env" && cp -a "$scratch/env-before-uninstall" "$env"
uninstall_cusparse "$env"
"$CONDACUDA" undo -p "$env" > /dev/null
[ ! -L "$link" ] || fail "undo left the dangling link"
[ ! -e "$env/etc/condacuda" ] || fail "undo left its manifest"

note "pip uninstall nvidia-nvjitlink-cu12: repair's link points at nothing, its folder keeps cuSPARSE"
# The link is not alone in its folder here: its target's being gone is what
# makes it dangling (the case above finds it by its folder alone).
rm -rf "$env" && cp -a "$scratch/env-before-uninstall" "$env"
target_dist=$(echo "$sp"/nvidia_nvjitlink_cu12-*.dist-info)
[ -f "$target_dist/RECORD" ] || fail "no nvJitLink RECORD"
while IFS=, read -r rel _; do rm -f "$sp/$rel"; done < "$target_dist/RECORD"
find "$sp/nvidia/nvjitlink" "$target_dist" -depth -type d -empty -delete # as pip leaves it
[ ! -e "$target_dist" ] || fail "nvJitLink's dist-info is still there"
[ -L "$link" ] || fail "pip's removal of nvJitLink took cuSPARSE's link"
[ ! -e "$link" ] || fail "the link still leads to a file after nvJitLink's removal"
expect_eq "$(ls "${link%/*}")" $'libcusparse.so.12\nlibnvJitLink.so.12' "cuSPARSE's folder after nvJitLink's removal"
expect_status 1 "$CONDACUDA" doctor -p "$env" --json > "$scratch/dangling-target.json"
f='[f for f in j["findings"] if f["code"] == "dangling-repair-link"]'
expect_eq "$(json "$scratch/dangling-target.json" "[a.split('site-packages/')[1] for a in sum((x['affects'] for x in ${f}), [])]")" \
  "['nvidia/cusparse/lib/libnvJitLink.so.12']" "the link whose target is gone, in a folder with other files"
"$CONDACUDA" undo -p "$env" > /dev/null
[ ! -L "$link" ] || fail "undo left the link whose target is gone"
