#pragma once
// `condacuda kernel install`: a Jupyter kernelspec for the env that holds from
// the start, as `ipykernel install` writes one (--user: the user's data dir;
// --sys-prefix: ENV/share/jupyter), whose argv starts the env's python
// through `condacuda run`, so that the env's CUDA folders come first on
// LD_LIBRARY_PATH whatever the server's environment holds; judged, once
// written, in every server launch doctor knows of (docs/jupyter.md).
#include <optional>
#include <string>
#include <vector>

#include "doctor/doctor.hpp"
#include "env/discovery.hpp"
#include "util/result.hpp"

namespace condacuda::app {

struct KernelInstallOptions {
  env::EnvRecord env;
  std::string name;                        // the kernel's name (jupyter_client's rule)
  std::optional<std::string> display_name; // default "Python (ENV, condacuda)"
  bool sys_prefix = false;                 // ENV/share/jupyter, not the user's data dir
  bool dry_run = false;
};

enum class KernelInstallStatus { installed, unchanged, would_install };
const char* to_string(KernelInstallStatus status); // "installed", "unchanged", "would-install"

struct KernelInstallOutcome {
  env::EnvRecord env;
  std::string kernel_dir; // absolute
  std::string text;       // kernel.json as written (or as it would be)
  KernelInstallStatus status = KernelInstallStatus::installed;
  std::vector<doctor::KernelReport> kernels; // the kernel, judged per server launch
  std::vector<std::string> notes;
  bool loads_everywhere() const;
};

// Errors: bad_input (a name Jupyter refuses), not_found (no python in the
// env), conflict (a kernel.json condacuda did not write is there), io.
Result<KernelInstallOutcome> install_kernel(const KernelInstallOptions& options);

} // namespace condacuda::app
