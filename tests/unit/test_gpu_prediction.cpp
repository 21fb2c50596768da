// check/gpu_prediction: the check's coverage prediction for the device it
// ran on against what the device did, on probe reports as the child writes
// them: a V100 where cuBLASLt (CUDA 13, no sm_70) refuses the GEMMs with
// CUBLAS_STATUS_ARCH_MISMATCH agrees; the same GEMMs passing is a mismatch
// (the rules would be wrong); a failure of another kind is no evidence.
#include <doctest/doctest.h>

#include "check/gpu_prediction.hpp"
#include "check/verdict.hpp"

using namespace condacuda;
using namespace condacuda::check;

namespace {
elf::FatbinSummary sass_only(std::vector<std::uint32_t> archs) {
  elf::FatbinSummary s;
  s.has_section = true;
  for (auto a : archs) {
    elf::FatbinEntry e;
    e.kind = elf::FatbinCodeKind::sass;
    e.arch = a;
    s.entries.push_back(e);
  }
  return s;
}

ProbeResult probe_on(int major, int minor, StepStatus gemm, const std::string& gemm_error = "") {
  ProbeResult p;
  DeviceInfo d;
  d.facts.cc_major = major;
  d.facts.cc_minor = minor;
  p.device = d;
  p.libraries.push_back({Component::cublaslt, "libcublasLt.so.13", true, "/env/lib/libcublasLt.so.13", "", 1, "13.0"});
  p.libraries.push_back({Component::cusparse, "libcusparse.so.12", true, "/env/lib/libcusparse.so.12", "", 1, "12.6"});
  p.libraries.push_back({Component::cudart, "libcudart.so.13", true, "/env/lib/libcudart.so.13", "", 1, "13.0"});
  for (const char* name : {"gemm-bf16", "gemm-tf32", "gemm-fp32"}) {
    StepResult s;
    s.name = name;
    s.status = gemm;
    s.error = gemm_error;
    p.steps.push_back(s);
  }
  return p;
}

std::optional<elf::FatbinSummary> fatbins(const std::string& path) {
  if (path.ends_with("libcublasLt.so.13")) return sass_only({75, 80, 90, 100});
  if (path.ends_with("libcusparse.so.12")) return sass_only({75, 80, 90});
  return std::nullopt; // cudart: no GPU code
}

const CoverageComparison* of(const std::vector<CoverageComparison>& v, Component c) {
  for (const auto& x : v)
    if (x.component == c) return &x;
  return nullptr;
}
} // namespace

TEST_CASE("coverage on the device: a refused GEMM on a V100 agrees with no sm_70 code") {
  auto probe = probe_on(7, 0, StepStatus::fail, "cublasLtMatmul: CUBLAS_STATUS_ARCH_MISMATCH");
  auto v = compare_coverage(probe, fatbins, std::nullopt);
  REQUIRE(v.size() == 2); // cudart has no kernels of its own; cuSPARSE ran no step
  const auto* lt = of(v, Component::cublaslt);
  REQUIRE(lt);
  CHECK(lt->device == "sm_70");
  CHECK(lt->predicted.kind == doctor::CoverageKind::none);
  CHECK(lt->observed == "no kernel image");
  CHECK(lt->matches == std::optional<bool>(true));
  const auto* sp = of(v, Component::cusparse);
  REQUIRE(sp);
  CHECK(sp->observed == "not run");
  CHECK_FALSE(sp->matches.has_value());
}

TEST_CASE("coverage on the device: a GEMM that ran where no kernel was predicted is a mismatch warning") {
  CheckReport r;
  r.probe = probe_on(7, 0, StepStatus::pass);
  r.coverage = compare_coverage(r.probe, fatbins, std::nullopt);
  REQUIRE(of(r.coverage, Component::cublaslt));
  CHECK(of(r.coverage, Component::cublaslt)->matches == std::optional<bool>(false));
  auto warnings = probe_warnings(r);
  bool named = false;
  for (const auto& w : warnings)
    named = named || (w.code == "prediction-mismatch" && w.message.find("have no kernel for sm_70") != std::string::npos);
  CHECK(named);
}

TEST_CASE("coverage on the device: an H100 runs the SASS; a failure of another kind is no evidence") {
  auto ran = compare_coverage(probe_on(9, 0, StepStatus::pass), fatbins, std::nullopt);
  REQUIRE(of(ran, Component::cublaslt));
  CHECK(of(ran, Component::cublaslt)->predicted.target == "sm_90");
  CHECK(of(ran, Component::cublaslt)->matches == std::optional<bool>(true));
  auto other = compare_coverage(probe_on(9, 0, StepStatus::fail, "cublasLtMatmul: CUBLAS_STATUS_EXECUTION_FAILED"), fatbins,
                                std::nullopt);
  CHECK(of(other, Component::cublaslt)->observed == "failed");
  CHECK_FALSE(of(other, Component::cublaslt)->matches.has_value());
  CHECK(compare_coverage(ProbeResult{}, fatbins, std::nullopt).empty()); // no device: nothing to compare
}

TEST_CASE("the driver's PTX ISA from its CUDA version") {
  auto table = doctor::embedded_gpu_table();
  REQUIRE(table.ok());
  CHECK(driver_ptx_isa(13000, *table) == std::optional<std::string>("9.0"));
  CHECK(driver_ptx_isa(12020, *table) == std::optional<std::string>("8.2"));
  CHECK_FALSE(driver_ptx_isa(0, *table));
  CHECK_FALSE(driver_ptx_isa(99000, *table));
}
