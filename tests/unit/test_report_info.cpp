// report/info_report: the condacuda.info/1 and condacuda.list/1 JSON, their
// fields in order with their types, for values built by hand.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "report/info_report.hpp"
#include "support/json_shape.hpp"

using namespace condacuda;
using json_shape::member;
using json_shape::shape;

namespace {

const env::EnvRecord demo{"demo", "/envs/demo", env::EnvKind::venv, "--prefix"};

inventory::Inventory sample() {
  inventory::Inventory inv;
  inv.prefix = "/envs/demo";
  inv.site_packages = {"lib/python3.11/site-packages"};
  inv.folders = {{"lib/python3.11/site-packages/nvidia/nvjitlink/lib", "wheel", {"nvidia-nvjitlink-cu12 12.4.127"}}};
  inventory::Library pip;
  pip.file = "lib/python3.11/site-packages/nvidia/nvjitlink/lib/libnvJitLink.so.12";
  pip.component = "nvjitlink";
  pip.toolkit = true;
  pip.soname = "libnvJitLink.so.12";
  pip.folder = "lib/python3.11/site-packages/nvidia/nvjitlink/lib";
  pip.manager = "pip";
  pip.package = "nvidia-nvjitlink-cu12";
  pip.version = "12.4.127";
  pip.cuda_major = 12;
  pip.cuda_major_source = "wheel name";
  inventory::Library bare; // no package owns it, CUDA major unknown
  bare.file = "lib/libcudnn.so.9";
  bare.component = "cudnn";
  bare.soname = "libcudnn.so.9";
  bare.folder = "lib";
  bare.names = {"lib/libcudnn.so"};
  bare.needed = {"libcublas.so.12"};
  pip.gpu_code = inventory::GpuCode{{"sm_80", "sm_90a"}, {"compute_90"}, "9.0", true, {}};
  inv.libraries = {pip, bare};
  inv.consumers = {{"lib/python3.11/site-packages/torch/lib/libtorch_cuda.so", {"libcudart.so.12"}, "pip", "torch", "2.5.0"}};
  inv.cuda_majors = {12};
  inv.warnings = {"x.dist-info: no readable RECORD"};
  return inv;
}

} // namespace

TEST_CASE("condacuda.info/1: the top-level fields in order with their types") {
  auto j = report::info_json(demo, app::EnvInfo{sample(), {}, {}});
  CHECK(j.string_at("schema") == "condacuda.info/1");
  CHECK(shape(j) == "schema:string env:object cuda:string cuda_majors:array site_packages:array library_folders:array "
                    "components:array consumers:array pinned:array frameworks:array sys_path_libraries:array kernels:array "
                    "unreadable_kernelspecs:array warnings:array");
  CHECK(shape(member(j, "env")) == "name:string prefix:string kind:string");
  CHECK(member(j, "env").string_at("kind") == "venv");
  CHECK(j.string_at("cuda") == "12");
  REQUIRE(member(j, "cuda_majors").as_array().size() == 1);
  CHECK(member(j, "cuda_majors").as_array()[0].as_int() == 12);
  const auto& folders = member(j, "library_folders").as_array();
  REQUIRE(folders.size() == 1);
  CHECK(shape(folders[0]) == "path:string layout:string packages:array");
}

TEST_CASE("condacuda.info/1: components with their package, unknown values null") {
  auto j = report::info_json(demo, app::EnvInfo{sample(), {}, {}});
  const auto& libs = member(j, "components").as_array();
  REQUIRE(libs.size() == 2);
  const std::string fields = "component:string soname:string file:string folder:string names:array toolkit:bool "
                             "package:object cuda_major:";
  CHECK(shape(libs[0]) == fields + "int cuda_major_source:string needed:array gpu_code:object");
  CHECK(shape(member(libs[0], "gpu_code")) == "sass:array ptx:array ptx_isa:string compressed:bool problems:array");
  CHECK(member(libs[0], "gpu_code").string_at("ptx_isa") == "9.0");
  CHECK(shape(member(libs[0], "package")) == "manager:string name:string version:string");
  CHECK(member(libs[0], "package").string_at("manager") == "pip");
  CHECK(member(libs[0], "cuda_major").as_int() == 12);
  CHECK(shape(libs[1]) == fields + "null cuda_major_source:null needed:array gpu_code:null");
  CHECK(shape(member(libs[1], "package")) == "manager:null name:null version:null");
  const auto& consumers = member(j, "consumers").as_array();
  REQUIRE(consumers.size() == 1);
  CHECK(shape(consumers[0]) == "file:string needs:array package:string gpu_code:null");
  CHECK(consumers[0].string_at("package") == "torch");
}

TEST_CASE("condacuda.info/1: each framework with its version, CUDA major and recipe; NVIDIA libraries outside the env") {
  frameworks::InstalledFramework torch;
  torch.framework = frameworks::embedded_recipes().find("torch");
  REQUIRE(torch.framework);
  torch.version = "2.6.0+cu124";
  torch.distribution = "torch";
  torch.cuda_major = 12;
  torch.package_dir = "/envs/demo/lib/python3.11/site-packages/torch";
  torch.recipe = torch.framework->recipe_for(torch.version);
  REQUIRE(torch.recipe);
  frameworks::InstalledFramework old = torch;
  old.version = "1.13.1";
  old.recipe = old.framework->recipe_for(old.version);
  CHECK(old.recipe == nullptr); // outside every recipe's releases
  frameworks::SysPathLibrary lib{"/home/u/.local/lib/python3.11/site-packages", python::PathOrigin::user_site,
                                 "/home/u/.local/lib/python3.11/site-packages", "nvidia/nvjitlink/lib/libnvJitLink.so.12",
                                 "nvidia-nvjitlink-cu12", "12.0.140", true};
  auto j = report::info_json(demo, app::EnvInfo{sample(), {torch, old}, {lib}});
  const auto& fws = member(j, "frameworks").as_array();
  REQUIRE(fws.size() == 2);
  CHECK(shape(fws[0]) == "framework:string distribution:string version:string cuda_major:int location:string origin:string "
                         "recipe:string recipe_source:string inferred:bool");
  CHECK(fws[0].string_at("recipe") == "torch-2.6");
  CHECK(member(fws[1], "recipe").is_null());
  const auto& outside = member(j, "sys_path_libraries").as_array();
  REQUIRE(outside.size() == 1);
  CHECK(shape(outside[0]) == "file:string sys_path_entry:string origin:string wheel:string version:string "
                             "before_env_site_packages:bool");
  CHECK(outside[0].string_at("origin") == "the user site");
  const std::string text = report::info_text(demo, app::EnvInfo{sample(), {torch, old}, {lib}}, report::Style{});
  CHECK(text.find("torch-2.6") != std::string::npos);
  CHECK(text.find("none: judged library by library") != std::string::npos);
  CHECK(text.find("nvidia-nvjitlink-cu12 12.0.140") != std::string::npos);
}

TEST_CASE("condacuda.info/1: a conda library's package has its build") {
  auto inv = sample();
  inv.libraries[0].manager = "conda";
  inv.libraries[0].build = "h5888daf_0";
  auto j = report::info_json(demo, app::EnvInfo{inv, {}, {}});
  const auto& package = member(member(j, "components").as_array()[0], "package");
  CHECK(shape(package) == "manager:string name:string version:string build:string");
  CHECK(package.string_at("build") == "h5888daf_0");
}

TEST_CASE("condacuda.list/1: every env with its source, CUDA summary and repair state") {
  std::vector<app::ListedEnv> rows{{demo, "12", "repaired"},
                                   {env::EnvRecord{"base", "/opt/conda", env::EnvKind::conda, "root"}, "none", "-"}};
  auto j = report::list_json(rows);
  CHECK(j.string_at("schema") == "condacuda.list/1");
  CHECK(shape(j) == "schema:string envs:array");
  const auto& envs = member(j, "envs").as_array();
  REQUIRE(envs.size() == 2);
  CHECK(shape(envs[0]) == "name:string prefix:string kind:string source:string cuda:string repair:string");
  CHECK(envs[0].string_at("cuda") == "12");
  CHECK(envs[1].string_at("source") == "root");
  CHECK(envs[1].string_at("repair") == "-");
  CHECK(shape(report::list_json({})) == "schema:string envs:array");
}
