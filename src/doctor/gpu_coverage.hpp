#pragma once
// Will this env run on that GPU? The coverage rules, from the fatbin headers
// the libraries carry (elf/fatbin.hpp) and the GPU table (templates/gpus.yml).
// Pure: the fatbins come through a function the caller gives.
//
// For a device of compute capability X.Y (docs/fatbin.md, "Coverage"):
//   SASS sm_AB          runs when A == X and B <= Y (binary compatibility
//                       within a major);
//   SASS sm_ABa         only when AB == XY (arch-specific features);
//   SASS sm_ABf         on the family: A == X and B <= Y;
//   PTX compute_AB      JIT-compiled at first use when AB <= XY (a/f PTX as
//                       their SASS) and the driver runs that PTX ISA;
//   otherwise the file has no kernel for the device.
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "doctor/doctor.hpp"
#include "elf/fatbin.hpp"
#include "lock/release_table.hpp"
#include "util/result.hpp"

namespace condacuda::doctor {

struct GpuModel {
  int major = 0, minor = 0;        // compute capability
  std::vector<std::string> names;  // "H100", "RTX 5090"
  std::string since_cuda;          // "12.8": the first CUDA release that builds SASS for it ("" unknown)
  std::vector<std::string> data_center; // the names that are NVIDIA Data Center GPUs (forward compatibility applies)
};

struct DriverBranch {
  int branch = 0;      // 580
  std::string cuda;    // "13.0": the newest CUDA it runs
  std::string ptx_isa; // "9.0": the newest PTX ISA it compiles
};

struct GpuTable {
  std::string name;
  std::vector<GpuModel> gpus;
  std::vector<DriverBranch> drivers;      // ascending branch
  std::set<std::string> external_kernels; // components whose .nv_fatbin is not all they run
  // The newest branch <= `branch`; nullopt below the first.
  std::optional<DriverBranch> driver(int branch) const;
  // The oldest branch that compiles PTX ISA `isa`; nullopt when none listed does.
  std::optional<DriverBranch> first_driver_for_ptx_isa(const std::string& isa) const;
  // The first CUDA release that builds SASS for compute capability major.minor ("" unknown).
  std::string since_cuda(int major, int minor) const;
};

Result<GpuTable> parse_gpu_table(std::string_view yaml_text, const std::string& source_name);
Result<GpuTable> embedded_gpu_table();

// A device to judge the env for.
struct Device {
  std::string label; // what the user said, or the model: "H100", "sm_90", "9.0"
  int major = 0, minor = 0;
  bool data_center = false; // a Data Center GPU by name (the table's data_center): cuda-compat applies
  int arch() const { return major * 10 + minor; } // 90
  std::string sm() const { return "sm_" + std::to_string(arch()); }
};

// "sm_90" / "sm_90a" / "compute_90", "9.0", or a name of the table ("H100",
// "NVIDIA H100 80GB HBM3": the longest table name that is a run of its words;
// data_center when the table says that name is one).
// bad_input when none of these.
Result<Device> parse_device(std::string_view text, const GpuTable& table);

enum class CoverageKind { sass, ptx_jit, none };

struct Coverage {
  CoverageKind kind = CoverageKind::none;
  std::string target; // the entry that runs: "sm_90", "compute_80"; "" for none
  std::string why;    // for none: what the file has and why none of it runs
  // For none: the PTX ISA of an entry that would JIT-compile for the device
  // but is newer than the driver compiles ("" when no such entry).
  std::string needs_ptx_isa;
};

// What runs on `device` from the fatbin `code`; `driver_ptx_isa`: the newest
// PTX ISA the driver compiles (nullopt: not known, PTX assumed compilable).
Coverage coverage_for(const elf::FatbinSummary& code, const Device& device,
                      const std::optional<std::string>& driver_ptx_isa);

// The release of a library's component that first builds for `device`, from
// the GPU table (since_cuda) and the release table: for cuBLAS 12.4.5.8 on a
// B200 (sm_100, since CUDA 12.8) {"12.8.0", "12.8.3.14"}. nullopt when either
// table does not know, or the library is already that version or newer.
struct ReleaseAddingArch {
  std::string release; // "12.8.0"
  std::string version; // the component's version in it
};
std::optional<ReleaseAddingArch> release_adding_arch(const inventory::Library& lib, const Device& device,
                                                     const GpuTable& gpus, const lock::ReleaseTable& releases);

// The findings for the roots of `report` that load: `no-kernel-image` (error)
// for a loaded env file with GPU code and none for a device, `ptx-jit-only`
// (warning) when only PTX JIT serves it, `driver-too-old` (error) when only
// PTX serves it and the driver's PTX ISA is older than it. One finding per
// file and device. `releases` (may be null) names the release that adds an
// architecture in the fix. When no loaded file of the env carries GPU code,
// one `no-gpu-code` info finding says that nothing was judged.
// `fatbin_of(absolute path)`: the file's fatbin (nullopt without one); the
// system layer reads it, through a cache (sys/gpu_code.hpp).
using FatbinSource = std::function<std::optional<elf::FatbinSummary>(const std::string& path)>;
std::vector<Finding> coverage_findings(const DoctorReport& report, const FatbinSource& fatbin_of,
                                       const std::vector<Device>& devices, const std::optional<DriverBranch>& driver,
                                       const GpuTable& table, const lock::ReleaseTable* releases);

} // namespace condacuda::doctor
