#include "probe/libraries.hpp"

#include <chrono>
#include <dlfcn.h>
#include <link.h>

namespace condacuda::probe {

OpenLibrary open_library(const check::LibraryRequest& request) {
  OpenLibrary lib;
  lib.load.component = request.component;
  lib.load.open = request.open;
  auto start = std::chrono::steady_clock::now();
  dlerror();
  lib.handle = dlopen(request.open.c_str(), RTLD_NOW | RTLD_LOCAL);
  auto end = std::chrono::steady_clock::now();
  lib.load.load_ms = std::chrono::duration<double, std::milli>(end - start).count();
  if (!lib.handle) {
    const char* error = dlerror();
    lib.load.error = error ? error : "dlopen failed";
    return lib;
  }
  lib.load.loaded = true;
  link_map* map = nullptr;
  if (dlinfo(lib.handle, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name) lib.load.path = map->l_name;
  return lib;
}

std::vector<std::string> loaded_objects() {
  std::vector<std::string> out;
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        static_cast<std::vector<std::string>*>(data)->push_back(info->dlpi_name ? info->dlpi_name : "");
        return 0;
      },
      &out);
  return out;
}

void* symbol(void* handle, const char* name) { return handle ? dlsym(handle, name) : nullptr; }

} // namespace condacuda::probe
