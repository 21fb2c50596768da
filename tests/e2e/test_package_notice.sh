#!/usr/bin/env bash
# When no link script sees the CUDA libraries (issue 14, case 5), with real
# python and real shells: `conda create -n x python condacuda`, then `pip
# install torch` (or one transaction that links condacuda first, or pixi,
# which runs no link scripts). The package's post-link finds nothing to
# repair and says nothing; the package's own activation notice
# (hooks/activate.d) then names `condacuda repair -p ENV` at activation in
# bash, zsh, dash and fish, CONDACUDA_QUIET=1 hides it, and after the repair
# no activation prints anything and the activated import works.
source "$(dirname "$0")/lib.sh"
export XDG_CACHE_HOME=$scratch/cache
unset CONDACUDA_QUIET

demo_env "$scratch/demo"

note "conda create -n x python condacuda: the env without torch and its CUDA wheels"
mkdir "$scratch/wheels"
mv "$sp"/nvidia "$sp"/nvidia_* "$sp"/demotorch* "$scratch/wheels/"
install_condacuda_package "$env"
(cd "$env/bin" && PREFIX=$env CONDA_PREFIX=$env LD_LIBRARY_PATH=$system bash "$env/bin/.condacuda-post-link.sh")
[ ! -e "$env/.messages.txt" ] || fail "post-link on an env without CUDA libraries said: $(cat "$env/.messages.txt")"
[ ! -e "$env/etc/condacuda" ] || fail "post-link wrote a repair with nothing to repair"

shell_list=$(activation_shells)
mapfile -t shells <<< "$shell_list"
for sh in "${shells[@]}"; do expect_eq "$(activation_stderr "$sh" "$env")" "" "$sh: no CUDA libraries, no notice"; done

note "pip install torch: CUDA libraries that no link script saw"
mv "$scratch/wheels"/* "$sp/"
for sh in "${shells[@]}"; do
  expect_eq "$(activation_stderr "$sh" "$env")" \
    "condacuda: this env has CUDA libraries (${sp#"$env"/}/nvidia) that condacuda has not repaired; to repair: condacuda repair -p \"$env\" (CONDACUDA_QUIET=1 hides this)" \
    "$sh: the notice"
  expect_eq "$(CONDACUDA_QUIET=1 activation_stderr "$sh" "$env")" "" "$sh: CONDACUDA_QUIET=1 hides it"
done
out=$(LD_LIBRARY_PATH=$system "$env/bin/python3" -c "$import" 2>&1 || true)
case "$out" in *"undefined symbol: __nvJitLinkAddData_12_1"*) ;; *) fail "the unrepaired env should fail: $out" ;; esac

note "the command it names: quiet activations, the activated import works"
"$CONDACUDA" repair -p "$env" > /dev/null
for sh in "${shells[@]}"; do expect_eq "$(activation_stderr "$sh" "$env")" "" "$sh: repaired, no line"; done
out=$(bash -c 'set -eu; export LD_LIBRARY_PATH=$2 CONDA_PREFIX=$1
  for f in "$CONDA_PREFIX"/etc/conda/activate.d/*.sh; do . "$f"; done
  "$CONDA_PREFIX/bin/python3" -c "$3"' _ "$env" "$system" "$import")
expect_eq "$out" "sparse 12100" "activated import"

note "conda's CUDA libraries in lib/ count too"
conda_env=$scratch/conda-env
mkdir -p "$conda_env/conda-meta" "$conda_env/bin" "$conda_env/lib"
install_condacuda_package "$conda_env"
printf 'int f(void) { return 0; }\n' > "$scratch/f.c"
gcc -shared -fPIC -Wl,-soname,libcublas.so.12 -o "$conda_env/lib/libcublas.so.12" "$scratch/f.c"
for sh in "${shells[@]}"; do
  expect_eq "$(activation_stderr "$sh" "$conda_env" | sed 's/(lib[^)]*)/(lib…)/')" \
    "condacuda: this env has CUDA libraries (lib…) that condacuda has not repaired; to repair: condacuda repair -p \"$conda_env\" (CONDACUDA_QUIET=1 hides this)" \
    "$sh: the notice for lib/"
done
