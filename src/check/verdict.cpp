#include "check/verdict.hpp"

#include <algorithm>
#include <csignal>
#include <cstring>
#include <filesystem>

#include "check/cuda_names.hpp"
#include "util/strings.hpp"
#include "util/path.hpp"

namespace condacuda::check {

const char* to_string(Outcome o) {
  switch (o) {
  case Outcome::pass: return "pass";
  case Outcome::fail: return "fail";
  case Outcome::no_gpu: return "no-gpu";
  }
  return "fail";
}

std::string describe(const util::ChildOutcome& c, double timeout_s) {
  if (!c.started) return "could not be started: " + c.spawn_error;
  if (c.timed_out) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", timeout_s);
    return std::string("was killed after the ") + buf + " s timeout";
  }
  if (c.signal != 0) {
    const char* name = sigabbrev_np(c.signal);
    return "was killed by signal " + std::to_string(c.signal) + (name ? std::string(" (SIG") + name + ")" : "");
  }
  return "exited with " + std::to_string(c.exit_code);
}

std::vector<CheckWarning> environment_warnings(const std::vector<std::pair<std::string, std::string>>& environment) {
  std::vector<CheckWarning> out;
  for (const auto& [name, value] : environment) {
    if (name == "NVIDIA_TF32_OVERRIDE")
      out.push_back({"tf32-override", "NVIDIA_TF32_OVERRIDE=" + value +
                                          (value == "0" ? ": TF32 is disabled in cuBLAS and cuDNN, the TF32 GEMM runs as FP32"
                                                        : ": overrides the TF32 choice of cuBLAS and cuDNN")});
    else if (name == "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE")
      out.push_back({"tf32-override", name + "=" + value + ": PyTorch uses TF32 for every FP32 matmul"});
    else if (name == "CUBLAS_EMULATION_STRATEGY")
      out.push_back({"cublas-emulation", name + "=" + value + ": cuBLAS may emulate FP32 GEMMs with lower-precision tensor cores"});
    else if (name == "CUDA_LAUNCH_BLOCKING" && value != "0" && !value.empty())
      out.push_back({"launch-blocking", "CUDA_LAUNCH_BLOCKING=" + value + ": every launch waits for the GPU; timings are slower"});
    else if (name == "CUBLAS_WORKSPACE_CONFIG")
      out.push_back({"cublas-workspace", name + "=" + value + ": limits cuBLAS's workspace (determinism setting); GEMMs may run slower"});
    else if (name == "CUDA_VISIBLE_DEVICES")
      out.push_back({"visible-devices", "CUDA_VISIBLE_DEVICES=" + value + (value.empty() ? ": set but empty, so no device is visible"
                                                                                        : ": the check uses the first visible device")});
  }
  return out;
}

std::vector<CheckWarning> probe_warnings(const CheckReport& r) {
  std::vector<CheckWarning> out;
  if (r.probe.device && r.probe.device->persistence_mode && !*r.probe.device->persistence_mode)
    out.push_back({"persistence-off", "persistence mode is off: the driver tears the GPU down when no process uses it, "
                                      "so every start pays for cuInit again (nvidia-smi -pm 1, or nvidia-persistenced)"});
  for (const auto& c : r.library_comparisons)
    if (!c.matches)
      out.push_back({"prediction-mismatch", std::string(to_string(c.component)) + ": " + c.difference +
                                                " (the loader model disagrees with the real loader: please report it)"});
  if (r.objects.compared && !r.objects.matches) {
    std::string what;
    for (const auto& p : r.objects.only_in_probe) what += " +" + p;
    for (const auto& p : r.objects.only_in_prediction) what += " -" + p;
    out.push_back({"prediction-mismatch", "the probe's loaded objects differ from the prediction:" + what +
                                              " (please report it)"});
  }
  for (const auto& c : r.coverage)
    if (c.matches && !*c.matches)
      out.push_back({"prediction-mismatch",
                     std::string(to_string(c.component)) + ": " + c.file + " was predicted to " +
                         (c.predicted.kind == doctor::CoverageKind::none ? "have no kernel for " + c.device
                                                                         : "run on " + c.device + " through " + c.predicted.target) +
                         ", but its steps (" + util::join(c.steps, ", ") + ") " +
                         (c.observed == "ran" ? "ran" : "found no kernel image") +
                         " (the coverage rules disagree with the device: please report it)"});
  if (r.ld_library_path_source == launch::ActivatedSource::plan)
    out.push_back({"not-repaired", "the env is not repaired: the probe ran with " + util::join(r.planned_folders, ", ") +
                                       " first, the folders `condacuda repair` would add (as `condacuda run` does); "
                                       "`condacuda check --as-is` checks this shell as it is"});
  for (const auto& m : r.plan.missing)
    out.push_back({"missing-library", "the env has no " + m + " library: its steps are skipped"});
  return out;
}

std::vector<std::string> searched_folders(const PlannedLibrary& planned) {
  // ld.so tries a folder's hwcaps subfolders (glibc-hwcaps/x86-64-v3, legacy
  // tls/x86_64, ...) right before the folder itself: walking backwards, a
  // folder is folded into the one after it when it lies under it by such a
  // subfolder, so only the folders of the search path remain.
  static const char* const hwcaps_heads[] = {"glibc-hwcaps", "tls", "x86_64", "haswell", "xeon_phi", "avx512_1"};
  auto under = [](const std::string& dir, const std::string& base) {
    if (dir.size() <= base.size() + 1 || dir.compare(0, base.size(), base) != 0 || dir[base.size()] != '/') return false;
    std::string head = dir.substr(base.size() + 1, dir.find('/', base.size() + 1) - base.size() - 1);
    return std::any_of(std::begin(hwcaps_heads), std::end(hwcaps_heads), [&](const char* h) { return head == h; });
  };
  std::vector<std::string> out;
  std::string base;
  for (auto it = planned.tried.rbegin(); it != planned.tried.rend(); ++it) {
    std::string dir = std::filesystem::path(*it).parent_path().string();
    if (!base.empty() && (dir == base || under(dir, base))) continue;
    base = dir;
    if (std::find(out.begin(), out.end(), dir) == out.end()) out.push_back(dir);
  }
  std::reverse(out.begin(), out.end());
  return out;
}

StepRates step_rates(const StepResult& step, const ProbeResult& probe) {
  StepRates r;
  double ms = step.median_ms();
  if (step.times_ms.empty() || ms <= 0 || step.work <= 0) return r;
  DeviceFacts facts = probe.device ? probe.device->facts : DeviceFacts{};
  if (step.unit == "flop") {
    r.rate = tflops(step.work, ms);
    r.unit = "TFLOP/s";
    Precision p = step.name == "gemm-bf16" ? Precision::bf16_tensor
                  : step.name == "gemm-tf32" ? Precision::tf32_tensor
                                             : Precision::fp32;
    r.peak = peak_tflops(p, facts);
  } else if (step.unit == "byte") {
    r.rate = gbs(step.work, ms);
    r.unit = "GB/s";
    r.peak = peak_bandwidth_gbs(facts);
    const StepResult* copy = probe.step("copy");
    if (step.name != "copy" && copy && copy->status == StepStatus::pass && !copy->times_ms.empty())
      r.of_copy = fraction(*r.rate, gbs(copy->work, copy->median_ms()));
  }
  r.of_peak = r.rate ? fraction(*r.rate, r.peak) : std::nullopt;
  return r;
}

namespace {
const PlannedLibrary* planned_driver(const ProbePlan& plan) {
  for (const auto& l : plan.libraries)
    if (l.request.component == Component::driver) return &l;
  return nullptr;
}

std::string no_driver_reason(const CheckReport& r, const LibraryLoad& drv) {
  std::string reason = "no usable GPU: libcuda.so.1 (the NVIDIA driver) was not found";
  if (const PlannedLibrary* p = planned_driver(r.plan)) {
    auto dirs = searched_folders(*p);
    reason += dirs.empty() ? "; the loader looked in /etc/ld.so.cache only"
                           : "; the loader looked in " + util::join(dirs, ", ") + " and /etc/ld.so.cache";
  }
  reason += " (" + drv.error + ")";
  for (const auto& s : r.stub_folders)
    reason += "; " + s + " on LD_LIBRARY_PATH holds the CUDA toolkit's stub libcuda.so, which is for linking only and is no driver";
  return reason;
}

std::string stub_reason(const CheckReport& r, const LibraryLoad& drv) {
  std::string reason = "no usable GPU: cuInit returned CUDA_ERROR_STUB_LIBRARY (34): the libcuda.so.1 that loaded, " +
                       drv.path + ", is the CUDA toolkit's link-time stub, not the driver";
  const PlannedLibrary* p = planned_driver(r.plan);
  if (p && p->predicted_via == std::string(loader::to_string(loader::FoundVia::ld_library_path)))
    reason += "; it was found through the LD_LIBRARY_PATH entry " + p->predicted_entry + ": remove that stubs folder from LD_LIBRARY_PATH";
  else if (p && !p->predicted_via.empty())
    reason += " (found via " + p->predicted_via + ")";
  return reason;
}

std::string init_reason(const ProbeResult& probe) {
  int code = probe.driver.init_result;
  std::string reason = "no usable GPU: cuInit returned " + cu_result_name(code) + " (" + std::to_string(code) + ")";
  std::string hint = cu_init_hint(code);
  return hint.empty() ? reason : reason + ": " + hint;
}

// The first step that failed, or nullptr.
const StepResult* failed_step(const ProbeResult& probe) {
  for (const auto& s : probe.steps)
    if (s.status == StepStatus::fail) return &s;
  return nullptr;
}

bool driver_not_ready(const CheckReport& r) {
  const StepResult* d = r.probe.step("driver");
  return !r.probe.device || (d && d->status != StepStatus::pass);
}
} // namespace

namespace {
// Where the probe stopped when it did not finish: "during step gemm-bf16",
// "while opening /x/libcudart.so.13", or "".
std::string where_it_stopped(const CheckReport& r) {
  if (r.probe.in_progress == "driver")
    return r.probe.driver.init_called && r.probe.driver.init_result == 0
               ? " during step driver, after cuInit succeeded (device discovery, attributes or the context)"
               : " during step driver, in cuInit";
  if (!r.probe.in_progress.empty()) return " during step " + r.probe.in_progress;
  if (r.probe.loaded_objects.empty() && r.probe.libraries.size() < r.plan.libraries.size())
    return " while opening " + r.plan.libraries[r.probe.libraries.size()].request.open;
  return "";
}

std::string failed_libraries(const ProbeResult& probe) {
  std::vector<std::string> names;
  for (const auto& l : probe.libraries)
    if (!l.loaded && l.component != Component::driver) names.push_back(util::base_name(l.open));
  return util::join(names, ", ");
}

// The driver rule: a CUDA N toolkit library needs a driver that supports CUDA
// N (cuDriverGetVersion / 1000 >= N; minor versions are compatible within a
// major). "" when it does.
std::string driver_too_old(const CheckReport& r) {
  int version = r.probe.driver.version, major = r.plan.cuda_major;
  if (version <= 0 || major <= 0 || version / 1000 >= major) return "";
  return "driver-too-old: the driver supports CUDA " + std::to_string(version / 1000) + "." +
         std::to_string(version % 1000 / 10) + ", the env's libraries are CUDA " + std::to_string(major) +
         " and need a driver for CUDA " + std::to_string(major) + " or later";
}

// The no-GPU verdicts, from what the probe reported; "" when the GPU was usable.
std::string no_gpu_reason(const CheckReport& r, bool died) {
  const ProbeResult& probe = r.probe;
  const LibraryLoad* drv = probe.library(Component::driver);
  if (drv && !drv->loaded) return no_driver_reason(r, *drv);
  if (probe.driver.init_called && probe.driver.init_result == cu::stub_library && drv) return stub_reason(r, *drv);
  if (probe.driver.init_called && probe.driver.init_result != cu::success) return init_reason(probe);
  // A crash or hang inside the driver step, a device found whose attributes
  // or context then fail, a driver that lacks entry points: failures (exit 1,
  // what happened), never "no GPU" — a bug in the driver code of the probe,
  // never run on a GPU before, must not read as a missing GPU.
  if (died) return "";
  if (driver_not_ready(r)) {
    const StepResult* d = probe.step("driver");
    if (probe.device || (d && d->error.starts_with("the driver lacks"))) return "";
    return "no usable GPU: " + (d && !d->error.empty() ? d->error : std::string("no device"));
  }
  return "";
}
} // namespace

void decide(CheckReport& r) {
  r.outcome = Outcome::fail;
  if (!r.child.started) {
    r.reason = "the probe " + describe(r.child, r.timeout_s);
    return;
  }
  const ProbeResult& probe = r.probe;
  bool died = !probe.finished;
  // --link-only runs no driver step: its verdict is the link's (pass, or
  // fail with the link's error), never "no GPU".
  if (const StepResult* link = probe.step("jit-link"); !r.link_only_arch.empty() && !died && link) {
    if (link->status == StepStatus::pass) {
      r.outcome = Outcome::pass;
      r.reason = "the PTX module linked for " + r.link_only_arch + " (--link-only: no driver step)";
    } else {
      r.reason = "jit-link for " + r.link_only_arch + ": " + (link->error.empty() ? link->detail : link->error);
    }
    return;
  }
  std::string death = died ? "the probe " + describe(r.child, r.timeout_s) + where_it_stopped(r) : "";
  if (std::string no_gpu = no_gpu_reason(r, died); !no_gpu.empty()) {
    r.outcome = Outcome::no_gpu;
    r.reason = no_gpu;
    if (std::string libs = failed_libraries(probe); !libs.empty()) r.reason += "; besides, " + libs + " did not load";
    for (const auto& p : r.python)
      if (p.status == FrameworkStatus::fail) r.reason += "; besides, python: " + p.framework + " failed";
    if (died && probe.in_progress != "driver") r.reason += "; " + death;
    return;
  }
  if (std::string old = driver_too_old(r); !old.empty()) {
    r.reason = old;
    return;
  }
  if (died) {
    r.reason = death;
    return;
  }
  for (const auto& l : probe.libraries)
    if (!l.loaded) {
      r.reason = l.open + " did not load: " + l.error;
      return;
    }
  if (const StepResult* s = failed_step(probe)) {
    r.reason = "step " + s->name + " failed: " + (s->error.empty() ? s->detail : s->error);
    return;
  }
  for (const auto& p : r.python)
    if (p.status == FrameworkStatus::fail) {
      r.reason = "python: " + p.framework + ": " + p.error;
      return;
    }
  r.outcome = Outcome::pass;
  r.reason = "every step passed";
}

} // namespace condacuda::check
