#include "inventory/components.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "util/strings.hpp"

namespace condacuda::inventory {

namespace {
struct Rule {
  std::string_view stem_prefix; // after "lib", compared case-sensitively
  ComponentKind kind;
};

// Longest prefixes first where one is a prefix of another (cublasLt/cublas).
constexpr std::array rules{
    Rule{"cudart", {"cudart", true, true, true}},
    Rule{"nvrtc", {"nvrtc", true, true, true}},
    Rule{"nvJitLink", {"nvjitlink", true, true, true}},
    Rule{"cublasLt", {"cublaslt", true, true, true}},
    Rule{"cublas", {"cublas", true, true, true}},
    Rule{"nvblas", {"cublas", true, true, true}},
    Rule{"cusparseLt", {"cusparselt", false, false, false}},
    Rule{"cusparse", {"cusparse", true, false, false}},
    Rule{"cusolver", {"cusolver", true, false, false}},
    Rule{"cufft", {"cufft", true, false, false}},
    Rule{"curand", {"curand", true, false, false}},
    Rule{"cupti", {"cupti", true, true, true}},
    Rule{"nvperf_", {"cupti", true, false, false}},
    Rule{"pcsamplingutil", {"cupti", true, false, false}},
    Rule{"checkpoint", {"cupti", true, false, false}},
    Rule{"nvvm", {"nvvm", true, false, false}},
    Rule{"nvToolsExt", {"nvtx", true, false, false}},
    Rule{"nvtx3interop", {"nvtx", true, false, false}},
    Rule{"nvfatbin", {"nvfatbin", true, true, true}},
    Rule{"npp", {"npp", true, false, false}},
    Rule{"nvjpeg", {"nvjpeg", true, false, false}},
    Rule{"cufile", {"cufile", true, false, false}},
    Rule{"cudnn", {"cudnn", false, false, false}},
    Rule{"nccl", {"nccl", false, false, false}},
    Rule{"nvshmem", {"nvshmem", false, false, false}},
};

std::string_view stem(std::string_view file_name) {
  if (file_name.substr(0, 3) != "lib") return {};
  file_name.remove_prefix(3);
  auto so = file_name.find(".so");
  return so == std::string_view::npos ? std::string_view{} : file_name.substr(0, so);
}
} // namespace

bool looks_like_shared_library(std::string_view file_name) {
  auto so = file_name.find(".so");
  if (so == std::string_view::npos || so == 0) return false;
  std::string_view rest = file_name.substr(so + 3);
  return rest.empty() || rest[0] == '.';
}

std::optional<ComponentKind> classify_library(std::string_view file_name) {
  std::string_view s = stem(file_name);
  if (s.empty()) return std::nullopt;
  for (const auto& rule : rules) {
    if (s.substr(0, rule.stem_prefix.size()) != rule.stem_prefix) continue;
    // "cudart" must not catch "cudart_static"-like non-library names; the
    // ".so" check in stem() already did. "nccl" must not catch "ncclx"? it may.
    return rule.kind;
  }
  return std::nullopt;
}

bool is_driver_library(std::string_view file_name) { return stem(file_name) == "cuda"; }

int soname_major(std::string_view name) {
  auto so = name.find(".so.");
  if (so == std::string_view::npos) return -1;
  return util::leading_number(name.substr(so + 4));
}

} // namespace condacuda::inventory

namespace condacuda::inventory {

std::string wheel_for_component(std::string_view component, int cuda_major) {
  struct Wheel {
    std::string_view component, stem;
    bool toolkit;
  };
  static constexpr Wheel wheels[] = {
      {"cudart", "cuda-runtime", true}, {"nvrtc", "cuda-nvrtc", true},   {"nvjitlink", "nvjitlink", true},
      {"cublas", "cublas", true},       {"cublaslt", "cublas", true},    {"cusparse", "cusparse", true},
      {"cusolver", "cusolver", true},   {"cufft", "cufft", true},        {"curand", "curand", true},
      {"cupti", "cuda-cupti", true},    {"nvvm", "cuda-nvcc", true},     {"nvtx", "nvtx", true},
      {"nvfatbin", "nvfatbin", true},   {"npp", "npp", true},            {"nvjpeg", "nvjpeg", true},
      {"cufile", "cufile", true},       {"cudnn", "cudnn", false},       {"nccl", "nccl", false},
      {"cusparselt", "cusparselt", false}, {"nvshmem", "nvshmem", false},
  };
  for (const auto& w : wheels) {
    if (w.component != component) continue;
    std::string name = "nvidia-" + std::string(w.stem);
    if (cuda_major <= 0) return name + "-cuXX";
    // CUDA 13 toolkit wheels dropped the suffix; cuDNN/NCCL/... kept it.
    if (cuda_major >= 13 && w.toolkit) return name;
    return name + "-cu" + std::to_string(cuda_major);
  }
  return "";
}

std::string implied_release(std::string_view symbol) {
  // nvJitLink's header maps each entry point to __nvJitLink<Name>_<major>_<minor>.
  if (!symbol.starts_with("__nvJitLink")) return "";
  auto last = symbol.rfind('_');
  if (last == std::string_view::npos || last == 0) return "";
  auto prev = symbol.rfind('_', last - 1);
  if (prev == std::string_view::npos) return "";
  std::string_view major = symbol.substr(prev + 1, last - prev - 1), minor = symbol.substr(last + 1);
  auto digits = [](std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
  };
  return digits(major) && digits(minor) ? std::string(major) + "." + std::string(minor) : "";
}

} // namespace condacuda::inventory
