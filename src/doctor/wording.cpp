#include "doctor/wording.hpp"

namespace condacuda::doctor {

std::string search_step(loader::FoundVia via, const std::string& element) {
  using loader::FoundVia;
  switch (via) {
  case FoundVia::ld_library_path: return "LD_LIBRARY_PATH entry '" + element + "'";
  case FoundVia::rpath: return "the fixed search path entry '" + element + "' of a library on the chain";
  case FoundVia::exe_rpath: return "the program's fixed search path entry '" + element + "'";
  case FoundVia::runpath: return "the library's own search path entry '" + element + "'";
  case FoundVia::ld_so_cache: return "/etc/ld.so.cache";
  case FoundVia::default_dirs: return "the system folder " + element;
  case FoundVia::already_loaded: return "an object already loaded under that name";
  case FoundVia::same_file: return "the same file, already loaded";
  case FoundVia::direct_path: return "its path, as the library that needs it names it";
  case FoundVia::not_found: return "nothing";
  }
  return "";
}

std::string found_through(loader::FoundVia via, const std::string& element) {
  return "found through " + search_step(via, element) +
         (via == loader::FoundVia::ld_library_path ? ", which the loader searches before the library's own search path" : "");
}

std::optional<loader::FoundVia> found_via_named(const std::string& name) {
  using loader::FoundVia;
  for (FoundVia v : {FoundVia::already_loaded, FoundVia::same_file, FoundVia::direct_path, FoundVia::rpath,
                     FoundVia::exe_rpath, FoundVia::ld_library_path, FoundVia::runpath, FoundVia::ld_so_cache,
                     FoundVia::default_dirs, FoundVia::not_found})
    if (name == loader::to_string(v)) return v;
  return std::nullopt;
}

} // namespace condacuda::doctor
