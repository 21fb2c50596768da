#include "probe/probe.hpp"

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <unistd.h>

#include "check/cuda_names.hpp"
#include "check/protocol.hpp"
#include "check/ptx.hpp"
#include "probe/jit.hpp"
#include "util/strings.hpp"
#include "probe/libraries.hpp"
#include "probe/steps.hpp"

namespace condacuda::probe {

namespace {
using check::Component;
using check::StepResult;
using check::StepStatus;

class Emitter {
public:
  explicit Emitter(int fd) : fd_(fd) {}
  // One line, written at once: the parent may be reading while we die.
  void emit(const util::Json& record) const {
    std::string line = record.dump(-1) + "\n";
    const char* p = line.data();
    std::size_t left = line.size();
    while (left > 0) {
      ssize_t n = ::write(fd_, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return; // the parent went away: nothing to tell
      p += n;
      left -= static_cast<std::size_t>(n);
    }
  }
  void step(const StepResult& s) const { emit(check::step_record(s)); }
  void phase(const std::string& name, double ms) const { emit(check::phase_record({name, ms})); }
  void skipped(const std::string& name, const std::string& why) const {
    StepResult s;
    s.name = name;
    s.status = StepStatus::skipped;
    s.detail = why;
    step(s);
  }

private:
  int fd_;
};

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

std::string dotted(long major, long minor, long patch = -1) {
  std::string v = std::to_string(major) + "." + std::to_string(minor);
  return patch >= 0 ? v + "." + std::to_string(patch) : v;
}

// The library's own version, from calls that load nothing else.
std::string library_version(const OpenLibrary& lib) {
  void* h = lib.handle;
  switch (lib.load.component) {
  case Component::cudart: {
    RuntimeApi rt;
    int v = 0;
    if (resolve(h, "cudaRuntimeGetVersion", rt.cudaRuntimeGetVersion) && rt.cudaRuntimeGetVersion(&v) == 0)
      return dotted(v / 1000, (v % 1000) / 10);
    return "";
  }
  case Component::cublaslt: {
    BlasLtApi lt;
    if (!resolve(h, "cublasLtGetVersion", lt.cublasLtGetVersion)) return "";
    auto v = static_cast<long>(lt.cublasLtGetVersion()); // major*10000 + minor*100 + patch
    return dotted(v / 10000, (v / 100) % 100, v % 100);
  }
  case Component::cublas:
  case Component::cusparse: {
    int (*property)(int, int*) = nullptr;
    if (!resolve(h, lib.load.component == Component::cublas ? "cublasGetProperty" : "cusparseGetProperty", property))
      return "";
    int major = 0, minor = 0, patch = 0;
    if (property(major_version, &major) || property(minor_version, &minor) || property(patch_level, &patch)) return "";
    return dotted(major, minor, patch);
  }
  case Component::nvjitlink: return jit_version(resolve_jit(h).api);
  case Component::driver: return "";
  }
  return "";
}

struct Libraries {
  std::vector<OpenLibrary> open;
  void* handle(Component c) const {
    for (const auto& l : open)
      if (l.load.component == c) return l.handle;
    return nullptr;
  }
  bool requested(Component c) const {
    for (const auto& l : open)
      if (l.load.component == c) return true;
    return false;
  }
};

Libraries open_all(const check::ProbeRequest& request, const Emitter& out) {
  Libraries libs;
  for (const auto& r : request.libraries) {
    OpenLibrary lib = open_library(r);
    if (lib.handle) lib.load.version = library_version(lib);
    out.emit(check::library_record(lib.load));
    libs.open.push_back(std::move(lib));
  }
  out.emit(check::objects_record(loaded_objects()));
  return libs;
}

// Links the module; the step result says how it went.
Result<LinkedCubin> jit_link(void* nvjitlink, const std::string& arch, StepResult& step, const Emitter& out) {
  step.name = "jit-link";
  JitResolution jit = resolve_jit(nvjitlink);
  if (!jit.missing.empty())
    return make_error(ErrorCode::internal, "libnvJitLink lacks " + jit.missing.front() + " (tried plain, _13_0, _12_0 names)");
  std::string option = "-arch=" + arch;
  const std::string version = jit_version(jit.api);
  const int major = version.empty() ? 12 : util::leading_number(version); // no version: 12.0-12.2
  const std::string ptx = check::probe_ptx(major);
  auto linked = link_ptx(jit.api, ptx, option);
  if (!linked) return linked.error();
  out.phase("nvJitLink link", linked->link_ms);
  for (const char* k : check::all_kernels)
    if (!cubin_names(linked->image, k))
      return make_error(ErrorCode::internal, std::string("the linked cubin has no kernel ") + k);
  step.size = std::to_string(linked->image.size()) + " bytes cubin";
  step.detail = "PTX (.target " + std::string(check::ptx_target_for(major)) + ") linked for " + arch + " by nvJitLink " +
                version + " (" + jit.naming + " entry points)";
  return linked;
}

void link_only(const check::ProbeRequest& request, const Libraries& libs, const Emitter& out) {
  out.emit(check::begin_record("jit-link"));
  StepResult step;
  void* h = libs.handle(Component::nvjitlink);
  if (!h) return out.skipped("jit-link", "libnvJitLink did not load");
  auto linked = jit_link(h, request.link_only_arch, step, out);
  if (!linked) return out.step(failed(step, linked.error()));
  step.status = StepStatus::pass;
  out.step(step);
}

// The steps that need the device, from an open Gpu on.
class GpuSteps {
public:
  GpuSteps(Gpu& gpu, const check::ProbeRequest& request, const Libraries& libs, const Emitter& out)
      : gpu_(gpu), request_(request), libs_(libs), out_(out) {}

  void run(const check::DeviceInfo& device) {
    Module module(gpu_.api());
    Kernels kernels;
    bool jit_ok = link_and_load(device, module, kernels);
    StepContext ctx{gpu_, kernels, request_.sizes};
    const std::string no_jit = "needs the JIT-linked kernels (they generate its data on the device)";
    std::string why = jit_ok ? "" : no_jit;
    run_step("kernel", why, "", [&] { return kernel_step(ctx); });
    run_step("copy", why, "", [&] { return copy_step(ctx); });
    blas_steps(ctx, jit_ok, no_jit);
    sparse_steps(ctx, jit_ok, no_jit);
  }

private:
  Gpu& gpu_;
  const check::ProbeRequest& request_;
  const Libraries& libs_;
  const Emitter& out_;

  // Skipped when `why_not` says so, failed with `error` when the library's
  // handle could not be made, else run.
  template <class Fn>
  void run_step(const std::string& name, const std::string& why_not, const std::string& error, Fn&& fn) {
    if (!why_not.empty()) return out_.skipped(name, why_not);
    StepResult s;
    s.name = name;
    if (!error.empty()) return out_.step(failed(s, make_error(ErrorCode::internal, error)));
    out_.emit(check::begin_record(name));
    out_.step(fn());
  }

  bool link_and_load(const check::DeviceInfo& device, Module& module, Kernels& kernels) {
    void* h = libs_.handle(Component::nvjitlink);
    if (!h) {
      out_.skipped("jit-link", libs_.requested(Component::nvjitlink) ? "libnvJitLink did not load" : "the env has no nvJitLink");
      return false;
    }
    out_.emit(check::begin_record("jit-link"));
    StepResult step;
    std::string arch = "sm_" + std::to_string(device.facts.cc_major) + std::to_string(device.facts.cc_minor);
    auto linked = jit_link(h, arch, step, out_);
    if (!linked) return out_.step(failed(step, linked.error())), false;
    auto start = std::chrono::steady_clock::now();
    // The cubin, not the PTX, goes to the driver: no driver-side PTX version check (docs/gpu-check.md).
    if (auto s = module.load(linked->image); !s) return out_.step(failed(step, s.error())), false;
    CUfunction* slots[] = {&kernels.fill_f32, &kernels.fill_bf16, &kernels.fill_csr, &kernels.saxpy, &kernels.count_diff};
    for (std::size_t i = 0; i < check::all_kernels.size(); ++i) {
      auto f = module.function(check::all_kernels[i]);
      if (!f) return out_.step(failed(step, f.error())), false;
      *slots[i] = *f;
    }
    out_.phase("module load", ms_since(start));
    step.status = StepStatus::pass;
    out_.step(step);
    return true;
  }

  void blas_steps(StepContext& ctx, bool jit_ok, const std::string& no_jit);
  void sparse_steps(StepContext& ctx, bool jit_ok, const std::string& no_jit);
};

// Why a library's steps cannot run at all ("" when they can).
std::string skip_reason(const Libraries& libs, Component c, bool jit_ok, const std::string& no_jit, const char* what) {
  if (!jit_ok) return no_jit;
  if (libs.handle(c)) return "";
  return libs.requested(c) ? std::string("lib") + what + " did not load" : std::string("the env has no ") + what;
}

void GpuSteps::blas_steps(StepContext& ctx, bool jit_ok, const std::string& no_jit) {
  std::string why = skip_reason(libs_, Component::cublas, jit_ok, no_jit, "cublas");
  std::string error; // the handle could not be made: each GEMM step fails with it
  BlasApi blas;
  cublasHandle_t handle = nullptr;
  if (why.empty()) {
    void* h = libs_.handle(Component::cublas);
    if (!resolve(h, "cublasCreate_v2", blas.cublasCreate) || !resolve(h, "cublasDestroy_v2", blas.cublasDestroy) ||
        !resolve(h, "cublasSetStream_v2", blas.cublasSetStream) || !resolve(h, "cublasGemmEx", blas.cublasGemmEx)) {
      error = "libcublas lacks cublasCreate_v2, cublasDestroy_v2, cublasSetStream_v2 or cublasGemmEx";
    } else {
      auto start = std::chrono::steady_clock::now();
      int s = blas.cublasCreate(&handle);
      out_.phase("cublasCreate", ms_since(start));
      if (s != 0) error = "cublasCreate_v2: " + check::cublas_status_name(s), handle = nullptr;
      else if ((s = blas.cublasSetStream(handle, gpu_.stream())) != 0)
        error = "cublasSetStream_v2: " + check::cublas_status_name(s);
    }
  }
  for (GemmKind k : {GemmKind::bf16, GemmKind::tf32, GemmKind::fp32_pedantic})
    run_step(step_name(k), why, error, [&] { return gemm_step(ctx, blas, handle, k); });
  if (handle) blas.cublasDestroy(handle);
}

void GpuSteps::sparse_steps(StepContext& ctx, bool jit_ok, const std::string& no_jit) {
  std::string why = skip_reason(libs_, Component::cusparse, jit_ok, no_jit, "cusparse");
  std::string error;
  SparseApi sp;
  cusparseHandle_t handle = nullptr;
  if (why.empty()) {
    void* h = libs_.handle(Component::cusparse);
    bool resolved = resolve(h, "cusparseCreate", sp.cusparseCreate) && resolve(h, "cusparseDestroy", sp.cusparseDestroy) &&
                    resolve(h, "cusparseSetStream", sp.cusparseSetStream) &&
                    resolve(h, "cusparseCreateCsr", sp.cusparseCreateCsr) &&
                    resolve(h, "cusparseCreateDnVec", sp.cusparseCreateDnVec) &&
                    resolve(h, "cusparseCreateDnMat", sp.cusparseCreateDnMat) &&
                    resolve(h, "cusparseDestroySpMat", sp.cusparseDestroySpMat) &&
                    resolve(h, "cusparseDestroyDnVec", sp.cusparseDestroyDnVec) &&
                    resolve(h, "cusparseDestroyDnMat", sp.cusparseDestroyDnMat) &&
                    resolve(h, "cusparseSpMV_bufferSize", sp.cusparseSpMV_bufferSize) &&
                    resolve(h, "cusparseSpMV", sp.cusparseSpMV) &&
                    resolve(h, "cusparseSpMM_bufferSize", sp.cusparseSpMM_bufferSize) &&
                    resolve(h, "cusparseSpMM", sp.cusparseSpMM);
    if (!resolved) {
      error = "libcusparse lacks an entry point of the generic API";
    } else {
      auto start = std::chrono::steady_clock::now();
      int s = sp.cusparseCreate(&handle);
      out_.phase("cusparseCreate", ms_since(start));
      if (s != 0) error = "cusparseCreate: " + check::cusparse_status_name(s), handle = nullptr;
      else if ((s = sp.cusparseSetStream(handle, gpu_.stream())) != 0)
        error = "cusparseSetStream: " + check::cusparse_status_name(s);
    }
  }
  run_step("spmv", why, error, [&] { return spmv_step(ctx, sp, handle); });
  run_step("spmm", why, error, [&] { return spmm_step(ctx, sp, handle); });
  if (handle) sp.cusparseDestroy(handle);
}

void skip_device_steps(const Emitter& out, const std::string& why) {
  for (const char* name : {"jit-link", "kernel", "copy", "gemm-bf16", "gemm-tf32", "gemm-fp32", "spmv", "spmm"})
    out.skipped(name, why);
}

// Loads nothing new: cuInit through the opened libcuda.so.1, the driver
// record, and the entry points. nullopt when the driver is not usable (the
// failed "driver" step is emitted, or skipped when libcuda did not load).
std::optional<DriverApi> start_driver(const Libraries& libs, const Emitter& out, StepResult& step, check::DriverInfo& info) {
  step.name = "driver";
  void* libcuda = libs.handle(Component::driver);
  if (!libcuda) {
    out.skipped("driver", "libcuda.so.1 did not load");
    return std::nullopt;
  }
  out.emit(check::begin_record("driver"));
  // cuInit and cuDriverGetVersion are plain symbols in every driver (and in
  // the stub, where both return 34); the rest is resolved once cuInit worked.
  DriverApi boot;
  if (resolve(libcuda, "cuInit", boot.cuInit) && resolve(libcuda, "cuDriverGetVersion", boot.cuDriverGetVersion)) {
    boot.cuDriverGetVersion(&info.version);
    auto start = std::chrono::steady_clock::now();
    info.init_called = true;
    info.init_result = boot.cuInit(0);
    out.phase("cuInit", ms_since(start));
  }
  DriverResolution d;
  if (info.init_called && info.init_result == 0) d = resolve_driver(libcuda);
  info.proc_address = d.proc_address;
  out.emit(check::driver_record(info));
  if (!info.init_called || info.init_result != 0 || !d.missing.empty()) {
    std::string why = !info.init_called ? "libcuda.so.1 has no cuInit"
                      : info.init_result != 0 ? cu_error("cuInit", info.init_result)
                                              : "the driver lacks " + d.missing.front();
    out.step(failed(step, make_error(ErrorCode::internal, why)));
    return std::nullopt;
  }
  return d.api;
}

// doctor --gpu auto where /proc does not list the GPUs: every device's
// facts, one "device" record each, without creating a context.
void list_devices(const Libraries& libs, const Emitter& out) {
  StepResult step;
  check::DriverInfo info;
  auto api = start_driver(libs, out, step, info);
  if (!api) return;
  check::DeviceInfo first;
  CUdevice handle{};
  Status s = describe_device(*api, 0, first, handle);
  for (int i = 0; s && i < first.count; ++i) {
    check::DeviceInfo device;
    s = i == 0 ? (device = first, ok_status()) : describe_device(*api, i, device, handle);
    if (s) out.emit(check::device_record(device));
  }
  if (!s) return out.step(failed(step, s.error()));
  step.status = StepStatus::pass;
  step.detail = std::to_string(first.count) + " device(s)";
  out.step(step);
}

// cuInit, the device, the primary context, then every step.
void run_driver(const check::ProbeRequest& request, const Libraries& libs, const Emitter& out) {
  StepResult step;
  check::DriverInfo info;
  auto api = start_driver(libs, out, step, info);
  if (!api) return skip_device_steps(out, libs.handle(Component::driver) ? "the driver is not usable" : "no driver");
  Gpu gpu(*api);
  check::DeviceInfo device;
  std::vector<check::Phase> phases;
  Status opened = gpu.open(request.device, device, phases);
  if (opened && !device.pci_bus_id.empty()) device.persistence_mode = persistence_mode(device.pci_bus_id);
  for (const auto& p : phases) out.phase(p.name, p.ms);
  if (device.count > request.device) out.emit(check::device_record(device));
  if (!opened) {
    out.step(failed(step, opened.error()));
    return skip_device_steps(out, "no usable device");
  }
  step.status = StepStatus::pass;
  step.detail = "driver " + std::to_string(info.version / 1000) + "." + std::to_string(info.version % 1000 / 10) + ", " +
                device.name + " (sm_" + std::to_string(device.facts.cc_major) + std::to_string(device.facts.cc_minor) + ")";
  out.step(step);
  GpuSteps(gpu, request, libs, out).run(device);
}
} // namespace

int run_probe(const check::ProbeRequest& request, int out_fd) {
  Emitter out(out_fd);
  const char* llp = std::getenv("LD_LIBRARY_PATH");
  out.emit(check::start_record(llp ? std::optional<std::string>(llp) : std::nullopt));
  Libraries libs = open_all(request, out);
  if (!request.link_only_arch.empty()) link_only(request, libs, out);
  else if (request.devices_only) list_devices(libs, out);
  else run_driver(request, libs, out);
  out.emit(check::end_record());
  return 0;
}

int run_probe_on_stdout(const check::ProbeRequest& request) {
  int records = ::dup(STDOUT_FILENO);
  if (records < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) return run_probe(request, STDOUT_FILENO);
  int status = run_probe(request, records);
  ::close(records);
  return status;
}

} // namespace condacuda::probe
