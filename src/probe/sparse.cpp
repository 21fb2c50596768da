// cuSPARSE CSR SpMV and SpMM of the probe (docs/gpu-check.md, "cuSPARSE"): the
// generic API, same signatures in 12 and 13; a banded matrix whose x fits in
// L2, so SpMV is bound by the matrix stream (60-85 % of the copy bandwidth).
#include "check/cuda_names.hpp"
#include "check/reference.hpp"
#include "probe/steps.hpp"

namespace condacuda::probe {

namespace {
Status sparse_check(const char* call, int status) {
  if (status == 0) return ok_status();
  return make_error(ErrorCode::internal, std::string(call) + ": " + check::cusparse_status_name(status));
}

// The banded CSR matrix on the device, with its descriptor.
struct Csr {
  const SparseApi& sp;
  DeviceBuffer rowptr, colind, vals;
  cusparseSpMatDescr_t descr = nullptr;
  explicit Csr(const SparseApi& api) : sp(api) {}
  Csr(const Csr&) = delete;
  Csr& operator=(const Csr&) = delete;
  ~Csr() {
    if (descr) sp.cusparseDestroySpMat(descr);
  }
};

Status make_csr(StepContext& c, Csr& a, const check::BandedCsr& m) {
  std::uint64_t nnz = check::banded_nnz(m);
  if (auto s = c.gpu.alloc(a.rowptr, (std::size_t{m.rows} + 1) * 4, "CSR row offsets"); !s) return s;
  if (auto s = c.gpu.alloc(a.colind, nnz * 4, "CSR column indices"); !s) return s;
  if (auto s = c.gpu.alloc(a.vals, nnz * 4, "CSR values"); !s) return s;
  if (auto s = fill_csr(c, a.rowptr.ptr(), a.colind.ptr(), a.vals.ptr(), m.rows, m.per_row, m.key_vals); !s) return s;
  return sparse_check("cusparseCreateCsr",
                      a.sp.cusparseCreateCsr(&a.descr, m.rows, m.rows, static_cast<std::int64_t>(nnz),
                                             a.rowptr.pointer(), a.colind.pointer(), a.vals.pointer(),
                                             cusparse_index_32i, cusparse_index_32i, cusparse_index_base_zero,
                                             cuda_r_32f));
}

struct DnVec {
  const SparseApi& sp;
  cusparseDnVecDescr_t descr = nullptr;
  ~DnVec() {
    if (descr) sp.cusparseDestroyDnVec(descr);
  }
};
struct DnMat {
  const SparseApi& sp;
  cusparseDnMatDescr_t descr = nullptr;
  ~DnMat() {
    if (descr) sp.cusparseDestroyDnMat(descr);
  }
};

void finish(check::StepResult& step, const check::Validation& v, const char* detail) {
  step.checked = v.checked;
  step.max_error = v.max_error;
  step.detail = detail;
  step.status = v.ok ? check::StepStatus::pass : check::StepStatus::fail;
  if (!v.finite) step.error = "NaN or Inf in the output";
  else if (!v.ok) step.error = "error above the tolerance";
}
} // namespace

check::StepResult spmv_step(StepContext& c, const SparseApi& sp, cusparseHandle_t handle) {
  check::BandedCsr m{c.sizes.spmv_rows, c.sizes.nnz_per_row, keys::values()};
  check::StepResult step;
  step.name = "spmv";
  step.size = "n=" + std::to_string(m.rows) + " nnz/row=" + std::to_string(m.per_row);
  step.unit = "byte";
  // The bytes it must move: row offsets, column indices and values once, x and y once.
  step.work = 4.0 * (m.rows + 1) + 8.0 * static_cast<double>(check::banded_nnz(m)) + 8.0 * m.rows;
  step.tolerance = check::tolerance::spmv;
  Csr a(sp);
  DeviceBuffer x, y, work;
  if (auto s = make_csr(c, a, m); !s) return failed(step, s.error());
  if (auto s = c.gpu.alloc(x, std::size_t{m.rows} * 4, "x"); !s) return failed(step, s.error());
  if (auto s = c.gpu.alloc(y, std::size_t{m.rows} * 4, "y"); !s) return failed(step, s.error());
  if (auto s = fill_f32(c, x.ptr(), m.rows, keys::x()); !s) return failed(step, s.error());
  DnVec vx{sp}, vy{sp};
  if (auto s = sparse_check("cusparseCreateDnVec", sp.cusparseCreateDnVec(&vx.descr, m.rows, x.pointer(), cuda_r_32f)); !s)
    return failed(step, s.error());
  if (auto s = sparse_check("cusparseCreateDnVec", sp.cusparseCreateDnVec(&vy.descr, m.rows, y.pointer(), cuda_r_32f)); !s)
    return failed(step, s.error());
  const float alpha = 1.0f, beta = 0.0f;
  std::size_t bytes = 0;
  if (auto s = sparse_check("cusparseSpMV_bufferSize",
                            sp.cusparseSpMV_bufferSize(handle, cusparse_operation_non_transpose, &alpha, a.descr,
                                                       vx.descr, &beta, vy.descr, cuda_r_32f,
                                                       cusparse_spmv_alg_default, &bytes));
      !s)
    return failed(step, s.error());
  if (bytes > 0)
    if (auto s = c.gpu.alloc(work, bytes, "SpMV buffer"); !s) return failed(step, s.error());
  auto times = c.gpu.time(c.sizes.warmups, c.sizes.reps, [&] {
    return sparse_check("cusparseSpMV", sp.cusparseSpMV(handle, cusparse_operation_non_transpose, &alpha, a.descr,
                                                        vx.descr, &beta, vy.descr, cuda_r_32f,
                                                        cusparse_spmv_alg_default, work.pointer()));
  });
  if (!times) return failed(step, times.error());
  step.times_ms = *times;
  auto rows = check::sample_positions(m.rows, c.sizes.samples, 13);
  auto got = c.gpu.gather(y.ptr(), rows);
  if (!got) return failed(step, got.error());
  std::vector<check::Reference> refs;
  for (auto r : rows) refs.push_back(check::spmv_reference(m, keys::x(), static_cast<std::uint32_t>(r)));
  finish(step, check::validate(*got, refs, check::tolerance::spmv), "cusparseSpMV CSR fp32, banded");
  return step;
}

check::StepResult spmm_step(StepContext& c, const SparseApi& sp, cusparseHandle_t handle) {
  check::BandedCsr m{c.sizes.spmm_rows, c.sizes.nnz_per_row, keys::values()};
  std::uint32_t cols = c.sizes.spmm_cols;
  check::StepResult step;
  step.name = "spmm";
  step.size = "n=" + std::to_string(m.rows) + " nnz/row=" + std::to_string(m.per_row) + " cols=" + std::to_string(cols);
  step.unit = "flop";
  step.work = 2.0 * static_cast<double>(check::banded_nnz(m)) * cols;
  step.tolerance = check::tolerance::spmv;
  Csr a(sp);
  DeviceBuffer b, out, work;
  std::uint64_t dense = std::uint64_t{m.rows} * cols;
  if (auto s = make_csr(c, a, m); !s) return failed(step, s.error());
  if (auto s = c.gpu.alloc(b, dense * 4, "B"); !s) return failed(step, s.error());
  if (auto s = c.gpu.alloc(out, dense * 4, "C"); !s) return failed(step, s.error());
  if (auto s = fill_f32(c, b.ptr(), dense, keys::b()); !s) return failed(step, s.error());
  DnMat mb{sp}, mc{sp};
  if (auto s = sparse_check("cusparseCreateDnMat", sp.cusparseCreateDnMat(&mb.descr, m.rows, cols, m.rows, b.pointer(),
                                                                          cuda_r_32f, cusparse_order_col));
      !s)
    return failed(step, s.error());
  if (auto s = sparse_check("cusparseCreateDnMat", sp.cusparseCreateDnMat(&mc.descr, m.rows, cols, m.rows,
                                                                          out.pointer(), cuda_r_32f, cusparse_order_col));
      !s)
    return failed(step, s.error());
  const float alpha = 1.0f, beta = 0.0f;
  const int op = cusparse_operation_non_transpose;
  std::size_t bytes = 0;
  if (auto s = sparse_check("cusparseSpMM_bufferSize",
                            sp.cusparseSpMM_bufferSize(handle, op, op, &alpha, a.descr, mb.descr, &beta, mc.descr,
                                                       cuda_r_32f, cusparse_spmm_alg_default, &bytes));
      !s)
    return failed(step, s.error());
  if (bytes > 0)
    if (auto s = c.gpu.alloc(work, bytes, "SpMM buffer"); !s) return failed(step, s.error());
  auto times = c.gpu.time(c.sizes.warmups, c.sizes.reps, [&] {
    return sparse_check("cusparseSpMM", sp.cusparseSpMM(handle, op, op, &alpha, a.descr, mb.descr, &beta, mc.descr,
                                                        cuda_r_32f, cusparse_spmm_alg_default, work.pointer()));
  });
  if (!times) return failed(step, times.error());
  step.times_ms = *times;
  auto positions = check::sample_positions(dense, c.sizes.samples, 17);
  auto got = c.gpu.gather(out.ptr(), positions);
  if (!got) return failed(step, got.error());
  std::vector<check::Reference> refs;
  for (auto p : positions)
    refs.push_back(check::spmm_reference(m, keys::b(), static_cast<std::uint32_t>(p % m.rows),
                                         static_cast<std::uint32_t>(p / m.rows)));
  finish(step, check::validate(*got, refs, check::tolerance::spmv), "cusparseSpMM CSR fp32, banded");
  return step;
}

} // namespace condacuda::probe
