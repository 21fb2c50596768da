#pragma once
// Which NVIDIA component a library file belongs to, from its file name or
// soname. Pure table lookups.
#include <optional>
#include <string>
#include <string_view>

namespace condacuda::inventory {

struct ComponentKind {
  std::string_view id;  // stable component id: "cusparse", "cublaslt", "cudnn", ...
  bool toolkit = false; // part of the CUDA toolkit (versioned with a CUDA release)
  // The toolkit components whose own major version is the CUDA major
  // (cudart 13.0.96 -> CUDA 13); cusparse (12.x in 12 and 13), cufft, curand,
  // cusolver are not.
  bool version_is_cuda_major = false;
  // Same for the soname: libcudart.so.12 is CUDA 12; libcusparse.so.12 is not.
  bool soname_is_cuda_major = false;
};

// "libcusparse.so.12" -> cusparse; "libcudnn_adv.so.9" -> cudnn; nullopt for
// anything that is not an NVIDIA CUDA library. Also accepts a bare soname.
std::optional<ComponentKind> classify_library(std::string_view file_name);

// The driver library (libcuda.so.1), which lives outside envs.
bool is_driver_library(std::string_view file_name);

// The number after ".so." ("libcudart.so.12.4.127" -> 12), or -1.
int soname_major(std::string_view name);

// True for "libx.so" and "libx.so.1.2": the names the loader can be asked for.
bool looks_like_shared_library(std::string_view file_name);

// The release an nvJitLink entry point name implies: "__nvJitLinkAddData_12_4"
// -> "12.4"; "" for other names.
std::string implied_release(std::string_view symbol);

} // namespace condacuda::inventory

namespace condacuda::inventory {

// The pip wheel that ships a component for a CUDA major ("nvjitlink", 12 ->
// "nvidia-nvjitlink-cu12"; CUDA 13 toolkit wheels have no suffix). "" when
// unknown.
std::string wheel_for_component(std::string_view component, int cuda_major);

} // namespace condacuda::inventory
