// doctor/node_facts: the CUDA sonames an ld.so.cache offers, and the words of
// where a node's GPUs came from (doctor --json's node object).
#include <doctest/doctest.h>

#include "doctor/node_facts.hpp"

using namespace condacuda;

TEST_CASE("cuda_sonames_in_cache: NVIDIA's libraries and the driver, sorted, once each; nothing else") {
  loader::LdSoCache cache;
  auto entry = [](std::string key, bool in_range = true) {
    loader::CacheEntry e;
    e.key = std::move(key);
    e.value = "/usr/lib/" + e.key;
    e.key_in_range = in_range;
    return e;
  };
  cache.entries = {entry("libcusparse.so.12"), entry("libc.so.6"), entry("libcuda.so.1"), entry("libcublas.so.12"),
                   entry("libcusparse.so.12"), entry("libz.so.1"), entry("libnvJitLink.so.12", false)};
  CHECK(doctor::cuda_sonames_in_cache(cache) ==
        std::vector<std::string>{"libcublas.so.12", "libcuda.so.1", "libcusparse.so.12"});
  CHECK(doctor::cuda_sonames_in_cache(loader::LdSoCache{}).empty());
}

TEST_CASE("GpuSource: the words doctor --json and fleet show") {
  CHECK(std::string(doctor::to_string(doctor::GpuSource::declared)) == "CONDACUDA_GPU");
  CHECK(std::string(doctor::to_string(doctor::GpuSource::proc)) == "/proc/driver/nvidia/gpus");
  CHECK(std::string(doctor::to_string(doctor::GpuSource::driver)) == "libcuda.so.1");
  CHECK(std::string(doctor::to_string(doctor::GpuSource::none)) == "none");
}

TEST_CASE("NodeFacts::name: Slurm's node name, else the host name") {
  doctor::NodeFacts n;
  n.hostname = "gpu-host-17";
  CHECK(n.name() == "gpu-host-17");
  n.slurm_node = "gpu017";
  CHECK(n.name() == "gpu017");
}
