#pragma once
// Problem sizes of the GPU check (docs/gpu-check.md, step 3), and the smaller
// ones of --quick. They travel to the probe in its request, so a test can
// ask for tiny ones. Pure.
#include <cstdint>

#include "util/json.hpp"
#include "util/result.hpp"

namespace condacuda::check {

struct CheckSizes {
  std::uint32_t kernel_elements = 1u << 20;  // saxpy through the JIT-linked module
  std::uint64_t copy_bytes = 1ull << 30;     // D2D bandwidth baseline
  std::uint32_t gemm_bf16 = 8192;            // m = n = k
  std::uint32_t gemm_tf32 = 4096;
  std::uint32_t gemm_fp32 = 4096;            // FP32 PEDANTIC
  std::uint32_t spmv_rows = 8u << 20;        // banded CSR, n x n
  std::uint32_t nnz_per_row = 16;
  std::uint32_t spmm_rows = 1u << 20;
  std::uint32_t spmm_cols = 16;
  int warmups = 2;                           // untimed runs before the timed ones
  int reps = 5;                              // timed runs (CUDA events); the median is reported
  std::uint32_t samples = 64;                // sampled entries validated per output

  // The largest count of elements any buffer holds must stay below 2^32
  // (the hash takes a 32-bit index): checked by valid().
  Status valid() const;
};

CheckSizes full_sizes();
CheckSizes quick_sizes();

util::Json sizes_json(const CheckSizes& s);
Result<CheckSizes> sizes_from_json(const util::Json& j);

} // namespace condacuda::check
