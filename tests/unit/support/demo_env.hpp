#pragma once
// The seed scenario of examples/demo-env (build.sh), compiled from the same C
// sources into a scratch directory, without python: an env laid out as CUDA 12
// wheels are (lib/python3.11/site-packages/nvidia/<component>/lib), whose
// cuSPARSE (RUNPATH $ORIGIN) needs __nvJitLinkAddData_12_1 from nvJitLink in
// another folder, and an older "system" nvJitLink 12.0 that has the version
// node but not that symbol. Used by the repair, doctor and report tests.
#include <optional>
#include <string>
#include <vector>

#include "doctor/doctor.hpp"
#include "sys/disk_file_view.hpp"

namespace demo_env {

inline const std::string site = "lib/python3.11/site-packages";
inline const std::string cudart_dir = site + "/nvidia/cuda_runtime/lib";
inline const std::string cusparse_dir = site + "/nvidia/cusparse/lib";
inline const std::string nvjitlink_dir = site + "/nvidia/nvjitlink/lib";
inline const std::string cudart = cudart_dir + "/libcudart.so.12";
inline const std::string cusparse = cusparse_dir + "/libcusparse.so.12";
inline const std::string nvjitlink = nvjitlink_dir + "/libnvJitLink.so.12";
inline const std::string consumer = site + "/demotorch/_C.so";

// nvJitLink 12.<minor> (0 or 4): soname libnvJitLink.so.12, version node
// libnvJitLink.so.12, from examples/demo-env/src/nvjitlink.c.
void build_nvjitlink(const std::string& out, int minor);
// cudart 12 stand-in (examples/demo-env/src/cudart.c), soname libcudart.so.12.
void build_cudart(const std::string& out);
// cuSPARSE 12.1 stand-in linked against the nvJitLink in `jit_dir`
// (absolute), with DT_RUNPATH `runpath`.
void build_cusparse(const std::string& out, const std::string& jit_dir, const std::string& runpath = "$ORIGIN");
// A torch-like consumer calling cudart and cuSPARSE: DT_NEEDED libcudart.so.12
// and libcusparse.so.12 (found in the absolute `rt_dir` and `sparse_dir`
// at link time, cuSPARSE's nvJitLink in `jit_dir`), DT_RUNPATH `runpath`.
void build_consumer(const std::string& out, const std::string& rt_dir, const std::string& sparse_dir,
                    const std::string& jit_dir, const std::string& runpath);
// dist-info with METADATA and a RECORD listing `files` (site-packages relative).
void write_wheel(const std::string& prefix, const std::string& name, const std::string& version,
                 const std::vector<std::string>& files);

struct Seed {
  std::string prefix; // <dir>/env
  std::string system; // <dir>/system-cuda-12.0/lib64, holding nvJitLink 12.0
};
// The seed env under `dir`: cudart, cuSPARSE (RUNPATH $ORIGIN), nvJitLink 12.4
// (wheel nvidia-nvjitlink-cu12 12.4.127) and demotorch/_C.so (RUNPATH
// $ORIGIN/../nvidia/cuda_runtime/lib:$ORIGIN/../nvidia/cusparse/lib).
// Unrepaired, cuSPARSE's RUNPATH does not reach nvJitLink.
Seed build_seed(const std::string& dir);

condacuda::env::EnvRecord env_record(const std::string& prefix);

// doctor's inputs for `prefix` as `condacuda doctor --no-ld-library-path`
// gathers them (app::doctor_inputs), with LD_LIBRARY_PATH then set to `llp`.
// The machine's /etc/ld.so.cache is left out so that the test does not depend
// on the CUDA libraries it lists (this machine's has CUDA 13's
// libcusparse.so.12); the system directories stay, for libc.
condacuda::doctor::DoctorInputs inputs(const std::string& prefix, condacuda::sys::DiskFileView& files,
                                       std::optional<std::string> llp = std::nullopt);

} // namespace demo_env
