#pragma once
// The env's Jupyter kernels and the server environments they may start in,
// gathered from the system for doctor::judge_kernels (docs/jupyter.md): the
// kernelspecs on the data path of this shell's Jupyter variables and of each
// running server's, those whose argv starts this env's interpreter; the
// launches: a server started from this shell, each launch a repair recorded,
// and each running Jupyter server of this user with its real environment.
#include <string>
#include <vector>

#include "doctor/kernels.hpp"
#include "launch/launch.hpp"
#include "sys/jupyter_files.hpp"

namespace condacuda::app {

struct KernelSurvey {
  std::vector<doctor::EnvKernel> kernels;
  std::vector<sys::FoundKernel> unreadable; // kernel.json files that could not be read (bad-kernelspec)
  std::vector<doctor::ServerLaunch> launches;
};

// The launches a kernel of the env may start in: a server started from this
// shell, one per recorded launch (this shell's environment with its
// LD_LIBRARY_PATH), each running Jupyter server of this user.
std::vector<doctor::ServerLaunch> kernel_launches(const std::vector<launch::PathValue>& recorded_launches);

// The specs that start this env's interpreter, classified, each with what
// its start puts first on LD_LIBRARY_PATH (`condacuda run`: the env's folders).
std::vector<doctor::EnvKernel> env_kernels(const doctor::DoctorInputs& inputs, std::vector<jupyter::Kernelspec> specs,
                                           loader::FileSystemView& files);

// The kernelspecs on this shell's (and each running server's) data path
// that start `env`'s interpreter, classified, without judging them (`info`).
KernelSurvey find_env_kernels(const jupyter::EnvIdentity& env);

KernelSurvey survey_kernels(const doctor::DoctorInputs& inputs, const std::vector<launch::PathValue>& recorded_launches,
                            loader::FileSystemView& files);

// bad-kernelspec (warning): a kernelspec on the data path that cannot be read.
doctor::Finding bad_kernelspec_finding(const sys::FoundKernel& k);

} // namespace condacuda::app
