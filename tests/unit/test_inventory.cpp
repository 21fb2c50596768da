#include <doctest/doctest.h>

#include "inventory/components.hpp"
#include "inventory/inventory.hpp"
#include "inventory/records.hpp"
#include "support/fixture.hpp"
#include "sys/env_scan.hpp"

#include <filesystem>

using namespace condacuda::inventory;

TEST_CASE("component classification by file name and soname") {
  CHECK(classify_library("libcusparse.so.12")->id == "cusparse");
  CHECK(classify_library("libcusparseLt.so.0")->id == "cusparselt");
  CHECK(classify_library("libcublasLt.so.13")->id == "cublaslt");
  CHECK(classify_library("libcublas.so.13")->id == "cublas");
  CHECK(classify_library("libcudnn_engines_precompiled.so.9")->id == "cudnn");
  CHECK(classify_library("libnvrtc-builtins.so.13.0")->id == "nvrtc");
  CHECK(classify_library("libnvJitLink.so.12")->soname_is_cuda_major);
  CHECK_FALSE(classify_library("libcusparse.so.12")->soname_is_cuda_major); // .12 in CUDA 12 and 13
  CHECK_FALSE(classify_library("libz.so.1"));
  CHECK_FALSE(classify_library("cusparse.so"));
  CHECK(is_driver_library("libcuda.so.1"));
  CHECK(soname_major("libcudart.so.12.4.127") == 12);
  CHECK(soname_major("libfoo.so") == -1);
  CHECK(looks_like_shared_library("libx.so"));
  CHECK(looks_like_shared_library("_C.cpython-311-x86_64-linux-gnu.so"));
  CHECK(looks_like_shared_library("libx.so.1.2"));
  CHECK_FALSE(looks_like_shared_library("libx.solver"));
  CHECK_FALSE(looks_like_shared_library("x.sol"));
}

TEST_CASE("RECORD, METADATA and conda-meta parsing") {
  auto rec = parse_record("nvidia/cu13/lib/libcusparse.so.12,sha256=CTOf,162565256\n"
                          "\"odd,name.txt\",,\n"
                          "nvidia_cusparse-12.6.3.3.dist-info/RECORD,,\n");
  REQUIRE(rec.size() == 3);
  CHECK(rec[0].path == "nvidia/cu13/lib/libcusparse.so.12");
  CHECK(rec[0].hash == "sha256=CTOf");
  CHECK(rec[0].size == "162565256");
  CHECK(rec[1].path == "odd,name.txt");
  // With a filter, only the entries it keeps (quoted or not) are copied.
  auto libraries = parse_record("a/libx.so.1,sha256=AA,10\n\"b/lib,y.so\",sha256=BB,20\nc/x.h,,\n\"d,e.txt\",,\n",
                                [](std::string_view path) { return path.find(".so") != std::string_view::npos; });
  REQUIRE(libraries.size() == 2);
  CHECK(libraries[0].path == "a/libx.so.1");
  CHECK(libraries[0].hash == "sha256=AA");
  CHECK(libraries[1].path == "b/lib,y.so");
  CHECK(libraries[1].size == "20");
  auto meta = parse_metadata("Metadata-Version: 2.4\nName: nvidia-cusparse\nVersion: 12.6.3.3\n\nName: body\n");
  CHECK(meta.name == "nvidia-cusparse");
  CHECK(meta.version == "12.6.3.3");
  auto pkg = parse_conda_record(R"({"name": "libcusparse", "version": "12.5.8.93", "build": "h0",
    "files": ["lib/libcusparse.so.12"], "depends": ["cuda-version >=12.8,<12.9.0a0", "libnvjitlink"]})");
  REQUIRE(pkg.ok());
  CHECK(pkg->files.size() == 1);
  CHECK(conda_cuda_version_pin(pkg->depends) == 12);
  CHECK_FALSE(parse_conda_record("[1]").ok());
  CHECK_FALSE(parse_conda_record("{\"files\": []}").ok());
  CHECK(normalize_package_name("nvidia_cusparse_cu12") == "nvidia-cusparse-cu12");
  CHECK(wheel_cuda_suffix("nvidia-cusparse-cu12") == 12);
  CHECK(wheel_cuda_suffix("nvidia-nccl-cu13") == 13);
  CHECK(wheel_cuda_suffix("cupy-cuda12x") == std::nullopt);
  CHECK(wheel_cuda_suffix("nvidia-cusparse") == std::nullopt);
}

TEST_CASE("inventory of a scanned env: owners, CUDA majors and their evidence, consumers, aliases") {
  fixture::TempDir t("inv");
  std::string sp = t / "lib/python3.11/site-packages";
  auto lib = [&](const std::string& rel, const std::string& soname, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args{"-Wl,-soname," + soname};
    args.insert(args.end(), extra.begin(), extra.end());
    fixture::shared_library(t / rel, "int f_" + std::to_string(rel.size()) + "(void) { return 1; }\n", args);
  };
  fixture::write_file(t / "conda-meta/history", "");
  // A CUDA 13 wheel (no -cuNN suffix): the cu13 folder tells the major.
  lib("lib/python3.11/site-packages/nvidia/cu13/lib/libnvJitLink.so.13", "libnvJitLink.so.13");
  lib("lib/python3.11/site-packages/nvidia/cu13/lib/libcusparse.so.12", "libcusparse.so.12",
      {"-L" + sp + "/nvidia/cu13/lib", "-Wl,--no-as-needed", "-l:libnvJitLink.so.13"});
  fixture::write_file(sp + "/nvidia_cusparse-12.6.3.3.dist-info/METADATA", "Name: nvidia-cusparse\nVersion: 12.6.3.3\n");
  fixture::write_file(sp + "/nvidia_cusparse-12.6.3.3.dist-info/RECORD", "nvidia/cu13/lib/libcusparse.so.12,,\n");
  // A conda package pinned through cuda-version, with a soname symlink.
  lib("targets/x86_64-linux/lib/libcufft.so.11.2.1", "libcufft.so.11");
  std::filesystem::create_directories(t / "lib");
  std::filesystem::create_symlink("../targets/x86_64-linux/lib/libcufft.so.11.2.1", t / "lib/libcufft.so.11");
  fixture::write_file(t / "conda-meta/libcufft-11.2.1.3-h0.json",
                      R"({"name": "libcufft", "version": "11.2.1.3", "build": "h0",
                          "files": ["lib/libcufft.so.11", "targets/x86_64-linux/lib/libcufft.so.11.2.1"],
                          "depends": ["cuda-version >=12.4,<12.5.0a0"]})");
  // An unowned library whose soname gives the major; a consumer.
  lib("lib/libcudart.so.12", "libcudart.so.12");
  fixture::shared_library(sp + "/pkg/_ext.so", "int x(void) { return 0; }\n",
                          {"-L" + sp + "/nvidia/cu13/lib", "-Wl,--no-as-needed", "-l:libcusparse.so.12", "-Wl,-rpath-link," + sp + "/nvidia/cu13/lib"});
  fixture::write_file(t / "conda-meta/broken.json", "{ not json");

  auto snap = condacuda::sys::scan_env(t.path());
  REQUIRE(snap.ok());
  Inventory inv = build_inventory(*snap);
  auto find = [&](const std::string& soname) -> const Library& {
    const Library* l = inv.find_by_soname(soname);
    REQUIRE(l != nullptr);
    return *l;
  };
  CHECK(find("libcusparse.so.12").cuda_major == 13);
  CHECK(find("libcusparse.so.12").cuda_major_source == "cuNN folder");
  CHECK(find("libcusparse.so.12").package == "nvidia-cusparse");
  CHECK(find("libnvJitLink.so.13").manager.empty()); // no RECORD lists it
  CHECK(find("libcufft.so.11").cuda_major == 12);
  CHECK(find("libcufft.so.11").cuda_major_source == "cuda-version pin");
  CHECK(find("libcufft.so.11").names == std::vector<std::string>{"lib/libcufft.so.11"});
  CHECK(find("libcufft.so.11").manager == "conda");
  CHECK(find("libcudart.so.12").cuda_major_source == "soname");
  REQUIRE(inv.consumers.size() == 1);
  CHECK(inv.consumers[0].needs == std::vector<std::string>{"libcusparse.so.12"});
  CHECK(inv.cuda_summary() == "mixed");
  CHECK(inv.warnings.size() == 1); // the broken conda-meta record, named
}
