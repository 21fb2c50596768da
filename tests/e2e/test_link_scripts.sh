#!/usr/bin/env bash
# The conda link scripts of the condacuda package, run exactly as conda runs
# them (conda/core/link.py run_script), on the demo env with condacuda
# installed into it the way the recipe installs it (cmake --install plus
# packaging/conda/build.sh's link-script lines):
#   post-link: env activated, cwd = $PREFIX/bin, PATH starting with it,
#              PREFIX PKG_NAME PKG_VERSION PKG_BUILDNUM ROOT_PREFIX set;
#   pre-unlink: `bash -x script`, not activated, same variables.
# After post-link the env is repaired and its import works activated;
# .messages.txt says what happened; after pre-unlink the env is byte for byte
# as before. A post-link on an env beyond repair exits 0 and explains.
source "$(dirname "$0")/lib.sh"
demo_env "$scratch/demo"
root=$scratch/root-prefix
mkdir -p "$root"

install_package() { install_condacuda_package "$1"; }

fingerprint() {
  (cd "$1" && find . -printf '%p %y %s %l\n' | sort && find . -type f -print0 | sort -z | xargs -0 sha256sum) > "$2"
}

# conda's link-script environment: its own variables, and the script's folder
# as cwd and first on PATH. LD_LIBRARY_PATH is the user's (a system CUDA).
link_script_env() {
  local prefix=$1
  env -i HOME="$HOME" PATH="$prefix/bin:/usr/local/bin:/usr/bin:/bin" LD_LIBRARY_PATH="$system" \
    XDG_CACHE_HOME="$scratch/cache" PREFIX="$prefix" PKG_NAME=condacuda PKG_VERSION=0.1.0 PKG_BUILDNUM=0 \
    ROOT_PREFIX="$root" "${@:2}"
}

# post-link: conda wraps the call in activation (wrap_subprocess_call): the
# env's activate.d scripts sourced, CONDA_PREFIX set, then the script run.
run_post_link() {
  local prefix=$1
  (cd "$prefix/bin" && link_script_env "$prefix" bash -c '
    export CONDA_PREFIX=$PREFIX CONDA_DEFAULT_ENV=${PREFIX##*/} CONDA_SHLVL=1 PATH=$PREFIX/bin:$PATH
    for f in $(ls "$CONDA_PREFIX"/etc/conda/activate.d/*.sh 2> /dev/null | sort); do . "$f"; done
    PATH=$PREFIX/bin:$PATH
    exec "$PREFIX/bin/.condacuda-post-link.sh"')
}

# pre-unlink: `bash -x script`, no activation.
run_pre_unlink() {
  local prefix=$1
  (cd "$prefix/bin" && link_script_env "$prefix" bash -x "$prefix/bin/.condacuda-pre-unlink.sh") 2> "$scratch/pre-unlink.trace"
}

install_package "$env"
fingerprint "$env" "$scratch/before.txt"
out=$(LD_LIBRARY_PATH=$system "$env/bin/python3" -c "$import" 2>&1 || true)
case "$out" in *"undefined symbol: __nvJitLinkAddData_12_1"*) ;; *) fail "the demo env should fail first: $out" ;; esac

note "post-link, as conda runs it"
start=$(date +%s%N)
expect_status 0 run_post_link "$env"
note "post-link took $(( ($(date +%s%N) - start) / 1000000 )) ms"
[ -f "$env/.messages.txt" ] || fail "no .messages.txt"
cat "$env/.messages.txt"
grep -q "condacuda ($env): repaired CUDA library loading" "$env/.messages.txt" || fail "message does not say it repaired"
grep -q "condacuda undo" "$env/.messages.txt" || fail "message does not say how to take it back"
rm "$env/.messages.txt" # conda prints and deletes it
[ -f "$env/etc/conda/activate.d/condacuda.sh" ] || fail "no activation hook"

note "the import works with the env activated as conda does, and without activation"
out=$(bash -c 'export LD_LIBRARY_PATH=$2 CONDA_PREFIX=$1
  for f in $(ls "$CONDA_PREFIX"/etc/conda/activate.d/*.sh | sort); do . "$f"; done
  "$CONDA_PREFIX/bin/python3" -c "$3"' _ "$env" "$system" "$import")
expect_eq "$out" "sparse 12100" "activated import"
out=$(env -u LD_LIBRARY_PATH "$env/bin/python3" -c "$import")
expect_eq "$out" "sparse 12100" "import without activation (symlink)"

note "post-link again (a reinstall): quiet, nothing changes"
expect_status 0 run_post_link "$env"
[ ! -e "$env/.messages.txt" ] || fail "a post-link with nothing to do wrote: $(cat "$env/.messages.txt")"

note "pre-unlink, as conda runs it: the env is byte for byte as before"
expect_status 0 run_pre_unlink "$env"
grep -q 'condacuda undo -p' "$scratch/pre-unlink.trace" || fail "bash -x trace does not show the undo"
fingerprint "$env" "$scratch/after.txt"
diff "$scratch/before.txt" "$scratch/after.txt" || fail "pre-unlink left differences"

note "an env beyond repair: the env's own nvJitLink is older than cuSPARSE needs"
build_demo_env "$scratch/broken"
broken=$scratch/broken/env
cp "$scratch/broken/system-cuda-12.0/lib64/libnvJitLink.so.12" "$broken"/lib/python3*/site-packages/nvidia/nvjitlink/lib/
install_package "$broken"
fingerprint "$broken" "$scratch/broken-before.txt"
expect_status 0 run_post_link "$broken"
cat "$broken/.messages.txt"
grep -q "could not make the CUDA libraries load, nothing was changed" "$broken/.messages.txt" || fail "no explanation"
grep -q "__nvJitLinkAddData_12_1" "$broken/.messages.txt" || fail "the message does not name the cause"
grep -q "Fix: upgrade nvidia-nvjitlink-cu12 in the env (release >= 12.1)" "$broken/.messages.txt" || fail "the fix is not the upgrade"
rm "$broken/.messages.txt"
fingerprint "$broken" "$scratch/broken-after.txt"
diff "$scratch/broken-before.txt" "$scratch/broken-after.txt" || fail "a failed post-link changed the env"

note "a prefix that is not an env: exit 0 all the same"
notenv=$scratch/not-an-env
mkdir -p "$notenv/bin"
install_package "$notenv"
expect_status 0 run_post_link "$notenv"
grep -q "not a conda env" "$notenv/.messages.txt" || fail "no explanation for a non-env"
expect_status 0 run_pre_unlink "$notenv"
note "link scripts: ok"
