#include "probe/jit.hpp"

#include <algorithm>
#include <chrono>

#include "check/cuda_names.hpp"
#include "probe/libraries.hpp"

namespace condacuda::probe {

namespace {
template <class Fn>
bool resolve_versioned(void* lib, const std::string& base, const std::string& naming, Fn& out) {
  std::string name = naming == "plain" ? base : "__" + base + naming;
  return resolve(lib, name.c_str(), out);
}
} // namespace

JitResolution resolve_jit(void* lib) {
  JitResolution r;
  for (const char* naming : {"plain", "_13_0", "_12_0"}) {
    if (resolve_versioned(lib, "nvJitLinkCreate", naming, r.api.create)) {
      r.naming = naming;
      break;
    }
  }
  if (r.naming.empty()) {
    r.missing.push_back("nvJitLinkCreate");
    return r;
  }
  auto need = [&](const char* base, auto& out) {
    if (!resolve_versioned(lib, base, r.naming, out)) r.missing.push_back(base);
  };
  need("nvJitLinkDestroy", r.api.destroy);
  need("nvJitLinkAddData", r.api.add_data);
  need("nvJitLinkComplete", r.api.complete);
  need("nvJitLinkGetLinkedCubinSize", r.api.get_linked_cubin_size);
  need("nvJitLinkGetLinkedCubin", r.api.get_linked_cubin);
  need("nvJitLinkGetErrorLogSize", r.api.get_error_log_size);
  need("nvJitLinkGetErrorLog", r.api.get_error_log);
  need("nvJitLinkGetInfoLogSize", r.api.get_info_log_size);
  need("nvJitLinkGetInfoLog", r.api.get_info_log);
  resolve(lib, "nvJitLinkVersion", r.api.version);
  return r;
}

std::string jit_version(const JitApi& api) {
  unsigned major = 0, minor = 0;
  if (!api.version || api.version(&major, &minor) != 0) return "";
  return std::to_string(major) + "." + std::to_string(minor);
}

namespace {
std::string log_of(const JitApi& api, nvJitLinkHandle h, bool error_log) {
  std::size_t size = 0;
  int r = error_log ? api.get_error_log_size(h, &size) : api.get_info_log_size(h, &size);
  if (r != 0 || size <= 1) return "";
  std::string text(size, '\0');
  r = error_log ? api.get_error_log(h, text.data()) : api.get_info_log(h, text.data());
  if (r != 0) return "";
  text.resize(text.find('\0') == std::string::npos ? text.size() : text.find('\0'));
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

// Owns the link handle.
struct Linker {
  const JitApi& api;
  nvJitLinkHandle handle = nullptr;
  ~Linker() {
    if (handle) api.destroy(&handle);
  }
  Error failure(const char* call, int result) const {
    std::string message = std::string(call) + ": " + check::nvjitlink_result_name(result);
    std::string log = handle ? log_of(api, handle, true) : "";
    if (!log.empty()) message += "; error log: " + log;
    return make_error(ErrorCode::internal, message);
  }
};
} // namespace

Result<LinkedCubin> link_ptx(const JitApi& api, std::string_view ptx, const std::string& arch_option) {
  auto start = std::chrono::steady_clock::now();
  Linker link{api};
  const char* options[] = {arch_option.c_str()};
  if (int r = api.create(&link.handle, 1, options); r != 0) return link.failure("nvJitLinkCreate", r);
  // Every call is checked: a PTX that AddData rejects can still let Complete
  // succeed with a cubin that has no kernels (docs/gpu-check.md, "nvJitLink").
  if (int r = api.add_data(link.handle, nvjitlink_input_ptx, ptx.data(), ptx.size(), "condacuda_check.ptx"); r != 0)
    return link.failure("nvJitLinkAddData", r);
  if (int r = api.complete(link.handle); r != 0) return link.failure("nvJitLinkComplete", r);
  if (std::string log = log_of(api, link.handle, true); !log.empty())
    return make_error(ErrorCode::internal, "nvJitLinkComplete succeeded with an error log: " + log);
  LinkedCubin out;
  std::size_t size = 0;
  if (int r = api.get_linked_cubin_size(link.handle, &size); r != 0) return link.failure("nvJitLinkGetLinkedCubinSize", r);
  if (size == 0) return make_error(ErrorCode::internal, "nvJitLink produced an empty cubin");
  out.image.resize(size);
  if (int r = api.get_linked_cubin(link.handle, out.image.data()); r != 0) return link.failure("nvJitLinkGetLinkedCubin", r);
  out.info_log = log_of(api, link.handle, false);
  out.link_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return out;
}

bool cubin_names(const std::vector<char>& image, std::string_view name) {
  std::string needle(name);
  needle.push_back('\0');
  return std::search(image.begin(), image.end(), needle.begin(), needle.end()) != image.end();
}

Module::~Module() {
  if (module_) api_.cuModuleUnload(module_);
}

Status Module::load(const std::vector<char>& image) {
  return cu_check("cuModuleLoadData", api_.cuModuleLoadData(&module_, image.data()));
}

Result<CUfunction> Module::function(const char* name) const {
  CUfunction f = nullptr;
  if (auto s = cu_check(std::string("cuModuleGetFunction(") + name + ")", api_.cuModuleGetFunction(&f, module_, name)); !s)
    return s.error();
  return f;
}

} // namespace condacuda::probe
