#pragma once
// Names of the status codes the check meets, so that reports say
// CUDA_ERROR_STUB_LIBRARY rather than 34 even when the library that would name
// it is the stub itself (its cuGetErrorName returns 34 too). Values from the
// CUDA 13.0 headers (cuda.h, cublas_api.h, cusparse.h, nvJitLink.h). Pure.
#include <string>

namespace condacuda::check {

// CUresult values the check acts on (docs/gpu-check.md, "Driver").
namespace cu {
inline constexpr int success = 0;
inline constexpr int not_initialized = 3;
inline constexpr int stub_library = 34;
inline constexpr int device_unavailable = 46;
inline constexpr int no_device = 100;
inline constexpr int unsupported_ptx_version = 222;
inline constexpr int system_driver_mismatch = 803;
inline constexpr int compat_not_supported_on_device = 804;
} // namespace cu

// "CUDA_ERROR_STUB_LIBRARY"; "CUresult 12345" for values not in the table.
std::string cu_result_name(int code);
std::string cublas_status_name(int code);
std::string cusparse_status_name(int code);
std::string nvjitlink_result_name(int code);

// What a cuInit failure means for people, one line ("" when nothing to add).
std::string cu_init_hint(int code);

} // namespace condacuda::check
