#pragma once
// doctor --imports A,B,C: each item as the file a process would dlopen.
#include <string>
#include <vector>

#include "doctor/doctor.hpp"
#include "util/result.hpp"

namespace condacuda::app {

// An item is a file (a path with '/': absolute, else relative to the env's
// prefix, else to the current directory) or a Python import name whose
// module is an extension ("demotorch._C" -> site-packages/demotorch/_C.cpython-
// 311-x86_64-linux-gnu.so; a pure-Python package cannot be mapped and is an
// error saying which file to give), or a framework of the recipe book
// ("torch", "jax", "cupy"): its import as its recipe runs. "global:" before
// an item opens it RTLD_GLOBAL. Errors: bad_input naming the item.
Result<std::vector<doctor::DoctorInputs::Import>> resolve_imports(const std::vector<std::string>& items,
                                                                  const std::string& prefix,
                                                                  const std::vector<std::string>& site_packages);

} // namespace condacuda::app
