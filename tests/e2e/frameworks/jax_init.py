"""A stand-in for jax's plugin discovery (jax/_src/xla_bridge.py
discover_pjrt_plugins and backends(), jax-v0.11.0 L433-L498, L786-L880):
each module of the jax_plugins namespace is imported and initialize()d; an
exception is logged and that backend is not registered, so JAX runs on the
CPU. default_backend() says which backend came up and, for the CPU, why."""
import importlib
import pkgutil

_backend = None
_why = ""


def default_backend():
    global _backend, _why
    if _backend is None:
        _backend = "cpu"
        import jax_plugins
        for mod in pkgutil.iter_modules(jax_plugins.__path__, "jax_plugins."):
            try:
                importlib.import_module(mod.name).initialize()
            except BaseException as e:  # the bare except of discover_pjrt_plugins
                _why = "%s: %s" % (type(e).__name__, e)
                continue
            _backend = "gpu"
    return _backend
