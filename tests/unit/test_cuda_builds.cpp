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
