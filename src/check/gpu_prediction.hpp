#pragma once
// The GPU coverage the check predicts for the device it ran on, from the
// fatbins of the libraries the probe loaded (doctor/gpu_coverage.hpp), next
// to what the device did: like the loader prediction, a difference is a
// `prediction-mismatch` warning (a rule of docs/fatbin.md that the hardware
// contradicts). Pure: the fatbins come through a function the caller gives.
#include <optional>
#include <string>
#include <vector>

#include "check/model.hpp"
#include "doctor/gpu_coverage.hpp"

namespace condacuda::check {

// The steps that run a component's kernels: cuBLAS and cuBLASLt the GEMMs,
// cuSPARSE SpMV and SpMM (the probe's own kernels are JIT-linked, not read
// from a fatbin). Empty for the others.
std::vector<std::string> steps_running_kernels_of(Component c);

// Whether a failed step's error says the library had no kernel for the
// device (CUBLAS_STATUS_ARCH_MISMATCH, CUSPARSE_STATUS_ARCH_MISMATCH,
// CUDA_ERROR_NO_BINARY_FOR_GPU, "no kernel image").
bool says_no_kernel(const std::string& error);

struct CoverageComparison {
  Component component = Component::driver;
  std::string file;      // the file the probe loaded
  std::string device;    // "sm_90"
  doctor::Coverage predicted;
  std::vector<std::string> steps; // the steps that ran its kernels
  std::string observed;  // "ran", "no kernel image", "failed", "not run"
  std::optional<bool> matches; // nullopt: the device said nothing about coverage
};

// One comparison per loaded library with GPU code whose kernels a step runs,
// for the probe's device; empty without a device. `driver_ptx_isa`: the
// newest PTX ISA the device's driver compiles (nullopt: not known).
std::vector<CoverageComparison> compare_coverage(const ProbeResult& probe, const doctor::FatbinSource& fatbin_of,
                                                 const std::optional<std::string>& driver_ptx_isa);

// The PTX ISA a driver compiles, from its CUDA version (cuDriverGetVersion:
// 13000) and the GPU table's drivers; nullopt when the table does not list it.
std::optional<std::string> driver_ptx_isa(int cuda_driver_version, const doctor::GpuTable& table);

} // namespace condacuda::check
