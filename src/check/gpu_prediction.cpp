#include "check/gpu_prediction.hpp"

#include <algorithm>

namespace condacuda::check {

std::vector<std::string> steps_running_kernels_of(Component c) {
  switch (c) {
  case Component::cublas:
  case Component::cublaslt: return {"gemm-bf16", "gemm-tf32", "gemm-fp32"};
  case Component::cusparse: return {"spmv", "spmm"};
  default: return {};
  }
}

bool says_no_kernel(const std::string& error) {
  for (const char* marker : {"ARCH_MISMATCH", "NO_BINARY_FOR_GPU", "no kernel image"})
    if (error.find(marker) != std::string::npos) return true;
  return false;
}

namespace {
// What the device did with the steps: ran one, refused for want of a kernel, failed otherwise, or nothing.
std::string observed(const ProbeResult& probe, const std::vector<std::string>& steps) {
  bool failed = false, no_kernel = false;
  for (const auto& name : steps) {
    const StepResult* s = probe.step(name);
    if (!s) continue;
    if (s->status == StepStatus::pass || s->status == StepStatus::warn) return "ran";
    if (s->status == StepStatus::fail) {
      failed = true;
      no_kernel = no_kernel || says_no_kernel(s->error);
    }
  }
  return no_kernel ? "no kernel image" : failed ? "failed" : "not run";
}

std::optional<bool> agreement(const doctor::Coverage& predicted, const std::string& seen) {
  const bool runs = predicted.kind != doctor::CoverageKind::none;
  if (seen == "ran") return runs;
  if (seen == "no kernel image") return !runs;
  return std::nullopt; // another failure, or nothing ran: no evidence about kernels
}
} // namespace

std::vector<CoverageComparison> compare_coverage(const ProbeResult& probe, const doctor::FatbinSource& fatbin_of,
                                                 const std::optional<std::string>& driver_ptx_isa) {
  std::vector<CoverageComparison> out;
  if (!probe.device) return out;
  const DeviceFacts& facts = probe.device->facts;
  doctor::Device device{"", facts.cc_major, facts.cc_minor};
  device.label = device.sm();
  for (const auto& lib : probe.libraries) {
    std::vector<std::string> steps = steps_running_kernels_of(lib.component);
    if (!lib.loaded || steps.empty() || lib.path.empty()) continue;
    auto code = fatbin_of(lib.path);
    if (!code || !code->has_section || code->entries.empty()) continue;
    CoverageComparison c;
    c.component = lib.component;
    c.file = lib.path;
    c.device = device.sm();
    c.predicted = doctor::coverage_for(*code, device, driver_ptx_isa);
    c.steps = std::move(steps);
    c.observed = observed(probe, c.steps);
    c.matches = agreement(c.predicted, c.observed);
    out.push_back(std::move(c));
  }
  return out;
}

std::optional<std::string> driver_ptx_isa(int cuda_driver_version, const doctor::GpuTable& table) {
  if (cuda_driver_version <= 0) return std::nullopt;
  const std::string cuda = std::to_string(cuda_driver_version / 1000) + "." + std::to_string((cuda_driver_version % 1000) / 10);
  // The newest branch that runs this CUDA version: its ISA is the driver's.
  std::optional<std::string> isa;
  for (const auto& d : table.drivers)
    if (d.cuda == cuda) isa = d.ptx_isa;
  return isa;
}

} // namespace condacuda::check
