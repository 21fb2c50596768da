#!/usr/bin/env bash
# Build script of the condacuda conda package, shared by recipe.yaml
# (rattler-build) and meta.yaml (conda-build); both run it from the source
# folder with PREFIX, SRC_DIR, CPU_COUNT and CMAKE_ARGS set.
set -euxo pipefail

# Shared libraries from the env (conda-forge links its yaml-cpp and Boost
# dynamically, with run_exports pinning them); the unit tests are built and
# run here. CMAKE_ARGS come last so that a packager's settings win.
# CONDACUDA_PORTABLE=1 builds instead what the wheel and the tarball ship
# (docs/portable.md): condacuda static, its GPU child within glibc 2.28, from
# static archives of the C++ runtime, yaml-cpp and Boost (its -D settings
# come after the shared default, and win).
portable=()
if [[ "${CONDACUDA_PORTABLE:-0}" == 1 ]]; then
  portable=(-DCONDACUDA_STATIC_RUNTIME=ON -DCONDACUDA_PORTABLE=ON)
fi
# CONDACUDA_LINK_ORDER off: the recipe's toolchain links, not an lld the
# build machine happens to have (cmake/link_order.cmake).
# shellcheck disable=SC2086 # CMAKE_ARGS is a list of arguments
cmake -S "${SRC_DIR:-.}" -B build-conda -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_INSTALL_PREFIX="$PREFIX" \
  -DCMAKE_INSTALL_LIBDIR=lib \
  -DCONDACUDA_STATIC_RUNTIME=OFF \
  -DCONDACUDA_BUILD_TESTS=ON \
  -DCONDACUDA_LINK_ORDER=OFF \
  "${portable[@]}" \
  ${CMAKE_ARGS:-}
cmake --build build-conda -j"${CPU_COUNT:-2}"
if [[ "${CONDA_BUILD_CROSS_COMPILATION:-0}" != 1 && -f build-conda/tests/CTestTestfile.cmake ]]; then
  ctest --test-dir build-conda -L unit --output-on-failure -j"${CPU_COUNT:-2}"
fi
cmake --install build-conda

# The link scripts: conda runs $PREFIX/bin/.<package>-<action>.sh. conda-build
# would also copy post-link.sh from the recipe folder; rattler-build needs the
# build script to put them there; doing it here serves both.
install -m 0755 "${SRC_DIR:-.}/hooks/post-link.sh" "$PREFIX/bin/.condacuda-post-link.sh"
install -m 0755 "${SRC_DIR:-.}/hooks/pre-unlink.sh" "$PREFIX/bin/.condacuda-pre-unlink.sh"

# The activation notice (hooks/activate.d): conda sources it at every
# activation; it names `condacuda repair` for an env with CUDA libraries that
# no repair has seen (no link script ran after they came: pip, one-transaction
# installs, pixi). A file of the package, removed with it.
install -d "$PREFIX/etc/conda/activate.d"
for notice in condacuda-notice.sh condacuda-notice.fish; do
  install -m 0644 "${SRC_DIR:-.}/hooks/activate.d/$notice" "$PREFIX/etc/conda/activate.d/$notice"
done
