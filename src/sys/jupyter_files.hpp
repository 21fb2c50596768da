#pragma once
// What Jupyter keeps on disk, read for the pure model (jupyter/kernelspec.hpp):
// the kernelspecs on the data path, in jupyter_client's order, and this
// user's running servers with their real environment (/proc/PID/environ).
// An env and a home are untrusted: kernel.json is read only when it is a
// regular file of at most read_cap::config bytes (a FIFO never blocks), a
// folder's listing stops at 10,000 names, nothing is ever written here.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "jupyter/kernelspec.hpp"

namespace condacuda::sys {

// A kernelspec found on the data path, or why it could not be read.
struct FoundKernel {
  jupyter::Kernelspec spec; // name and dir always set
  std::string problem;      // "" when it was read
};

// jupyter_client's find_kernel_specs over `dirs` (jupyter::kernel_dirs):
// each folder's subfolders with a kernel.json, the first of a name winning.
std::vector<FoundKernel> find_kernelspecs(const std::vector<std::string>& dirs);

// The servers whose runtime files (jpserver-*.json, nbserver-*.json) are in
// `runtime_dir` and whose process is alive and readable by this user.
std::vector<jupyter::Server> running_servers(const std::string& runtime_dir);

// This process's environment, every variable.
std::map<std::string, std::string> this_environment();

// Jupyter's variables from an environment (this shell's or a server's).
jupyter::JupyterVariables jupyter_variables(const std::map<std::string, std::string>& environment, const std::string& home);

// KernelFiles on the disk: realpath, and the first 64 KiB of a regular file
// that starts with "#!" (of another, its first two bytes); each path once.
class DiskKernelFiles final : public jupyter::KernelFiles {
public:
  std::string real_path(const std::string& path) override;
  std::optional<std::string> read_script(const std::string& path) override;

private:
  std::map<std::string, std::string> real_;
  std::map<std::string, std::optional<std::string>> scripts_;
};

} // namespace condacuda::sys
