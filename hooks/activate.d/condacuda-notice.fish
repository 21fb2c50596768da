# Activation notice of the condacuda conda package (a file of the package,
# installed as $PREFIX/etc/conda/activate.d/condacuda-notice.fish by
# packaging/conda/build.sh; condacuda-notice.sh says why): an env with CUDA
# libraries and no condacuda repair gets one line on stderr naming the command
# that repairs it. CONDACUDA_QUIET=1 hides it. Builtins only.
if test -z "$CONDACUDA_QUIET" -a -n "$CONDA_PREFIX"; and not test -d "$CONDA_PREFIX/etc/condacuda"
    # In `for`, a glob that matches nothing expands to nothing.
    set -l found
    for place in $CONDA_PREFIX/lib/python3.*/site-packages/nvidia $CONDA_PREFIX/lib/libcudart.so.* \
            $CONDA_PREFIX/lib/libcublas.so.* $CONDA_PREFIX/lib/libnvJitLink.so.*
        set found (string replace -- "$CONDA_PREFIX/" '' $place)
        break
    end
    if test -n "$found"
        printf 'condacuda: this env has CUDA libraries (%s) that condacuda has not repaired; to repair: condacuda repair -p "%s" (CONDACUDA_QUIET=1 hides this)\n' \
            $found "$CONDA_PREFIX" >&2
    end
end
