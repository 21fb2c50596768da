#pragma once
// Validation math of the GPU check: the fp64 host reference of sampled
// output entries, recomputed from the same hash the device filled the inputs
// with (check/hash.hpp), and the error measure of docs/gpu-check.md step 4:
// |gpu - ref| / sum|a*b| per entry; NaN or Inf fails. Pure.
#include <cstdint>
#include <span>
#include <vector>

namespace condacuda::check {

// Tolerances on the error relative to sum|a*b| (docs/gpu-check.md, step 4).
// A GEMM whose inputs were rounded to a precision of unit roundoff u shows,
// on the check's inputs (uniform in [-1, 1)), an error of about
// rounding_scale(u, K) = u * (4/3) / sqrt(K) per entry: the rounding errors of
// K products add up as a random walk (sqrt(K) sum(a*b)^2 terms against
// sum|a*b| = K/4). The largest over the 32 sampled entries, simulated on the
// check's own inputs (tests/unit/test_check_math.cpp, K = 512 ... 4096): TF32
// rounded to nearest 1.0-1.3 scales, TF32 truncated (a tensor core fed fp32
// bits ignores the low 13) 2.8-4.8, bf16 inputs 7.3-11.7 TF32 scales. So:
//   TF32 (u = 2^-11): 6 scales, passing both TF32 conversions and failing a
//     "TF32" step that ran on bf16 inputs (margins 1.25x at worst);
//   FP32 PEDANTIC, and bf16 inputs whose reference is rounded the same way:
//     a quarter of TF32's scale, failing a silent TF32 downgrade by 4x or
//     more while fp32 accumulation stays 10x or more below it.
namespace tolerance {
inline constexpr double unit_roundoff_tf32 = 0x1p-11;
inline constexpr double unit_roundoff_bf16 = 0x1p-8;
double rounding_scale(double unit_roundoff, std::uint32_t k);
double gemm_tf32(std::uint32_t k);
double gemm_fp32_pedantic(std::uint32_t k);
double gemm_bf16(std::uint32_t k); // bf16 inputs, fp32 accumulate and output: as pedantic
inline constexpr double spmv = 1e-5; // also SpMM
} // namespace tolerance

// One entry of a reference: the exact (fp64) value and sum|a*b| over its terms.
struct Reference {
  double value = 0;
  double magnitude = 0;
};

// How the device holds a GEMM input: bf16 (rounded from the element value) or fp32.
enum class Storage { bf16, fp32 };

// C = A * B, column-major as cuBLAS (OP_N, OP_N): A is m x k with
// A(i, l) = element(key_a, i + l*m), B is k x n with B(l, j) = element(key_b, l + j*k).
struct GemmProblem {
  std::uint32_t m = 0, n = 0, k = 0;
  std::uint32_t key_a = 0, key_b = 0;
  Storage storage = Storage::fp32;
};
Reference gemm_reference(const GemmProblem& p, std::uint32_t row, std::uint32_t col);

// The banded CSR matrix cc_fill_csr builds: `rows` x `rows`, `per_row`
// entries in every row, at consecutive columns starting at banded_start(row);
// entry e (row e / per_row) holds element(key_vals, e). Needs rows >= per_row.
struct BandedCsr {
  std::uint32_t rows = 0, per_row = 16;
  std::uint32_t key_vals = 0;
};
std::uint32_t banded_start(const BandedCsr& a, std::uint32_t row);
std::uint64_t banded_nnz(const BandedCsr& a);

// y = A * x with x[c] = element(key_x, c).
Reference spmv_reference(const BandedCsr& a, std::uint32_t key_x, std::uint32_t row);
// C = A * B, B column-major rows x cols with B(r, c) = element(key_b, r + c*rows).
Reference spmm_reference(const BandedCsr& a, std::uint32_t key_b, std::uint32_t row, std::uint32_t col);

// What cc_saxpy leaves in y[i] (fma rounds once, like fma.rn.f32).
float saxpy_expected(std::uint32_t key_x, std::uint32_t key_y, float a, std::uint32_t index);

// `count` positions in [0, size): the first, the last and the rest spread by
// the hash (deterministic for a seed). Empty when size is 0.
std::vector<std::uint64_t> sample_positions(std::uint64_t size, std::uint32_t count, std::uint32_t seed);

struct Validation {
  bool ok = true;
  bool finite = true;         // false: a NaN or Inf came back
  double max_error = 0;       // the largest relative error (0 when nothing was checked)
  std::size_t worst = 0;      // index into the checked entries of the largest error
  std::size_t checked = 0;
};

// |got - ref.value| / ref.magnitude (absolute when the magnitude is 0).
double relative_error(double got, const Reference& ref);

// Checks got[i] against refs[i] with `tol`; any non-finite value fails.
Validation validate(std::span<const float> got, std::span<const Reference> refs, double tol);

// Exact comparison (copies, the kernel step): the error counts mismatches.
Validation validate_exact(std::span<const float> got, std::span<const float> expected);

} // namespace condacuda::check
