#pragma once
// The measured steps of the probe (docs/gpu-check.md, "A design that fits", 2-4).
// Each allocates what it needs, fills it on the device with the JIT-linked
// kernels (the counter-based hash of check/hash.hpp), runs and times its
// operation, validates sampled entries against the fp64 host reference and
// frees everything before returning. A failing call ends the step with the
// call and its status name; the steps after it still run.
#include "check/model.hpp"
#include "probe/cuda_api.hpp"
#include "probe/driver.hpp"

namespace condacuda::probe {

struct Kernels {
  CUfunction fill_f32 = nullptr, fill_bf16 = nullptr, fill_csr = nullptr, saxpy = nullptr, count_diff = nullptr;
};

struct StepContext {
  Gpu& gpu;
  const Kernels& kernels;
  const check::CheckSizes& sizes;
};

// Device-side data generation.
Status fill_f32(StepContext& c, CUdeviceptr out, std::uint64_t n, std::uint32_t key);
Status fill_bf16(StepContext& c, CUdeviceptr out, std::uint64_t n, std::uint32_t key);
Status fill_csr(StepContext& c, CUdeviceptr rowptr, CUdeviceptr colind, CUdeviceptr vals, std::uint32_t rows,
                std::uint32_t per_row, std::uint32_t key);
// The number of 32-bit words that differ between a and b (on the device).
Result<std::uint32_t> count_diff(StepContext& c, CUdeviceptr a, CUdeviceptr b, std::uint64_t n);

// A failed step: its status, the error, and what it was doing.
check::StepResult failed(check::StepResult step, const Error& error);

// saxpy through the JIT-linked module, compared bit for bit with the host.
check::StepResult kernel_step(StepContext& c);
// Device-to-device copy: the bandwidth baseline (bytes = read + written).
check::StepResult copy_step(StepContext& c);

enum class GemmKind { bf16, tf32, fp32_pedantic };
const char* step_name(GemmKind kind);
// cublasGemmEx C = A*B (column-major, OP_N/OP_N, as torch's matmul of
// contiguous tensors), n = m = k from the sizes.
check::StepResult gemm_step(StepContext& c, const BlasApi& blas, cublasHandle_t handle, GemmKind kind);

// cuSPARSE CSR SpMV (y = A*x) and SpMM (C = A*B, B column-major), banded A.
check::StepResult spmv_step(StepContext& c, const SparseApi& sp, cusparseHandle_t handle);
check::StepResult spmm_step(StepContext& c, const SparseApi& sp, cusparseHandle_t handle);

// Stream keys of the inputs (check::stream_key of fixed seeds).
namespace keys {
std::uint32_t a();
std::uint32_t b();
std::uint32_t x();
std::uint32_t y();
std::uint32_t values();
} // namespace keys

} // namespace condacuda::probe
