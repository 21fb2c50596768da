#include "probe/steps.hpp"

#include <cstdio>

#include "check/hash.hpp"
#include "check/reference.hpp"

namespace condacuda::probe {

namespace keys {
std::uint32_t a() { return check::stream_key(1); }
std::uint32_t b() { return check::stream_key(2); }
std::uint32_t x() { return check::stream_key(3); }
std::uint32_t y() { return check::stream_key(4); }
std::uint32_t values() { return check::stream_key(5); }
} // namespace keys

Status fill_f32(StepContext& c, CUdeviceptr out, std::uint64_t n, std::uint32_t key) {
  void* params[] = {&out, &n, &key};
  return c.gpu.launch(c.kernels.fill_f32, n, params, "cc_fill_f32");
}

Status fill_bf16(StepContext& c, CUdeviceptr out, std::uint64_t n, std::uint32_t key) {
  void* params[] = {&out, &n, &key};
  return c.gpu.launch(c.kernels.fill_bf16, n, params, "cc_fill_bf16");
}

Status fill_csr(StepContext& c, CUdeviceptr rowptr, CUdeviceptr colind, CUdeviceptr vals, std::uint32_t rows,
                std::uint32_t per_row, std::uint32_t key) {
  void* params[] = {&rowptr, &colind, &vals, &rows, &per_row, &key};
  std::uint64_t items = std::max(std::uint64_t{rows} * per_row, std::uint64_t{rows} + 1);
  return c.gpu.launch(c.kernels.fill_csr, items, params, "cc_fill_csr");
}

Result<std::uint32_t> count_diff(StepContext& c, CUdeviceptr a, CUdeviceptr b, std::uint64_t n) {
  DeviceBuffer counter;
  if (auto s = c.gpu.alloc(counter, sizeof(std::uint32_t), "mismatch counter"); !s) return s.error();
  CUdeviceptr count = counter.ptr();
  if (auto s = cu_check("cuMemsetD32Async", c.gpu.api().cuMemsetD32Async(count, 0, 1, c.gpu.stream())); !s)
    return s.error();
  void* params[] = {&a, &b, &n, &count};
  if (auto s = c.gpu.launch(c.kernels.count_diff, n, params, "cc_count_diff"); !s) return s.error();
  if (auto s = c.gpu.sync("cc_count_diff"); !s) return s.error();
  return c.gpu.read_u32(count);
}

check::StepResult failed(check::StepResult step, const Error& error) {
  step.status = check::StepStatus::fail;
  step.error = error.message;
  return step;
}

check::StepResult kernel_step(StepContext& c) {
  check::StepResult step;
  step.name = "kernel";
  std::uint32_t n = c.sizes.kernel_elements;
  step.size = std::to_string(n) + " elements";
  DeviceBuffer x, y;
  const float alpha = 2.5f;
  if (auto s = c.gpu.alloc(x, std::size_t{n} * 4, "x"); !s) return failed(step, s.error());
  if (auto s = c.gpu.alloc(y, std::size_t{n} * 4, "y"); !s) return failed(step, s.error());
  if (auto s = fill_f32(c, x.ptr(), n, keys::x()); !s) return failed(step, s.error());
  if (auto s = fill_f32(c, y.ptr(), n, keys::y()); !s) return failed(step, s.error());
  CUdeviceptr yp = y.ptr(), xp = x.ptr();
  std::uint64_t count = n;
  float a = alpha;
  void* params[] = {&yp, &xp, &a, &count};
  if (auto s = c.gpu.launch(c.kernels.saxpy, n, params, "cc_saxpy"); !s) return failed(step, s.error());
  if (auto s = c.gpu.sync("cc_saxpy"); !s) return failed(step, s.error());
  auto got = c.gpu.read(y.ptr(), 0, n);
  if (!got) return failed(step, got.error());
  std::vector<float> expected(n);
  for (std::uint32_t i = 0; i < n; ++i) expected[i] = check::saxpy_expected(keys::x(), keys::y(), alpha, i);
  check::Validation v = check::validate_exact(*got, expected);
  step.checked = v.checked;
  step.max_error = v.max_error;
  step.tolerance = 0;
  step.status = v.ok ? check::StepStatus::pass : check::StepStatus::fail;
  step.detail = v.ok ? "fill and saxpy kernels from the JIT-linked module match the host bit for bit"
                     : std::to_string(static_cast<long>(v.max_error)) + " of " + std::to_string(n) +
                           " saxpy results differ from the host, first at element " + std::to_string(v.worst);
  if (!v.ok) step.error = step.detail;
  return step;
}

namespace {
std::string bytes_text(std::uint64_t bytes) {
  char buf[32];
  if (bytes >= (1ull << 30)) std::snprintf(buf, sizeof buf, "%.3g GiB", static_cast<double>(bytes) / (1ull << 30));
  else std::snprintf(buf, sizeof buf, "%.3g MiB", static_cast<double>(bytes) / (1ull << 20));
  return buf;
}
} // namespace

check::StepResult copy_step(StepContext& c) {
  check::StepResult step;
  step.name = "copy";
  std::uint64_t n = c.sizes.copy_bytes / 4, bytes = n * 4;
  step.size = bytes_text(bytes);
  step.unit = "byte";
  step.work = 2.0 * static_cast<double>(bytes); // read + write, as the H200 figure in docs/gpu-check.md counts
  DeviceBuffer src, dst;
  if (auto s = c.gpu.alloc(src, bytes, "copy source"); !s) return failed(step, s.error());
  if (auto s = c.gpu.alloc(dst, bytes, "copy destination"); !s) return failed(step, s.error());
  if (auto s = fill_f32(c, src.ptr(), n, keys::x()); !s) return failed(step, s.error());
  const DriverApi& api = c.gpu.api();
  auto times = c.gpu.time(c.sizes.warmups, c.sizes.reps, [&] {
    return cu_check("cuMemcpyDtoDAsync", api.cuMemcpyDtoDAsync(dst.ptr(), src.ptr(), bytes, c.gpu.stream()));
  });
  if (!times) return failed(step, times.error());
  step.times_ms = *times;
  auto positions = check::sample_positions(n, c.sizes.samples, 11);
  auto got = c.gpu.gather(dst.ptr(), positions);
  if (!got) return failed(step, got.error());
  std::vector<float> expected;
  for (auto p : positions) expected.push_back(check::element_value(keys::x(), static_cast<std::uint32_t>(p)));
  check::Validation v = check::validate_exact(*got, expected);
  step.checked = v.checked;
  step.max_error = v.max_error;
  step.tolerance = 0;
  step.status = v.ok ? check::StepStatus::pass : check::StepStatus::fail;
  step.detail = v.ok ? "cuMemcpyDtoDAsync; sampled words match the source" : "the copy's sampled words differ";
  if (!v.ok) step.error = step.detail;
  return step;
}

} // namespace condacuda::probe
