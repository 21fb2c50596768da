// inventory/package_requirements: what the env's packages require of its CUDA
// components, resolved to components; markers judged for this platform.
#include <doctest/doctest.h>

#include "inventory/inventory.hpp"
#include "inventory/package_requirements.hpp"

using namespace condacuda;
using namespace condacuda::inventory;

namespace {
Library library(const std::string& component, const std::string& package, const std::string& version) {
  Library l;
  l.component = component;
  l.package = package;
  l.version = version;
  l.file = "lib/python3.11/site-packages/nvidia/" + component + "/lib/lib" + component + ".so.9";
  return l;
}
} // namespace

TEST_CASE("component_of_package: an env library's owner, NVIDIA's wheel names, conda's names") {
  std::vector<Library> libs{library("cudnn", "nvidia-cudnn-cu12", "9.10.2.21")};
  CHECK(component_of_package("nvidia-cudnn-cu12", libs) == "cudnn");
  CHECK(component_of_package("nvidia-nccl-cu12", {}) == "nccl");
  CHECK(component_of_package("nvidia-cublas", {}) == "cublas"); // CUDA 13's toolkit wheels have no suffix
  CHECK(component_of_package("nvidia-cusparse-cu12", {}) == "cusparse");
  CHECK(component_of_package("cudnn", {}) == "cudnn");
  CHECK(component_of_package("libcublas", {}) == "cublas");
  CHECK_FALSE(component_of_package("sympy", {}).has_value());
  CHECK_FALSE(component_of_package("", {}).has_value());
}

TEST_CASE("python_version_of: from the site-packages folder") {
  CHECK(python_version_of({"lib/python3.11/site-packages"}) == "3.11");
  CHECK(python_version_of({"Lib/site-packages"}).empty());
  CHECK(python_version_of({}).empty());
}

TEST_CASE("component_requirements: wheels and conda, markers judged here, unbounded and unknown left out") {
  EnvSnapshot s;
  s.site_packages = {"lib/python3.11/site-packages"};
  Distribution torch;
  torch.name = "torch";
  torch.version = "2.8.0";
  torch.dist_info = "lib/python3.11/site-packages/torch-2.8.0.dist-info";
  torch.requires_dist = {
      R"(nvidia-cudnn-cu12==9.10.2.21; platform_system == "Linux" and platform_machine == "x86_64")",
      R"(nvidia-nccl-cu12==2.27.3; platform_system == "Windows")", // not this platform
      "nvidia-cublas-cu12",                                         // no version bound: nothing to check
      "sympy>=1.13.3",                                              // not a CUDA component
      R"(nvidia-cusparse-cu12>=12.1; python_version < "3.9")",      // false for 3.11
      "nvidia-cufft-cu12 ((",                                       // malformed: a warning
  };
  s.distributions.push_back(torch);
  CondaPackage pt;
  pt.name = "pytorch";
  pt.version = "2.8.0";
  pt.record = "conda-meta/pytorch-2.8.0-cuda.json";
  pt.depends = {"cudnn >=9.1,<10.0a0", "python_abi 3.11.* *_cp311", "nccl"};
  s.conda_packages.push_back(pt);
  std::vector<std::string> warnings;
  auto reqs = component_requirements(s, {library("cudnn", "nvidia-cudnn-cu12", "9.10.2.21")}, warnings);
  REQUIRE(reqs.size() == 2);
  CHECK(reqs[0].package == "torch");
  CHECK(reqs[0].manager == "pip");
  CHECK(reqs[0].component == "cudnn");
  CHECK(satisfies(reqs[0].requirement, "9.10.2.21") == true);
  CHECK(satisfies(reqs[0].requirement, "9.1.0") == false);
  CHECK(reqs[1].package == "pytorch");
  CHECK(reqs[1].manager == "conda");
  CHECK(reqs[1].component == "cudnn");
  CHECK(satisfies(reqs[1].requirement, "9.10.2.21") == true);
  CHECK(satisfies(reqs[1].requirement, "10.0.0") == false);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("nvidia-cufft-cu12 ((") != std::string::npos);
}
