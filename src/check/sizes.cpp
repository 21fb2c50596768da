#include "check/sizes.hpp"

#include <algorithm>

namespace condacuda::check {

CheckSizes full_sizes() { return CheckSizes{}; }

CheckSizes quick_sizes() {
  CheckSizes s;
  s.kernel_elements = 1u << 16;
  s.copy_bytes = 64ull << 20; // nvbandwidth's buffer size
  s.gemm_bf16 = 1024;
  s.gemm_tf32 = 1024;
  s.gemm_fp32 = 1024;
  s.spmv_rows = 1u << 18;
  s.spmm_rows = 1u << 16;
  s.warmups = 1;
  s.reps = 3;
  s.samples = 32;
  return s;
}

Status CheckSizes::valid() const {
  constexpr std::uint64_t limit = std::uint64_t{1} << 32;
  auto sq = [](std::uint32_t n) { return std::uint64_t{n} * n; };
  std::uint64_t biggest = std::max({std::uint64_t{kernel_elements}, copy_bytes / 4, sq(gemm_bf16), sq(gemm_tf32),
                                    sq(gemm_fp32), std::uint64_t{spmv_rows} * nnz_per_row,
                                    std::uint64_t{spmm_rows} * std::max(nnz_per_row, spmm_cols)});
  if (biggest >= limit) return make_error(ErrorCode::bad_input, "a check buffer would hold 2^32 elements or more");
  if (nnz_per_row == 0 || spmv_rows < nnz_per_row || spmm_rows < nnz_per_row)
    return make_error(ErrorCode::bad_input, "the sparse matrices need at least nnz_per_row rows");
  if (reps < 1 || warmups < 0) return make_error(ErrorCode::bad_input, "reps must be >= 1 and warmups >= 0");
  if (kernel_elements == 0 || copy_bytes < 4 || gemm_bf16 == 0 || gemm_tf32 == 0 || gemm_fp32 == 0 || spmm_cols == 0)
    return make_error(ErrorCode::bad_input, "sizes must be positive");
  return ok_status();
}

util::Json sizes_json(const CheckSizes& s) {
  util::Json j = util::Json::object();
  j.set("kernel_elements", s.kernel_elements);
  j.set("copy_bytes", s.copy_bytes);
  j.set("gemm_bf16", s.gemm_bf16);
  j.set("gemm_tf32", s.gemm_tf32);
  j.set("gemm_fp32", s.gemm_fp32);
  j.set("spmv_rows", s.spmv_rows);
  j.set("nnz_per_row", s.nnz_per_row);
  j.set("spmm_rows", s.spmm_rows);
  j.set("spmm_cols", s.spmm_cols);
  j.set("warmups", s.warmups);
  j.set("reps", s.reps);
  j.set("samples", s.samples);
  return j;
}

namespace {
template <class T>
bool read_field(const util::Json& j, const char* key, T& out) {
  const util::Json* v = j.get(key);
  if (!v) return true; // absent: keep the default
  if (!v->is_int() || v->as_int() < 0) return false;
  out = static_cast<T>(v->as_int());
  return static_cast<std::int64_t>(out) == v->as_int();
}
} // namespace

Result<CheckSizes> sizes_from_json(const util::Json& j) {
  CheckSizes s;
  if (!j.is_object()) return make_error(ErrorCode::bad_input, "sizes: not an object");
  bool ok = read_field(j, "kernel_elements", s.kernel_elements) && read_field(j, "copy_bytes", s.copy_bytes) &&
            read_field(j, "gemm_bf16", s.gemm_bf16) && read_field(j, "gemm_tf32", s.gemm_tf32) &&
            read_field(j, "gemm_fp32", s.gemm_fp32) && read_field(j, "spmv_rows", s.spmv_rows) &&
            read_field(j, "nnz_per_row", s.nnz_per_row) && read_field(j, "spmm_rows", s.spmm_rows) &&
            read_field(j, "spmm_cols", s.spmm_cols) && read_field(j, "warmups", s.warmups) &&
            read_field(j, "reps", s.reps) && read_field(j, "samples", s.samples);
  if (!ok) return make_error(ErrorCode::bad_input, "sizes: a field is not a non-negative integer in range");
  auto valid = s.valid();
  if (!valid) return valid.error();
  return s;
}

} // namespace condacuda::check
