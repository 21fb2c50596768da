// cuBLAS GEMMs of the probe (docs/gpu-check.md, "cuBLAS" and step 3-4).
#include <cstdio>

#include "check/cuda_names.hpp"
#include "check/reference.hpp"
#include "probe/steps.hpp"

namespace condacuda::probe {

namespace {
struct GemmSpec {
  const char* name;
  check::Storage storage;
  int data_type;    // A and B (C is always R_32F)
  int compute_type;
  double (*tolerance)(std::uint32_t k); // of the inner dimension
  const char* detail;
};

GemmSpec spec_for(GemmKind kind) {
  switch (kind) {
  case GemmKind::bf16:
    return {"gemm-bf16", check::Storage::bf16, cuda_r_16bf, cublas_compute_32f, &check::tolerance::gemm_bf16,
            "cublasGemmEx bf16 x bf16 -> fp32, COMPUTE_32F"};
  case GemmKind::tf32:
    return {"gemm-tf32", check::Storage::fp32, cuda_r_32f, cublas_compute_32f_fast_tf32, &check::tolerance::gemm_tf32,
            "cublasGemmEx fp32, COMPUTE_32F_FAST_TF32"};
  case GemmKind::fp32_pedantic:
    return {"gemm-fp32", check::Storage::fp32, cuda_r_32f, cublas_compute_32f_pedantic,
            &check::tolerance::gemm_fp32_pedantic, "cublasGemmEx fp32, COMPUTE_32F_PEDANTIC"};
  }
  return spec_for(GemmKind::fp32_pedantic);
}

std::uint32_t size_for(const check::CheckSizes& s, GemmKind kind) {
  return kind == GemmKind::bf16 ? s.gemm_bf16 : kind == GemmKind::tf32 ? s.gemm_tf32 : s.gemm_fp32;
}

Status blas_check(const char* call, int status) {
  if (status == 0) return ok_status();
  return make_error(ErrorCode::internal, std::string(call) + ": " + check::cublas_status_name(status));
}

struct GemmBuffers {
  DeviceBuffer a, b, c, c2;
};

Status prepare(StepContext& ctx, GemmBuffers& buf, const GemmSpec& spec, std::uint32_t n, bool twice) {
  std::uint64_t elements = std::uint64_t{n} * n;
  std::size_t in_bytes = elements * (spec.storage == check::Storage::bf16 ? 2 : 4), out_bytes = elements * 4;
  if (auto s = ctx.gpu.alloc(buf.a, in_bytes, "A"); !s) return s;
  if (auto s = ctx.gpu.alloc(buf.b, in_bytes, "B"); !s) return s;
  if (auto s = ctx.gpu.alloc(buf.c, out_bytes, "C"); !s) return s;
  if (twice)
    if (auto s = ctx.gpu.alloc(buf.c2, out_bytes, "C (second run)"); !s) return s;
  if (spec.storage == check::Storage::bf16) {
    if (auto s = fill_bf16(ctx, buf.a.ptr(), elements, keys::a()); !s) return s;
    return fill_bf16(ctx, buf.b.ptr(), elements, keys::b());
  }
  if (auto s = fill_f32(ctx, buf.a.ptr(), elements, keys::a()); !s) return s;
  return fill_f32(ctx, buf.b.ptr(), elements, keys::b());
}

// The sampled entries of C against the fp64 reference.
Result<check::Validation> validate(StepContext& ctx, const GemmSpec& spec, std::uint32_t n, CUdeviceptr c) {
  auto positions = check::sample_positions(std::uint64_t{n} * n, ctx.sizes.samples, 7);
  auto got = ctx.gpu.gather(c, positions);
  if (!got) return got.error();
  check::GemmProblem problem{n, n, n, keys::a(), keys::b(), spec.storage};
  std::vector<check::Reference> refs;
  for (auto p : positions)
    refs.push_back(check::gemm_reference(problem, static_cast<std::uint32_t>(p % n), static_cast<std::uint32_t>(p / n)));
  return check::validate(*got, refs, spec.tolerance(n));
}
} // namespace

const char* step_name(GemmKind kind) { return spec_for(kind).name; }

check::StepResult gemm_step(StepContext& ctx, const BlasApi& blas, cublasHandle_t handle, GemmKind kind) {
  GemmSpec spec = spec_for(kind);
  std::uint32_t n = size_for(ctx.sizes, kind);
  check::StepResult step;
  step.name = spec.name;
  step.size = std::to_string(n) + "x" + std::to_string(n) + "x" + std::to_string(n);
  step.unit = "flop";
  step.work = 2.0 * n * double(n) * n;
  step.tolerance = spec.tolerance(n);
  bool twice = kind == GemmKind::bf16; // run twice and compare bitwise (docs/gpu-check.md step 4)
  GemmBuffers buf;
  if (auto s = prepare(ctx, buf, spec, n, twice); !s) return failed(step, s.error());
  const float alpha = 1.0f, beta = 0.0f;
  int ni = static_cast<int>(n);
  auto gemm = [&](CUdeviceptr c) {
    return blas_check("cublasGemmEx", blas.cublasGemmEx(handle, cublas_op_n, cublas_op_n, ni, ni, ni, &alpha,
                                                        buf.a.pointer(), spec.data_type, ni, buf.b.pointer(),
                                                        spec.data_type, ni, &beta,
                                                        reinterpret_cast<void*>(static_cast<std::uintptr_t>(c)),
                                                        cuda_r_32f, ni, spec.compute_type, cublas_gemm_default));
  };
  auto times = ctx.gpu.time(ctx.sizes.warmups, ctx.sizes.reps, [&] { return gemm(buf.c.ptr()); });
  if (!times) return failed(step, times.error());
  step.times_ms = *times;
  auto v = validate(ctx, spec, n, buf.c.ptr());
  if (!v) return failed(step, v.error());
  step.checked = v->checked;
  step.max_error = v->max_error;
  step.detail = spec.detail;
  if (twice) {
    if (auto s = gemm(buf.c2.ptr()); !s) return failed(step, s.error());
    auto diff = count_diff(ctx, buf.c.ptr(), buf.c2.ptr(), std::uint64_t{n} * n);
    if (!diff) return failed(step, diff.error());
    step.deterministic = *diff == 0;
    if (*diff != 0) step.error = std::to_string(*diff) + " entries differ between two identical runs";
  }
  char buf_err[160];
  if (!v->finite) std::snprintf(buf_err, sizeof buf_err, "NaN or Inf in the output");
  else std::snprintf(buf_err, sizeof buf_err, "error %.3g > tolerance %.3g", v->max_error, spec.tolerance(n));
  if (!v->ok) step.error = buf_err;
  step.status = v->ok && step.deterministic.value_or(true) ? check::StepStatus::pass : check::StepStatus::fail;
  return step;
}

} // namespace condacuda::probe
