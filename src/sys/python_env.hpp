#pragma once
// The env's interpreter and this shell's Python variables, read from the
// system for the pure sys.path model (python/sys_path.hpp): where getpath
// would put sys.prefix and the stdlib, which site.py it has, and the
// variables that change sys.path. No interpreter is run.
#include <map>
#include <optional>
#include <string>

#include "python/sys_path.hpp"

namespace condacuda::sys {

// The env's python (bin/python3, else bin/python) as getpath sees it:
// pyvenv.cfg next to it or one folder up makes a venv (its `home` names the
// base interpreter's folder, whose prefix holds the stdlib); otherwise the
// prefix is the nearest folder above the real executable with
// lib/pythonX.Y/os.py (getpath's landmark). The version comes from the
// real executable's name (python3.11), else the env's lib/python3.*
// folder. nullopt: the env has no python, or its version cannot be told.
// `real_executable`: the python's real path when the caller has it (sys::env_python).
std::optional<python::Interpreter> env_interpreter(const std::string& prefix, const std::string& real_executable = "");

// This shell's PYTHONPATH, PYTHONUSERBASE, HOME (else the password
// database's home), PYTHONNOUSERSITE, PYTHONSAFEPATH (3.11 on) and working
// directory: a `python -c` started here.
python::PythonLaunch this_shell_python(const python::Interpreter& interpreter);

// The variables the framework recipes read, as this shell has them
// (frameworks::PythonView::variables): CONDA_PREFIX, CUDA_HOME, CUDA_PATH,
// CUPY_CUDA_LIB_PATH, JAX_SKIP_CUDA_CONSTRAINTS_CHECK; the unset ones left out.
std::map<std::string, std::string> recipe_variables();

} // namespace condacuda::sys
