#pragma once
// nvJitLink in the probe: entry points resolved across the naming schemes
// (docs/gpu-check.md, "nvJitLink": the header maps nvJitLinkCreate to
// __nvJitLinkCreate_13_0; 13.x exports both, some builds only the versioned
// names: try plain, then _13_0, then _12_0), the embedded PTX linked for the
// device's architecture with every return code and the error log checked,
// and the cubin loaded as a driver module.
#include <string>
#include <string_view>
#include <vector>

#include "probe/cuda_api.hpp"
#include "probe/driver.hpp"
#include "util/result.hpp"

namespace condacuda::probe {

struct JitResolution {
  JitApi api;
  std::string naming;                // "plain", "_13_0" or "_12_0": the scheme Create was found under
  std::vector<std::string> missing;  // required entry points not found
};
JitResolution resolve_jit(void* libnvjitlink);

// "13.0" from nvJitLinkVersion, "" when the library predates it (12.3).
std::string jit_version(const JitApi& api);

struct LinkedCubin {
  std::vector<char> image;
  double link_ms = 0;
  std::string info_log;
};

// Links `ptx` (NUL-terminated) with "-arch=sm_XY". Fails with the call, its
// result name and the error log when any call fails, when the error log is
// not empty, or when the cubin is empty.
Result<LinkedCubin> link_ptx(const JitApi& api, std::string_view ptx, const std::string& arch_option);

// Whether the cubin's bytes hold the NUL-terminated name (its symbol table does).
bool cubin_names(const std::vector<char>& image, std::string_view name);

// The linked module in the driver, unloaded by the destructor.
class Module {
public:
  explicit Module(const DriverApi& api) : api_(api) {}
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  ~Module();
  Status load(const std::vector<char>& image);
  Result<CUfunction> function(const char* name) const;

private:
  const DriverApi& api_;
  CUmodule module_ = nullptr;
};

} // namespace condacuda::probe
