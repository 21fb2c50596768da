"""condacuda, installed from its wheel: the static binary (the wheel's
``scripts``: ``bin/condacuda`` of the environment), its GPU child
(``libexec/condacuda/condacuda-probe``) and its share folder
(``share/condacuda``), with this module to find the binary from Python.

    >>> import condacuda, subprocess
    >>> subprocess.run([condacuda.binary_path(), "doctor", "-p", env])

``python -m condacuda ARGS`` runs the binary with ARGS.
"""
import os
import sys
import sysconfig

__version__ = "@CONDACUDA_VERSION@"
__all__ = ["__version__", "binary_path"]

_NAME = "condacuda"


def _is_program(path):
    return os.path.isfile(path) and os.access(path, os.X_OK)


def _from_record():
    """The binary this distribution installed, from its RECORD."""
    try:
        from importlib.metadata import PackageNotFoundError, files
    except ImportError:  # pragma: no cover (python < 3.8)
        return None
    try:
        record = files(_NAME) or []
    except PackageNotFoundError:
        return None
    for entry in record:
        if entry.name == _NAME and entry.parent.name in ("bin", "Scripts"):
            path = os.path.normpath(str(entry.locate()))
            if _is_program(path):
                return path
    return None


def _candidates():
    found = _from_record()
    if found:
        yield found
    schemes = [None]
    try:
        schemes.append(sysconfig.get_preferred_scheme("user"))
    except AttributeError:  # python < 3.10
        schemes.append(os.name + "_user")
    for scheme in schemes:
        try:
            scripts = sysconfig.get_path("scripts", scheme) if scheme else sysconfig.get_path("scripts")
        except KeyError:
            continue
        if scripts:
            yield os.path.join(scripts, _NAME)
    yield os.path.join(os.path.dirname(sys.executable), _NAME)


def binary_path():
    """The absolute path of the installed condacuda binary: the one this
    distribution's RECORD names, else the scripts folder of the default and
    the user install schemes, else the folder of sys.executable. Raises
    FileNotFoundError when none holds it."""
    for path in _candidates():
        if _is_program(path):
            return os.path.abspath(path)
    raise FileNotFoundError("the condacuda binary is not installed next to this Python package")
