#include "probe/driver.hpp"

#include <algorithm>
#include <chrono>
#include <dlfcn.h>

#include "check/cuda_names.hpp"
#include "probe/libraries.hpp"

namespace condacuda::probe {

std::string cu_error(const std::string& call, CUresult r) {
  return call + ": " + check::cu_result_name(r) + " (" + std::to_string(r) + ")";
}

Status cu_check(const std::string& call, CUresult r) {
  if (r == 0) return ok_status();
  return make_error(ErrorCode::internal, cu_error(call, r));
}

namespace {
using GetProcAddress = CUresult (*)(const char* name, void** fn, int cuda_version, unsigned long long flags,
                                    int* status);

// Resolves one entry point: through cuGetProcAddress_v2 at the 12.0 ABI, else
// dlsym of `fallback` (its explicit versioned name).
template <class Fn>
void entry(DriverResolution& d, void* lib, GetProcAddress gpa, const char* name, const char* fallback, Fn& out) {
  void* fn = nullptr;
  int status = -1;
  if (gpa && gpa(name, &fn, requested_cuda_version, 0, &status) == 0 && status == 0 && fn)
    out = reinterpret_cast<Fn>(fn);
  else
    resolve(lib, fallback, out);
  if (!out) d.missing.push_back(name);
}
} // namespace

DriverResolution resolve_driver(void* lib) {
  DriverResolution d;
  DriverApi& a = d.api;
  if (!resolve(lib, "cuInit", a.cuInit)) d.missing.push_back("cuInit");
  if (!resolve(lib, "cuDriverGetVersion", a.cuDriverGetVersion)) d.missing.push_back("cuDriverGetVersion");
  resolve(lib, "cuGetErrorName", a.cuGetErrorName);
  GetProcAddress gpa = nullptr;
  resolve(lib, "cuGetProcAddress_v2", gpa);
  d.proc_address = gpa != nullptr;
  entry(d, lib, gpa, "cuDeviceGetCount", "cuDeviceGetCount", a.cuDeviceGetCount);
  entry(d, lib, gpa, "cuDeviceGet", "cuDeviceGet", a.cuDeviceGet);
  entry(d, lib, gpa, "cuDeviceGetName", "cuDeviceGetName", a.cuDeviceGetName);
  entry(d, lib, gpa, "cuDeviceGetAttribute", "cuDeviceGetAttribute", a.cuDeviceGetAttribute);
  entry(d, lib, gpa, "cuDeviceTotalMem", "cuDeviceTotalMem_v2", a.cuDeviceTotalMem);
  entry(d, lib, gpa, "cuDeviceGetPCIBusId", "cuDeviceGetPCIBusId", a.cuDeviceGetPCIBusId);
  entry(d, lib, gpa, "cuDevicePrimaryCtxRetain", "cuDevicePrimaryCtxRetain", a.cuDevicePrimaryCtxRetain);
  entry(d, lib, gpa, "cuDevicePrimaryCtxRelease", "cuDevicePrimaryCtxRelease_v2", a.cuDevicePrimaryCtxRelease);
  entry(d, lib, gpa, "cuCtxSetCurrent", "cuCtxSetCurrent", a.cuCtxSetCurrent);
  entry(d, lib, gpa, "cuMemAlloc", "cuMemAlloc_v2", a.cuMemAlloc);
  entry(d, lib, gpa, "cuMemFree", "cuMemFree_v2", a.cuMemFree);
  entry(d, lib, gpa, "cuMemcpyDtoH", "cuMemcpyDtoH_v2", a.cuMemcpyDtoH);
  entry(d, lib, gpa, "cuMemcpyDtoDAsync", "cuMemcpyDtoDAsync_v2", a.cuMemcpyDtoDAsync);
  entry(d, lib, gpa, "cuMemsetD32Async", "cuMemsetD32Async", a.cuMemsetD32Async);
  entry(d, lib, gpa, "cuStreamCreate", "cuStreamCreate", a.cuStreamCreate);
  entry(d, lib, gpa, "cuStreamDestroy", "cuStreamDestroy_v2", a.cuStreamDestroy);
  entry(d, lib, gpa, "cuStreamSynchronize", "cuStreamSynchronize", a.cuStreamSynchronize);
  entry(d, lib, gpa, "cuEventCreate", "cuEventCreate", a.cuEventCreate);
  entry(d, lib, gpa, "cuEventRecord", "cuEventRecord", a.cuEventRecord);
  entry(d, lib, gpa, "cuEventSynchronize", "cuEventSynchronize", a.cuEventSynchronize);
  entry(d, lib, gpa, "cuEventElapsedTime", "cuEventElapsedTime", a.cuEventElapsedTime);
  entry(d, lib, gpa, "cuEventDestroy", "cuEventDestroy_v2", a.cuEventDestroy);
  entry(d, lib, gpa, "cuModuleLoadData", "cuModuleLoadData", a.cuModuleLoadData);
  entry(d, lib, gpa, "cuModuleUnload", "cuModuleUnload", a.cuModuleUnload);
  entry(d, lib, gpa, "cuModuleGetFunction", "cuModuleGetFunction", a.cuModuleGetFunction);
  entry(d, lib, gpa, "cuLaunchKernel", "cuLaunchKernel", a.cuLaunchKernel);
  return d;
}

std::optional<bool> persistence_mode(const std::string& pci_bus_id) {
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  NvmlApi n;
  if (!lib || !resolve(lib, "nvmlInit_v2", n.init) || !resolve(lib, "nvmlShutdown", n.shutdown) ||
      !resolve(lib, "nvmlDeviceGetHandleByPciBusId_v2", n.handle_by_pci_bus_id) ||
      !resolve(lib, "nvmlDeviceGetPersistenceMode", n.persistence_mode))
    return std::nullopt;
  if (n.init() != 0) return std::nullopt;
  std::optional<bool> out;
  nvmlDevice_t device = nullptr;
  int mode = 0;
  if (n.handle_by_pci_bus_id(pci_bus_id.c_str(), &device) == 0 && n.persistence_mode(device, &mode) == 0)
    out = mode == 1; // NVML_FEATURE_ENABLED
  n.shutdown();
  return out;
}

DeviceBuffer::~DeviceBuffer() {
  if (api_ && ptr_) api_->cuMemFree(ptr_);
}

namespace {
double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}
} // namespace

Status describe_device(const DriverApi& a, int ordinal, check::DeviceInfo& info, CUdevice& device) {
  if (auto s = cu_check("cuDeviceGetCount", a.cuDeviceGetCount(&info.count)); !s) return s;
  if (info.count <= ordinal)
    return make_error(ErrorCode::not_found, "the driver sees " + std::to_string(info.count) + " device(s); device " +
                                                std::to_string(ordinal) + " does not exist");
  info.ordinal = ordinal;
  if (auto s = cu_check("cuDeviceGet", a.cuDeviceGet(&device, ordinal)); !s) return s;
  char text[256] = {};
  if (a.cuDeviceGetName(text, sizeof text - 1, device) == 0) info.name = text;
  char bus[64] = {};
  if (a.cuDeviceGetPCIBusId(bus, sizeof bus - 1, device) == 0) info.pci_bus_id = bus;
  struct {
    int attribute;
    int* out;
  } attributes[] = {{attr::compute_capability_major, &info.facts.cc_major},
                    {attr::compute_capability_minor, &info.facts.cc_minor},
                    {attr::multiprocessor_count, &info.facts.sms},
                    {attr::clock_rate, &info.facts.clock_khz},
                    {attr::memory_clock_rate, &info.facts.memory_clock_khz},
                    {attr::global_memory_bus_width, &info.facts.bus_width_bits},
                    {attr::l2_cache_size, &info.l2_bytes}};
  for (auto& e : attributes)
    if (auto s = cu_check("cuDeviceGetAttribute(" + std::to_string(e.attribute) + ")",
                          a.cuDeviceGetAttribute(e.out, e.attribute, device));
        !s)
      return s;
  std::size_t total = 0;
  if (a.cuDeviceTotalMem(&total, device) == 0) info.total_memory = total;
  return ok_status();
}

Status Gpu::open(int ordinal, check::DeviceInfo& info, std::vector<check::Phase>& phases) {
  const DriverApi& a = api_;
  if (auto s = describe_device(a, ordinal, info, device_); !s) return s;
  sms_ = std::max(1, info.facts.sms);
  auto start = std::chrono::steady_clock::now();
  CUcontext ctx = nullptr;
  if (auto s = cu_check("cuDevicePrimaryCtxRetain", a.cuDevicePrimaryCtxRetain(&ctx, device_)); !s) return s;
  retained_ = true;
  if (auto s = cu_check("cuCtxSetCurrent", a.cuCtxSetCurrent(ctx)); !s) return s;
  phases.push_back({"primary context", ms_since(start)});
  if (auto s = cu_check("cuStreamCreate", a.cuStreamCreate(&stream_, 0)); !s) return s;
  if (auto s = cu_check("cuEventCreate", a.cuEventCreate(&start_, 0)); !s) return s;
  return cu_check("cuEventCreate", a.cuEventCreate(&stop_, 0));
}

Gpu::~Gpu() {
  if (stream_) api_.cuStreamSynchronize(stream_);
  if (start_) api_.cuEventDestroy(start_);
  if (stop_) api_.cuEventDestroy(stop_);
  if (stream_) api_.cuStreamDestroy(stream_);
  if (retained_) api_.cuDevicePrimaryCtxRelease(device_);
}

Status Gpu::alloc(DeviceBuffer& buffer, std::size_t bytes, const char* what) {
  buffer.api_ = &api_;
  return cu_check(std::string("cuMemAlloc(") + what + ", " + std::to_string(bytes) + " bytes)",
                  api_.cuMemAlloc(&buffer.ptr_, bytes));
}

Status Gpu::launch(CUfunction f, std::uint64_t n, void** params, const char* what) {
  constexpr unsigned threads = 256;
  // Enough blocks to fill the GPU several times over; the kernels loop.
  std::uint64_t wanted = std::max<std::uint64_t>(1, (n + threads - 1) / threads);
  auto blocks = static_cast<unsigned>(std::min<std::uint64_t>(wanted, std::uint64_t(sms_) * 16));
  return cu_check(std::string("cuLaunchKernel(") + what + ")",
                  api_.cuLaunchKernel(f, blocks, 1, 1, threads, 1, 1, 0, stream_, params, nullptr));
}

Status Gpu::sync(const char* what) {
  return cu_check(std::string("cuStreamSynchronize(") + what + ")", api_.cuStreamSynchronize(stream_));
}

Result<std::vector<double>> Gpu::time(int warmups, int reps, const std::function<Status()>& op) {
  for (int i = 0; i < warmups; ++i)
    if (auto s = op(); !s) return s.error();
  if (auto s = sync("warm-up"); !s) return s.error();
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    if (auto s = cu_check("cuEventRecord", api_.cuEventRecord(start_, stream_)); !s) return s.error();
    if (auto s = op(); !s) return s.error();
    if (auto s = cu_check("cuEventRecord", api_.cuEventRecord(stop_, stream_)); !s) return s.error();
    if (auto s = cu_check("cuEventSynchronize", api_.cuEventSynchronize(stop_)); !s) return s.error();
    float ms = 0;
    if (auto s = cu_check("cuEventElapsedTime", api_.cuEventElapsedTime(&ms, start_, stop_)); !s) return s.error();
    times.push_back(ms);
  }
  return times;
}

Result<std::vector<float>> Gpu::read(CUdeviceptr base, std::uint64_t index, std::size_t count) {
  std::vector<float> out(count);
  if (auto s = cu_check("cuMemcpyDtoH", api_.cuMemcpyDtoH(out.data(), base + index * sizeof(float),
                                                          count * sizeof(float)));
      !s)
    return s.error();
  return out;
}

Result<std::vector<float>> Gpu::gather(CUdeviceptr base, const std::vector<std::uint64_t>& positions) {
  std::vector<float> out;
  for (auto p : positions) {
    float v = 0;
    if (auto s = cu_check("cuMemcpyDtoH", api_.cuMemcpyDtoH(&v, base + p * sizeof(float), sizeof v)); !s)
      return s.error();
    out.push_back(v);
  }
  return out;
}

Result<std::uint32_t> Gpu::read_u32(CUdeviceptr address) {
  std::uint32_t v = 0;
  if (auto s = cu_check("cuMemcpyDtoH", api_.cuMemcpyDtoH(&v, address, sizeof v)); !s) return s.error();
  return v;
}

} // namespace condacuda::probe
