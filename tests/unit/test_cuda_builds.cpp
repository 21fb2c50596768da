// inventory/cuda_builds: the CUDA major a package's name or version names,
// and the same package for another major, as pip installs it.
#include <doctest/doctest.h>

#include "inventory/cuda_builds.hpp"

using namespace condacuda::inventory;

TEST_CASE("the major a build names: cupy-cudaNNx, cupy-cudaNNN, nvidia-*-cuNN, jax-cudaNN-*, +cuXYZ") {
  CHECK(cuda_major_of_build("cupy-cuda11x", "12.3.0") == 11);
  CHECK(cuda_major_of_build("cupy_cuda12x", "13.6.0") == 12);
  CHECK(cuda_major_of_build("cupy-cuda117", "10.6.0") == 11);
  CHECK(cuda_major_of_build("nvidia-cuda-runtime-cu11", "11.8.89") == 11);
  CHECK(cuda_major_of_build("jax-cuda13-plugin", "0.7.1") == 13);
  CHECK(cuda_major_of_build("torch", "2.5.1+cu118") == 11);
  CHECK(cuda_major_of_build("torch", "2.6.0+cu126") == 12);
  CHECK_FALSE(cuda_major_of_build("torch", "2.6.0"));
  CHECK_FALSE(cuda_major_of_build("cupy", "13.6.0"));
  CHECK_FALSE(cuda_major_of_build("numpy", "2.1.0"));
}

TEST_CASE("the same package for another major") {
  auto cupy = rebuild_for("cupy-cuda11x", "12.3.0", 12);
  REQUIRE(cupy);
  CHECK(cupy->uninstall == "cupy-cuda11x");
  CHECK(cupy->pip_install_args() == std::vector<std::string>{"install", "cupy-cuda12x"});
  CHECK(rebuild_for("jax-cuda12-plugin", "0.4.30", 13)->install == "jax[cuda13]");
  CHECK(rebuild_for("nvidia-cudnn-cu11", "8.9.6", 12)->install == "nvidia-cudnn-cu12");
  auto torch = rebuild_for("torch", "2.5.1+cu118", 12);
  REQUIRE(torch);
  CHECK(torch->pip_install_args() ==
        std::vector<std::string>{"install", "torch", "--index-url", "https://download.pytorch.org/whl/cu126"});
  CHECK_FALSE(rebuild_for("torch", "2.5.1+cu118", 10)); // no index for it
  CHECK_FALSE(rebuild_for("numpy", "2.1.0", 12));
}

TEST_CASE("the major a conda build string names; cudnn and cpu builds name none") {
  CHECK(cuda_major_of_conda_build("cuda126_mkl_py312_h30b5a27_300") == 12); // conda-forge's pytorch
  CHECK(cuda_major_of_conda_build("py3.11_cuda11.8_cudnn8.7.0_0") == 11);   // PyTorch's own channel
  CHECK(cuda_major_of_conda_build("cuda120py312hd0a6e0e_201") == 12);       // conda-forge's jaxlib
  CHECK(cuda_major_of_conda_build("cuda130_py313_h0123456_0") == 13);
  CHECK_FALSE(cuda_major_of_conda_build("cpu_mkl_py312_h1234567_100"));
  CHECK_FALSE(cuda_major_of_conda_build("py312_cudnn9_0"));
  CHECK_FALSE(cuda_major_of_conda_build(""));
}

TEST_CASE("what says a package is built for a major: name, local version, build string, requirements") {
  const auto by_name = built_for("cupy-cuda11x", "12.3.0", "", {});
  const auto by_version = built_for("torch", "2.5.1+cu118", "", {});
  const auto by_build = built_for("pytorch", "2.5.1", "py3.11_cuda11.8_cudnn8.7.0_0", {});
  REQUIRE(by_name);
  REQUIRE(by_version);
  REQUIRE(by_build);
  CHECK(by_name->evidence == "its name");
  CHECK(by_version->evidence == "its local version +cu118");
  CHECK(by_version->major == 11);
  CHECK(by_build->major == 11);
  ComponentRequirement cudart{"torch", "2.5.1", "pip", "cuda_runtime", {}};
  cudart.requirement.name = "nvidia-cuda-runtime-cu11";
  cudart.requirement.text = "nvidia-cuda-runtime-cu11==11.8.89";
  auto from_requirements = built_for("torch", "2.5.1", "", {cudart});
  REQUIRE(from_requirements);
  CHECK(from_requirements->major == 11);
  CHECK(from_requirements->evidence == "its requirement nvidia-cuda-runtime-cu11==11.8.89");
  ComponentRequirement other = cudart;
  other.requirement.name = "nvidia-cublas-cu12";
  CHECK_FALSE(built_for("torch", "2.5.1", "", {cudart, other})); // two majors: it says nothing
  CHECK_FALSE(built_for("numpy", "2.1.0", "", {cudart}));         // another package's requirement
  CHECK(conda_rebuild_command("pytorch", 12) == "conda install pytorch 'cuda-version=12'");
  // PyPI's torch (no local version) is named in another major by PyTorch's index too.
  CHECK(rebuild_for("torch", "2.5.1", 12)->index_url == "https://download.pytorch.org/whl/cu126");
}

TEST_CASE("majors below 10 are one digit; PyTorch's channel builds are chosen by pytorch-cuda") {
  CHECK(cuda_major_of_build("torch", "1.2.0+cu92") == 9);
  CHECK(cuda_major_of_conda_build("py3.7_cuda9.2.148_cudnn7.6.3_0") == 9);
  CHECK(cuda_major_of_build("cupy-cuda117", "10.6.0") == 11);
  CHECK(conda_rebuild_command("pytorch", 12, "py3.11_cuda11.8_cudnn8.7.0_0") ==
        "conda install pytorch pytorch-cuda=12.4 -c pytorch -c nvidia");
  CHECK(conda_rebuild_command("pytorch", 13, "py3.11_cuda11.8_cudnn8.7.0_0") == "conda install pytorch 'cuda-version=13'");
  CHECK(conda_rebuild_command("pytorch", 12, "cuda118_mkl_py311_h0_300") == "conda install pytorch 'cuda-version=12'");
}
