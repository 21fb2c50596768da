#include "check/reference.hpp"

#include <algorithm>
#include <cmath>

#include "check/hash.hpp"

namespace condacuda::check {

namespace {
float gemm_input(std::uint32_t key, std::uint32_t index, Storage storage) {
  return storage == Storage::bf16 ? element_value_bf16(key, index) : element_value(key, index);
}
} // namespace

namespace tolerance {
double rounding_scale(double unit_roundoff, std::uint32_t k) {
  return unit_roundoff * (4.0 / 3.0) / std::sqrt(static_cast<double>(std::max<std::uint32_t>(k, 1)));
}
double gemm_tf32(std::uint32_t k) { return 6.0 * rounding_scale(unit_roundoff_tf32, k); }
double gemm_fp32_pedantic(std::uint32_t k) { return 0.25 * rounding_scale(unit_roundoff_tf32, k); }
double gemm_bf16(std::uint32_t k) { return gemm_fp32_pedantic(k); }
} // namespace tolerance

Reference gemm_reference(const GemmProblem& p, std::uint32_t row, std::uint32_t col) {
  Reference r;
  for (std::uint32_t l = 0; l < p.k; ++l) {
    double a = gemm_input(p.key_a, row + l * p.m, p.storage);
    double b = gemm_input(p.key_b, l + col * p.k, p.storage);
    r.value += a * b;
    r.magnitude += std::fabs(a * b);
  }
  return r;
}

std::uint32_t banded_start(const BandedCsr& a, std::uint32_t row) {
  std::uint32_t half = a.per_row / 2;
  std::uint32_t start = std::max(row, half) - half;
  return std::min(start, a.rows - a.per_row);
}

std::uint64_t banded_nnz(const BandedCsr& a) { return std::uint64_t{a.rows} * a.per_row; }

namespace {
// sum over the row's entries of vals[e] * dense(col), dense(col) = element(key, col + offset).
Reference csr_row(const BandedCsr& a, std::uint32_t key, std::uint32_t offset, std::uint32_t row) {
  Reference r;
  std::uint32_t start = banded_start(a, row);
  for (std::uint32_t j = 0; j < a.per_row; ++j) {
    std::uint32_t e = row * a.per_row + j;
    double v = element_value(a.key_vals, e);
    double x = element_value(key, start + j + offset);
    r.value += v * x;
    r.magnitude += std::fabs(v * x);
  }
  return r;
}
} // namespace

Reference spmv_reference(const BandedCsr& a, std::uint32_t key_x, std::uint32_t row) {
  return csr_row(a, key_x, 0, row);
}

Reference spmm_reference(const BandedCsr& a, std::uint32_t key_b, std::uint32_t row, std::uint32_t col) {
  return csr_row(a, key_b, col * a.rows, row);
}

float saxpy_expected(std::uint32_t key_x, std::uint32_t key_y, float a, std::uint32_t index) {
  return std::fma(a, element_value(key_x, index), element_value(key_y, index));
}

std::vector<std::uint64_t> sample_positions(std::uint64_t size, std::uint32_t count, std::uint32_t seed) {
  std::vector<std::uint64_t> out;
  if (size == 0 || count == 0) return out;
  out.push_back(0);
  if (count > 1) out.push_back(size - 1);
  std::uint32_t key = stream_key(seed);
  for (std::uint32_t i = 2; i < count; ++i) {
    // 64 bits from two hashes so that sizes beyond 2^32 are covered evenly.
    std::uint64_t h = (std::uint64_t{element_hash(key, 2 * i)} << 32) | element_hash(key, 2 * i + 1);
    out.push_back(h % size);
  }
  return out;
}

double relative_error(double got, const Reference& ref) {
  double diff = std::fabs(got - ref.value);
  return ref.magnitude > 0 ? diff / ref.magnitude : diff;
}

Validation validate(std::span<const float> got, std::span<const Reference> refs, double tol) {
  Validation v;
  std::size_t n = std::min(got.size(), refs.size());
  v.ok = got.size() == refs.size();
  for (std::size_t i = 0; i < n; ++i) {
    ++v.checked;
    if (!std::isfinite(got[i])) {
      v.finite = false;
      v.ok = false;
      v.worst = i;
      continue;
    }
    double e = relative_error(got[i], refs[i]);
    if (e > v.max_error) {
      v.max_error = e;
      if (v.finite) v.worst = i;
    }
  }
  if (v.max_error > tol) v.ok = false;
  return v;
}

Validation validate_exact(std::span<const float> got, std::span<const float> expected) {
  Validation v;
  std::size_t n = std::min(got.size(), expected.size());
  v.ok = got.size() == expected.size();
  for (std::size_t i = 0; i < n; ++i) {
    ++v.checked;
    if (!std::isfinite(got[i])) v.finite = false;
    // Bitwise: NaN never equals, -0 and +0 differ.
    if (std::bit_cast<std::uint32_t>(got[i]) != std::bit_cast<std::uint32_t>(expected[i])) {
      if (v.max_error == 0) v.worst = i;
      v.max_error += 1;
      v.ok = false;
    }
  }
  return v;
}

} // namespace condacuda::check
