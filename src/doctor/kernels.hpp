#pragma once
// Jupyter kernels are launches (docs/jupyter.md): each kernelspec that starts
// the env's interpreter is judged as the process a server starts, in the
// environment a server would give it (the server's, updated with the spec's
// env block), for every server environment doctor knows of: one started from
// this shell, each launch a repair recorded, and each running Jupyter server
// of this user (its real environment).
// What the kernel runs is the env's framework imports (doctor/programs.hpp).
// A kernel that loads everywhere judged but finds a CUDA library of the env
// by a search step after LD_LIBRARY_PATH (RUNPATH) is exposed: an older copy
// on the server's LD_LIBRARY_PATH would be taken instead. Pure.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "doctor/doctor.hpp"
#include "jupyter/kernelspec.hpp"

namespace condacuda::doctor {

// A server environment a kernel may be started in.
struct ServerLaunch {
  std::string name; // "a server started from this shell", "recorded launch 2", "server pid 4242"
  std::map<std::string, std::string> environment;
  bool running = false; // a real, running server of this user
  // A failure here is an error: a running server, or one started from this
  // shell (a recorded launch: a warning).
  bool decisive = false;
};

// The kernels found on the data path that run this env (the caller classified them).
struct EnvKernel {
  jupyter::Kernelspec spec;
  jupyter::KernelRun run;
  // What its start puts first on LD_LIBRARY_PATH (absolute): `condacuda run`'s
  // folders (the hook's, or the planned ones in an env not repaired yet); an
  // activation's are the hook's (DoctorInputs::hook_folders), none without one.
  std::vector<std::string> first_folders;
};

// Judges each kernel in each launch; adds report.kernels and the findings
// kernel-fails (error when a running server or a server started from this
// shell makes it fail, else warning) and kernel-exposed (warning).
// `system_cuda_dirs`: the folders an older CUDA copy is named from.
// A launch whose inputs are the report's own (a server started from this
// shell, for a kernel that is launched as the report judged) reuses its
// verdicts; equal inputs are judged once for every kernel.
void judge_kernels(DoctorReport& report, const std::vector<EnvKernel>& kernels, const std::vector<ServerLaunch>& launches,
                   const std::vector<std::string>& system_cuda_dirs, loader::FileSystemView& files);

// The CUDA libraries of the env `r` loads through a search step after
// LD_LIBRARY_PATH (DT_RUNPATH, ld.so.cache, the system folders): the sonames
// an older copy on LD_LIBRARY_PATH would replace.
std::vector<std::string> exposed_sonames(const DoctorReport& r);

} // namespace condacuda::doctor
