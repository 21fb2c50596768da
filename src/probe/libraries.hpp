#pragma once
// The probe's dlopen phase: each library of the request opened with
// RTLD_NOW | RTLD_LOCAL (an nvJitLink mismatch then fails at dlopen with a
// readable dlerror: docs/gpu-check.md, "cuSPARSE"), the file the loader really
// mapped (dlinfo RTLD_DI_LINKMAP), and every object in the process
// afterwards (dl_iterate_phdr) for the comparison with the loader model.
#include <string>
#include <vector>

#include "check/model.hpp"

namespace condacuda::probe {

// An open library; the handle is closed at exit only (CUDA libraries do not
// like dlclose while their state lives on).
struct OpenLibrary {
  check::LibraryLoad load;
  void* handle = nullptr;
};

OpenLibrary open_library(const check::LibraryRequest& request);

// dlpi_name of every object in the process, in load order.
std::vector<std::string> loaded_objects();

// dlsym that also returns nullptr for a null handle.
void* symbol(void* handle, const char* name);

// Resolves a function pointer member by name; false when absent.
template <class Fn>
bool resolve(void* handle, const char* name, Fn& out) {
  out = reinterpret_cast<Fn>(symbol(handle, name));
  return out != nullptr;
}

} // namespace condacuda::probe
