#pragma once
// The probe's use of the driver API: entry points resolved version-safely,
// the device's facts, and a Gpu object that owns the primary context, one
// stream, the events and every allocation, and gives them back on
// destruction (the probe frees everything it takes).
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "check/model.hpp"
#include "probe/cuda_api.hpp"
#include "util/result.hpp"

namespace condacuda::probe {

// "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (2)".
std::string cu_error(const std::string& call, CUresult r);
// A Status for a driver call: ok when r == 0.
Status cu_check(const std::string& call, CUresult r);

struct DriverResolution {
  DriverApi api;
  bool proc_address = false;          // through cuGetProcAddress_v2
  std::vector<std::string> missing;   // entry points neither way found
};

// cuInit, cuDriverGetVersion and cuGetErrorName by dlsym (unversioned in
// every driver); the rest through cuGetProcAddress_v2(name, &fn, 12000, 0,
// &status) — docs/gpu-check.md, "Driver": unversioned names are the old ABI — or,
// on drivers older than 12.0, by dlsym of their _v2 names.
DriverResolution resolve_driver(void* libcuda);

// The persistence mode of the device with this PCI bus id, from NVML
// (libnvidia-ml.so.1); nullopt when NVML is absent or does not answer.
std::optional<bool> persistence_mode(const std::string& pci_bus_id);

class Gpu;

// A device allocation, freed by its destructor.
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();
  CUdeviceptr ptr() const { return ptr_; }
  void* pointer() const { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(ptr_)); }

private:
  friend class Gpu;
  const DriverApi* api_ = nullptr;
  CUdeviceptr ptr_ = 0;
};

// Device `ordinal`'s name, PCI bus id, memory and attributes (compute
// capability, SMs, clocks, bus width, L2), without a context: what `doctor
// --gpu auto` asks when /proc does not list the GPUs, and the first half of
// Gpu::open. `info.count` is set first.
Status describe_device(const DriverApi& api, int ordinal, check::DeviceInfo& info, CUdevice& device);

class Gpu {
public:
  explicit Gpu(const DriverApi& api) : api_(api) {}
  Gpu(const Gpu&) = delete;
  Gpu& operator=(const Gpu&) = delete;
  ~Gpu();

  // Device `ordinal`: its facts, then the primary context made current
  // (cuDevicePrimaryCtxRetain + cuCtxSetCurrent: the same in 12 and 13,
  // unlike cuCtxCreate, and the context cuBLAS and cuSPARSE use), a stream
  // and two events. Adds the timings to `phases`.
  Status open(int ordinal, check::DeviceInfo& info, std::vector<check::Phase>& phases);

  const DriverApi& api() const { return api_; }
  CUstream stream() const { return stream_; }

  Status alloc(DeviceBuffer& buffer, std::size_t bytes, const char* what);
  // A grid-stride kernel over `n` items, 256 threads a block.
  Status launch(CUfunction f, std::uint64_t n, void** params, const char* what);
  Status sync(const char* what);
  // Runs `op` `warmups` times, then `reps` times between two events each;
  // returns the milliseconds of every timed run.
  Result<std::vector<double>> time(int warmups, int reps, const std::function<Status()>& op);
  // Copies count floats starting at element `index` to the host.
  Result<std::vector<float>> read(CUdeviceptr base, std::uint64_t index, std::size_t count);
  // The floats at the given element positions.
  Result<std::vector<float>> gather(CUdeviceptr base, const std::vector<std::uint64_t>& positions);
  Result<std::uint32_t> read_u32(CUdeviceptr address);

private:
  const DriverApi& api_;
  CUdevice device_ = 0;
  bool retained_ = false;
  CUstream stream_ = nullptr;
  CUevent start_ = nullptr, stop_ = nullptr;
  int sms_ = 1;
};

} // namespace condacuda::probe
