#pragma once
// What the probe child is asked (ProbeRequest) and what it reports
// (ProbeResult), as plain values. check/protocol.hpp turns them into the JSON
// that crosses the process boundary; report/check_report renders them. Pure.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "check/performance.hpp"
#include "check/sizes.hpp"

namespace condacuda::check {

// The libraries the probe opens, in the order it opens them.
enum class Component { driver, cudart, cublaslt, cublas, cusparse, nvjitlink };
const char* to_string(Component c);
std::optional<Component> component_from_string(const std::string& s);

struct LibraryRequest {
  Component component = Component::driver;
  std::string open; // what dlopen gets: a soname ("libcuda.so.1") or an absolute path
};

struct ProbeRequest {
  std::vector<LibraryRequest> libraries;
  int device = 0;
  CheckSizes sizes;
  // Non-empty ("sm_90"): stop after the libraries and link the PTX module for
  // this architecture without a driver. For tests on machines with no GPU:
  // nvJitLink is a compiler and needs none.
  std::string link_only_arch;
  // Stop after cuInit and report every device's facts, without a context
  // (`doctor --gpu auto` where /proc does not list the GPUs).
  bool devices_only = false;
};

enum class StepStatus { pass, warn, fail, skipped };
const char* to_string(StepStatus s);
std::optional<StepStatus> step_status_from_string(const std::string& s);

struct LibraryLoad {
  Component component = Component::driver;
  std::string open;
  bool loaded = false;
  std::string path;    // the file the loader mapped (link_map l_name via dlinfo)
  std::string error;   // dlerror() when it did not load
  double load_ms = 0;
  std::string version; // "13.1.0" when the library says (cudaRuntimeGetVersion, cublasGetProperty, ...)
};

struct Phase {
  std::string name; // "cuInit", "primary context", "cublasCreate", ...
  double ms = 0;
};

struct DriverInfo {
  bool init_called = false;
  int init_result = -1;  // CUresult of cuInit
  int version = 0;       // cuDriverGetVersion: 13000 = CUDA 13.0
  bool proc_address = false; // entry points came from cuGetProcAddress_v2 (else dlsym of _v2 names)
};

struct DeviceInfo {
  int ordinal = 0;
  int count = 0;          // devices visible to the driver
  std::string name;
  std::string pci_bus_id;
  DeviceFacts facts;
  int l2_bytes = 0;
  std::uint64_t total_memory = 0;
  std::optional<bool> persistence_mode; // from NVML when libnvidia-ml.so.1 answers
};

struct StepResult {
  std::string name;   // "driver", "jit-link", "kernel", "copy", "gemm-bf16", ...
  StepStatus status = StepStatus::skipped;
  std::string detail; // one line for people: what ran, or why it was skipped
  std::string error;  // the failing call and its status name
  std::string size;   // "8192x8192x8192", "1 GiB", "n=8388608 nnz/row=16"
  double work = 0;    // per timed run: FLOPs (unit "flop") or bytes moved (unit "byte")
  std::string unit;   // "flop", "byte" or ""
  std::vector<double> times_ms; // every timed run (CUDA events)
  std::optional<double> max_error; // relative to sum|a*b| (or mismatch count for exact checks)
  std::optional<double> tolerance;
  std::size_t checked = 0;          // entries validated
  std::optional<bool> deterministic; // bf16 GEMM run twice, outputs compared bitwise

  double median_ms() const { return median(times_ms); }
};

struct ProbeResult {
  bool started = false;  // the "start" record arrived
  bool finished = false; // the "end" record arrived
  std::optional<std::string> ld_library_path; // as the child saw it (nullopt: unset)
  std::vector<LibraryLoad> libraries;
  std::vector<std::string> loaded_objects; // dl_iterate_phdr after the dlopen phase
  std::vector<Phase> phases;
  DriverInfo driver;
  std::optional<DeviceInfo> device;  // the device the steps ran on (the last "device" record)
  std::vector<DeviceInfo> devices;   // every "device" record (one per device with devices_only)
  std::vector<StepResult> steps;
  std::vector<std::string> notes;
  std::string in_progress; // a step that began and never ended (the child died or hung there)
  std::vector<std::string> protocol_errors; // lines that were not valid records

  const LibraryLoad* library(Component c) const;
  const StepResult* step(const std::string& name) const;
};

} // namespace condacuda::check
