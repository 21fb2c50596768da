#!/usr/bin/env bash
# condacuda's quick start, on a fresh Debian 12 machine: installs what is
# missing (apt, as root), builds condacuda, builds the demo env (a conda env
# whose torch-like package breaks exactly like the seed report when an older
# system nvJitLink is on LD_LIBRARY_PATH), and runs condacuda's main job on it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${CONDACUDA_BUILD_DIR:-$root/build}
demo=${CONDACUDA_DEMO_DIR:-$build/demo}

step() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }

step "Installing build dependencies (if missing)"
"$root/tests/install-deps.sh" build
step "Building condacuda"
generator=()
command -v ninja > /dev/null && [ ! -f "$build/CMakeCache.txt" ] && generator=(-G Ninja)
cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
cmake --build "$build" -j2 --target condacuda
condacuda=$build/src/condacuda

step "Building the demo env in $demo"
"$root/examples/demo-env/build.sh" "$demo"
env=$demo/env
system_lib=$demo/system-cuda-12.0/lib64

step "The failure: a system CUDA 12.0 on LD_LIBRARY_PATH shadows the env's nvJitLink"
echo "\$ LD_LIBRARY_PATH=$system_lib python -c 'import demotorch'"
LD_LIBRARY_PATH=$system_lib "$env/bin/python3" -c 'import demotorch' 2>&1 | tail -1 || true

step "condacuda info: the env's CUDA inventory"
"$condacuda" info -p "$env"

step "condacuda doctor: the failure predicted, without running anything"
LD_LIBRARY_PATH=$system_lib "$condacuda" doctor -p "$env" || true

step "condacuda repair: plan, verify by simulation, apply (hooks + symlink + manifest)"
LD_LIBRARY_PATH=$system_lib "$condacuda" repair -p "$env"

step "The import, in a shell that activates the env as conda does"
LD_LIBRARY_PATH=$system_lib CONDA_PREFIX=$env bash -c '
  for f in "$CONDA_PREFIX"/etc/conda/activate.d/*.sh; do . "$f"; done
  echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  "$CONDA_PREFIX/bin/python3" -c "import demotorch; print(\"import demotorch: ok, cuSPARSE\", demotorch.sparse_version())"'

step "The same without activation (cron, Jupyter kernels, venvs): condacuda run"
LD_LIBRARY_PATH=$system_lib "$condacuda" run -p "$env" -- "$env/bin/python3" -c 'import demotorch; print("import demotorch: ok")'

step "doctor after repair: fixed when activated; a Jupyter kernel or cron job (not activated) still fails"
LD_LIBRARY_PATH=$system_lib "$condacuda" doctor -p "$env"

step "condacuda repair --pin: the env's libraries win over LD_LIBRARY_PATH without activation too"
LD_LIBRARY_PATH=$system_lib "$condacuda" repair -p "$env" --pin
echo "\$ LD_LIBRARY_PATH=$system_lib python -c 'import demotorch'   # not activated"
LD_LIBRARY_PATH=$system_lib "$env/bin/python3" -c 'import demotorch; print("import demotorch: ok, not activated")'
echo
echo "The demo env stays repaired in $env; \`$condacuda undo -p $env\` takes the repair back."
