#pragma once
// doctor: simulate dlopen(root, RTLD_NOW) for every CUDA library and every
// consumer of an env, as the env's python (or a minimal C program) would, with
// the LD_LIBRARY_PATH the env has once activated; turn the outcomes into
// findings grouped by cause. Pure: files through FileSystemView.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "doctor/findings.hpp"
#include "doctor/node_facts.hpp"
#include "env/discovery.hpp"
#include "frameworks/program.hpp"
#include "jupyter/kernelspec.hpp"
#include "inventory/inventory.hpp"
#include "loader/simulator.hpp"

namespace condacuda::doctor {

// How the env is launched (doctor/contexts.hpp).
enum class LaunchContext { activated, not_activated };
const char* to_string(LaunchContext context); // "activated", "not-activated"

// Where the LD_LIBRARY_PATH before the env's hook came from.
enum class BasePathSource { this_shell, given };
const char* to_string(BasePathSource source); // "caller", "--ld-library-path" (doctor --json's words)

// What a root is: a CUDA library of the env, or a consumer of them (a Python
// extension, a program).
enum class RootKind { library, consumer };
const char* to_string(RootKind kind); // "library", "consumer"

struct DoctorInputs {
  LaunchContext context = LaunchContext::activated;
  env::EnvRecord env;
  inventory::Inventory inventory;
  loader::LoaderConfig config;             // ld_library_path: the activated value
  std::optional<std::string> base_ld_library_path; // before the env's hook
  BasePathSource ld_library_path_source = BasePathSource::this_shell;
  std::vector<std::string> hook_folders;   // absolute folders the env's condacuda hook prepends
  bool hook_present = false;
  std::optional<std::string> active_hook_entries; // what the hook added in this shell, if active here
  std::optional<std::string> host_program; // real path of the env's python; nullopt: minimal C host
  std::vector<std::string> foreign_hooks;  // other activate.d scripts that touch LD_LIBRARY_PATH
  std::optional<std::string> driver_version; // NVIDIA driver seen (/proc/driver/nvidia/version), for the alignment driver rule
  std::string driver_source = "/proc/driver/nvidia/version"; // where driver_version came from: "--driver" when given
  std::string glibc_source = "this machine"; // where config.glibc_minor came from: "--glibc" when given
  // doctor --imports: files to dlopen in this order in one process (absolute),
  // each RTLD_NOW and RTLD_LOCAL unless `global` (doctor/import_order.hpp).
  struct Import {
    std::string file;
    bool global = false;
    std::string framework; // a framework's import run as its recipe says ("torch"); `file` is then ""
  };
  std::vector<Import> imports;
  // The env's python as its frameworks' imports see it (sys.path, the
  // variables the recipes read): nullopt when the env has no python.
  std::optional<frameworks::PythonView> python;
};

// One dlopen of the --imports sequence, as it went (doctor/import_order.hpp).
struct ImportOutcome {
  std::string file; // prefix-relative when inside the env
  bool global = false;
  bool loads = true;
  bool loads_alone = true;
  std::string first_error;
};

struct ContextVerdict {
  bool loads = true;
  std::string first_error;
};

struct RootResult {
  std::string file;      // prefix-relative
  RootKind kind = RootKind::library;
  std::string component; // for libraries
  bool loads = true;
  std::string first_error; // the loader's text (dlerror / ImportError) when it fails
  // The requirement of its package the loaded copy does not satisfy (the
  // loader maps it, the import raises): doctor/requirements_check.hpp.
  std::string requirement;
  loader::LoadReport report;
  std::optional<ContextVerdict> not_activated; // in an activated report, when the contexts differ
  // The framework imports that open this root and load (doctor/programs.hpp):
  // a root that fails opened alone but loads in every program that opens it
  // ("import torch (2.6.0)"). Empty when none does.
  std::vector<std::string> covered_by;
};

// A framework's import as a program (frameworks/program.hpp), in this report's launch.
struct ProgramReport {
  frameworks::ProgramResult result;
  std::optional<ContextVerdict> not_activated; // in an activated report, when the contexts differ
  std::string label() const;     // "import torch (2.6.0)"
};

// A Jupyter kernel of the env judged in one server environment (doctor/kernels.hpp).
struct KernelVerdict {
  std::string launch; // "a server started from this shell", "server pid 4242", ...
  std::optional<std::string> ld_library_path; // the kernel's, as it starts
  bool running = false; // a running server's real environment
  bool loads = true;
  std::string error;    // the first failing import's error (or root's)
  std::vector<std::string> exposed; // sonames an older copy on LD_LIBRARY_PATH would replace
};

struct KernelReport {
  jupyter::Kernelspec spec;
  jupyter::KernelRun run;
  std::vector<KernelVerdict> verdicts;
};

struct DoctorReport {
  DoctorInputs inputs;
  std::string host_description; // "python /usr/bin/python3.11" or "minimal C program (libc only)"
  std::optional<std::string> host_error; // the host itself could not start
  std::vector<RootResult> roots;
  std::vector<ImportOutcome> imports; // the --imports sequence, when given
  std::vector<frameworks::InstalledFramework> frameworks; // what the env's python imports
  std::vector<ProgramReport> programs; // one per framework, in that order
  std::vector<KernelReport> kernels;   // the env's Jupyter kernels, judged per server launch (app::doctor)
  std::vector<Finding> findings;
  // In an activated report whose not-activated context was judged too: that launch.
  struct NotActivatedLaunch {
    std::optional<std::string> ld_library_path; // nullopt: unset
    bool operator==(const NotActivatedLaunch&) const = default;
  };
  std::optional<NotActivatedLaunch> not_activated;
  NodeFacts node; // filled by the system layer (app::doctor)

  int count(Severity s) const;
  bool healthy() const { return count(Severity::error) == 0; }
};

DoctorReport run_doctor(DoctorInputs inputs, loader::FileSystemView& files);

} // namespace condacuda::doctor
