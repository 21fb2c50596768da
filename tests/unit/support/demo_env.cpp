#include "support/demo_env.hpp"

#include <stdexcept>

#include "app/doctor_inputs.hpp"
#include "support/fixture.hpp"

namespace demo_env {

namespace {
std::string source(const std::string& name) { return std::string(CONDACUDA_SOURCE_DIR) + "/examples/demo-env/src/" + name; }

std::string parent(const std::string& path) { return path.substr(0, path.rfind('/')); }
} // namespace

void build_nvjitlink(const std::string& out, int minor) {
  fixture::make_dirs(parent(out));
  // The 12.0 map lacks the _12_1 entry points; the 12.4 one exports them.
  std::string map = source(minor == 0 ? "nvjitlink-12.0.map" : "nvjitlink-12.4.map");
  fixture::gcc({"-shared", "-fPIC", "-DNVJITLINK_MINOR=" + std::to_string(minor), "-Wl,-soname,libnvJitLink.so.12",
                "-Wl,--version-script=" + map, "-o", out, source("nvjitlink.c")});
}

void build_cudart(const std::string& out) {
  fixture::make_dirs(parent(out));
  fixture::gcc({"-shared", "-fPIC", "-Wl,-soname,libcudart.so.12", "-o", out, source("cudart.c")});
}

void build_cusparse(const std::string& out, const std::string& jit_dir, const std::string& runpath) {
  fixture::make_dirs(parent(out));
  fixture::gcc({"-shared", "-fPIC", "-Wl,-soname,libcusparse.so.12", "-Wl,--enable-new-dtags,-rpath," + runpath, "-o",
                out, source("cusparse.c"), "-L" + jit_dir, "-l:libnvJitLink.so.12"});
}

void build_consumer(const std::string& out, const std::string& rt_dir, const std::string& sparse_dir,
                    const std::string& jit_dir, const std::string& runpath) {
  fixture::shared_library(out,
                          "int cudaRuntimeGetVersion(int* version);\n"
                          "int cusparseCreate(void** handle);\n"
                          "int demo(void) { int v = 0; void* h = 0; cudaRuntimeGetVersion(&v); return cusparseCreate(&h) + v; }\n",
                          {"-Wl,--enable-new-dtags,-rpath," + runpath, "-Wl,-rpath-link," + jit_dir, "-L" + rt_dir,
                           "-l:libcudart.so.12", "-L" + sparse_dir, "-l:libcusparse.so.12"});
}

void write_wheel(const std::string& prefix, const std::string& name, const std::string& version,
                 const std::vector<std::string>& files) {
  std::string dist = prefix + "/" + site + "/" + name + "-" + version + ".dist-info";
  fixture::write_file(dist + "/METADATA", "Metadata-Version: 2.1\nName: " + name + "\nVersion: " + version + "\n");
  std::string record;
  for (const auto& f : files) record += f + ",,\n";
  fixture::write_file(dist + "/RECORD", record);
}

Seed build_seed(const std::string& dir) {
  Seed s{dir + "/env", dir + "/system-cuda-12.0/lib64"};
  const std::string p = s.prefix + "/";
  build_nvjitlink(p + nvjitlink, 4);
  build_nvjitlink(s.system + "/libnvJitLink.so.12", 0);
  build_cudart(p + cudart);
  build_cusparse(p + cusparse, p + nvjitlink_dir);
  build_consumer(p + consumer, p + cudart_dir, p + cusparse_dir, p + nvjitlink_dir,
                 "$ORIGIN/../nvidia/cuda_runtime/lib:$ORIGIN/../nvidia/cusparse/lib");
  write_wheel(s.prefix, "nvidia-nvjitlink-cu12", "12.4.127", {"nvidia/nvjitlink/lib/libnvJitLink.so.12"});
  write_wheel(s.prefix, "nvidia-cusparse-cu12", "12.1.0.106", {"nvidia/cusparse/lib/libcusparse.so.12"});
  return s;
}

condacuda::env::EnvRecord env_record(const std::string& prefix) {
  return condacuda::env::EnvRecord{"env", prefix, condacuda::env::EnvKind::conda, "--prefix"};
}

condacuda::doctor::DoctorInputs inputs(const std::string& prefix, condacuda::sys::DiskFileView& files,
                                       std::optional<std::string> llp) {
  using condacuda::app::BaseLdLibraryPath;
  auto in = condacuda::app::doctor_inputs(env_record(prefix), BaseLdLibraryPath::given(std::nullopt), files);
  if (!in) throw std::runtime_error("doctor_inputs: " + in.error().describe());
  in->config.cache.reset();
  in->config.ld_library_path = std::move(llp);
  return std::move(*in);
}

} // namespace demo_env
