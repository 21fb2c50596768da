#pragma once
// The one PTX module the check links with nvJitLink and launches through the
// driver. `.version 7.0`, and `.target` the lowest architecture the env's
// nvJitLink links for: sm_50 for CUDA 12 (which still builds for Maxwell,
// Pascal and Volta: a V100 is sm_70, and PTX for sm_75 cannot be linked for
// it), sm_75 for CUDA 13 (which dropped them). nvJitLink links it for the
// device's architecture (docs/gpu-check.md, "nvJitLink": a too-new .version
// made AddData fail while Complete still succeeded).
#include <array>
#include <string>
#include <string_view>

namespace condacuda::check {

// The module text for an nvJitLink of this major (12 for one too old to say:
// nvJitLinkVersion came with 12.3), NUL-terminated as nvJitLinkAddData wants
// for PTX (the NUL is the string's last character).
std::string probe_ptx(int nvjitlink_major);
// ".target" of probe_ptx: "sm_50" below 13, else "sm_75".
std::string_view ptx_target_for(int nvjitlink_major);

// Kernel names, all `.visible .entry` in probe_ptx(). Parameters (in order):
//   cc_fill_f32   (float* out, u64 n, u32 key)          out[i] = element_value(key, i)
//   cc_fill_bf16  (u16* out, u64 n, u32 key)            out[i] = bf16_bits(element_value(key, i))
//   cc_fill_csr   (i32* rowptr, i32* colind, float* vals, u32 rows, u32 per_row, u32 key)
//                 a banded CSR matrix, see banded_column() in check/reference.hpp
//   cc_saxpy      (float* y, const float* x, float a, u64 n)   y[i] = fma(a, x[i], y[i])
//   cc_count_diff (const u32* a, const u32* b, u64 n, u32* count)  count += #(a[i] != b[i])
inline constexpr const char* kernel_fill_f32 = "cc_fill_f32";
inline constexpr const char* kernel_fill_bf16 = "cc_fill_bf16";
inline constexpr const char* kernel_fill_csr = "cc_fill_csr";
inline constexpr const char* kernel_saxpy = "cc_saxpy";
inline constexpr const char* kernel_count_diff = "cc_count_diff";
inline constexpr std::array<const char*, 5> all_kernels{kernel_fill_f32, kernel_fill_bf16, kernel_fill_csr,
                                                        kernel_saxpy, kernel_count_diff};

// nvJitLink's -arch option for a compute capability: (9, 0) -> "-arch=sm_90".
std::string jit_arch_option(int cc_major, int cc_minor);

} // namespace condacuda::check
