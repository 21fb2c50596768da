// doctor/gpu_coverage: the coverage rules one by one (SASS within a major,
// arch-specific a, family f, PTX JIT up to the device and the driver's PTX
// ISA), the GPU table (embedded, parsed, a name as a run of words), and
// devices as users write them. tests/e2e/test_doctor_gpu.sh runs them on
// nvcc-compiled libraries and the real CUDA 13 ones.
#include <doctest/doctest.h>

#include "doctor/gpu_coverage.hpp"

using namespace condacuda;
using namespace condacuda::doctor;
using elf::FatbinCodeKind;

namespace {
elf::FatbinEntry entry(FatbinCodeKind kind, std::uint32_t arch, bool a, bool f, std::uint16_t major, std::uint16_t minor) {
  elf::FatbinEntry e;
  e.kind = kind;
  e.arch = arch;
  e.arch_specific = a;
  e.family = f;
  e.version_major = major;
  e.version_minor = minor;
  return e;
}
elf::FatbinEntry sass(std::uint32_t arch, bool a = false, bool f = false) {
  return entry(FatbinCodeKind::sass, arch, a, f, 1, 8);
}
elf::FatbinEntry ptx(std::uint32_t arch, std::uint16_t isa_major = 9, std::uint16_t isa_minor = 0) {
  return entry(FatbinCodeKind::ptx, arch, false, false, isa_major, isa_minor);
}
elf::FatbinSummary fatbin(std::vector<elf::FatbinEntry> entries) {
  elf::FatbinSummary s;
  s.has_section = true;
  s.entries = std::move(entries);
  return s;
}
Device dev(int major, int minor) { return {"cc" + std::to_string(major) + std::to_string(minor), major, minor}; }
CoverageKind kind(const elf::FatbinSummary& c, Device d, std::optional<std::string> isa = std::nullopt) {
  return coverage_for(c, d, isa).kind;
}
} // namespace

TEST_CASE("coverage: SASS runs within its major on an equal or newer minor") {
  auto c = fatbin({sass(80)});
  CHECK(kind(c, dev(8, 0)) == CoverageKind::sass);
  CHECK(kind(c, dev(8, 6)) == CoverageKind::sass);
  CHECK(kind(c, dev(8, 9)) == CoverageKind::sass);
  CHECK(kind(c, dev(9, 0)) == CoverageKind::none); // another major
  CHECK(kind(c, dev(7, 5)) == CoverageKind::none);
  CHECK(kind(fatbin({sass(86)}), dev(8, 0)) == CoverageKind::none); // an older minor
  CHECK(coverage_for(c, dev(8, 6), std::nullopt).target == "sm_80");
}

TEST_CASE("coverage: sm_90a only on exactly 9.0; sm_100f on the family") {
  CHECK(kind(fatbin({sass(90, true)}), dev(9, 0)) == CoverageKind::sass);
  CHECK(kind(fatbin({sass(100, true)}), dev(10, 3)) == CoverageKind::none);
  CHECK(kind(fatbin({sass(100, false, true)}), dev(10, 3)) == CoverageKind::sass);
  CHECK(kind(fatbin({sass(100, false, true)}), dev(12, 0)) == CoverageKind::none);
  CHECK(kind(fatbin({ptx(90)}), dev(9, 0)) == CoverageKind::ptx_jit);
  auto arch_ptx = ptx(90);
  arch_ptx.arch_specific = true;
  CHECK(kind(fatbin({arch_ptx}), dev(10, 0)) == CoverageKind::none); // compute_90a is no PTX for Blackwell
}

TEST_CASE("coverage: PTX JIT-compiles for the same or a newer architecture, if the driver knows its ISA") {
  auto c = fatbin({sass(75), ptx(75, 8, 8)});
  CHECK(kind(c, dev(7, 5)) == CoverageKind::sass);
  CHECK(kind(c, dev(8, 0)) == CoverageKind::ptx_jit);
  CHECK(kind(c, dev(12, 0)) == CoverageKind::ptx_jit);
  CHECK(kind(c, dev(7, 0)) == CoverageKind::none); // PTX compute_75 cannot serve sm_70
  CHECK(kind(c, dev(9, 0), std::string("8.8")) == CoverageKind::ptx_jit);
  CHECK(kind(c, dev(9, 0), std::string("8.4")) == CoverageKind::none); // the driver is older than the PTX
  auto none = coverage_for(c, dev(9, 0), std::string("8.4"));
  CHECK(none.why.find("needs a driver that compiles PTX ISA 8.8") != std::string::npos);
  CHECK(coverage_for(fatbin({sass(80)}), dev(7, 0), std::nullopt).why ==
        "it has SASS sm_80 and no PTX; sm_70 runs none of them");
}

TEST_CASE("the GPU table: embedded, names as runs of words, drivers by branch") {
  auto t = embedded_gpu_table();
  REQUIRE(t.ok());
  auto at = [&](const char* s) {
    auto d = parse_device(s, *t);
    REQUIRE_MESSAGE(d.ok(), s);
    return std::make_pair(d->major, d->minor);
  };
  CHECK(at("V100") == std::make_pair(7, 0));
  CHECK(at("A100") == std::make_pair(8, 0));
  CHECK(at("A10") == std::make_pair(8, 6));
  CHECK(at("NVIDIA A10G") == std::make_pair(8, 6));
  CHECK(at("L40S") == std::make_pair(8, 9));
  CHECK(at("NVIDIA H100 80GB HBM3") == std::make_pair(9, 0));
  CHECK(at("h200") == std::make_pair(9, 0));
  CHECK(at("B200") == std::make_pair(10, 0));
  CHECK(at("NVIDIA GeForce RTX 5090") == std::make_pair(12, 0));
  CHECK(at("sm_90a") == std::make_pair(9, 0));
  CHECK(at("compute_75") == std::make_pair(7, 5));
  CHECK(at("12.1") == std::make_pair(12, 1));
  CHECK_FALSE(parse_device("A1000000", *t).ok()); // not a word of the table
  CHECK_FALSE(parse_device("sm_x", *t).ok());
  REQUIRE(t->driver(535));
  CHECK(t->driver(535)->ptx_isa == "8.2");
  CHECK(t->driver(581)->cuda == "13.0");
  CHECK_FALSE(t->driver(470));
  CHECK(t->external_kernels.count("cufft") == 1);
}

TEST_CASE("the GPU table: a replacement file is checked") {
  CHECK(parse_gpu_table("version: 1\ngpus:\n  - {cc: \"9.0\", names: [X1]}\n", "t.yml").ok());
  CHECK_FALSE(parse_gpu_table("version: 2\ngpus: []\n", "t.yml").ok());
  CHECK_FALSE(parse_gpu_table("version: 1\ngpus:\n  - {cc: nine, names: [X1]}\n", "t.yml").ok());
  CHECK_FALSE(parse_gpu_table("version: 1\n", "t.yml").ok());
}

TEST_CASE("coverage: PTX that only a newer driver compiles names the oldest ISA that would serve") {
  auto c = fatbin({sass(80), ptx(80, 9, 0), ptx(86, 8, 8)});
  auto none = coverage_for(c, dev(9, 0), std::string("8.4"));
  CHECK(none.kind == CoverageKind::none);
  CHECK(none.needs_ptx_isa == "8.8");
  CHECK(coverage_for(fatbin({sass(80)}), dev(9, 0), std::string("8.4")).needs_ptx_isa.empty()); // no PTX: no driver helps
  auto t = embedded_gpu_table();
  REQUIRE(t.ok());
  REQUIRE(t->first_driver_for_ptx_isa("8.8"));
  CHECK(t->first_driver_for_ptx_isa("8.8")->branch == 575);
  CHECK(t->first_driver_for_ptx_isa("9.0")->branch == 580);
  CHECK_FALSE(t->first_driver_for_ptx_isa("99.0"));
}

TEST_CASE("the release that first builds for a GPU: GPU table since_cuda + release table") {
  auto gpus = embedded_gpu_table();
  auto releases = lock::embedded_release_table();
  REQUIRE(gpus.ok());
  REQUIRE(releases.ok());
  CHECK(gpus->since_cuda(10, 0) == "12.8");
  CHECK(gpus->since_cuda(9, 0) == "11.8");
  CHECK(gpus->since_cuda(4, 2).empty());
  inventory::Library cublas;
  cublas.component = "cublas";
  cublas.version = "12.4.5.8";
  auto b200 = release_adding_arch(cublas, dev(10, 0), *gpus, *releases);
  REQUIRE(b200);
  CHECK(b200->release == "12.8.0");
  CHECK(b200->version == "12.8.3.14");
  inventory::Library lt = cublas; // cuBLASLt takes cuBLAS's version column
  lt.component = "cublaslt";
  REQUIRE(release_adding_arch(lt, dev(10, 0), *gpus, *releases));
  CHECK(release_adding_arch(lt, dev(10, 0), *gpus, *releases)->version == "12.8.3.14");
  cublas.version = "12.8.3.14"; // already that release: the table cannot say more
  CHECK_FALSE(release_adding_arch(cublas, dev(10, 0), *gpus, *releases));
  cublas.version = "12.4.5.8";
  CHECK_FALSE(release_adding_arch(cublas, dev(9, 0), *gpus, *releases)); // since 11.8: the table's first row (12.1) is older than 12.4
}

namespace {
// A report whose one root loads `file` (prefix-relative) of the env at /env,
// a library of `component` from `package` `version` (CUDA `major`).
DoctorReport one_library(const std::string& file, const std::string& component, const std::string& package,
                         const std::string& version, int major) {
  DoctorReport r;
  r.inputs.env.prefix = "/env";
  inventory::Library lib;
  lib.file = file;
  lib.component = component;
  lib.manager = "pip";
  lib.package = package;
  lib.version = version;
  lib.cuda_major = major;
  r.inputs.inventory.libraries.push_back(lib);
  RootResult root;
  root.file = file;
  root.kind = doctor::RootKind::library;
  root.component = component;
  loader::ObjectSummary o;
  o.name = "/env/" + file;
  root.report.objects.push_back(o);
  r.roots.push_back(root);
  return r;
}
} // namespace

TEST_CASE("the GPU table's data_center names: H100 is one, an RTX 3090 and a bare sm_90 are not") {
  auto t = embedded_gpu_table();
  REQUIRE(t.ok());
  CHECK(parse_device("NVIDIA H100 80GB HBM3", *t)->data_center);
  CHECK(parse_device("V100", *t)->data_center);
  CHECK(parse_device("A10G", *t)->data_center);
  CHECK_FALSE(parse_device("RTX 3090", *t)->data_center);
  CHECK_FALSE(parse_device("Titan V", *t)->data_center);
  CHECK_FALSE(parse_device("sm_90", *t)->data_center);
  CHECK_FALSE(parse_device("9.0", *t)->data_center);
  auto bad = parse_gpu_table("version: 1\ngpus:\n  - {cc: \"9.0\", names: [H100], data_center: [H200]}\n", "x.yml");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("not among its names") != std::string::npos);
}

TEST_CASE("coverage findings: a driver too old for a Data Center GPU names forward compatibility; elsewhere not") {
  auto t = embedded_gpu_table();
  REQUIRE(t.ok());
  auto report = one_library("lib/libk.so", "cublas", "nvidia-cublas", "13.1.0.3", 13);
  FatbinSource code = [](const std::string&) { return std::optional<elf::FatbinSummary>(fatbin({sass(80), ptx(80, 9, 0)})); };
  auto driver = t->driver(535);
  auto h100 = coverage_findings(report, code, {*parse_device("H100", *t)}, driver, *t, nullptr);
  REQUIRE(h100.size() == 1);
  CHECK(h100[0].code == code::driver_too_old);
  CHECK(h100[0].fix ==
        "update the NVIDIA driver to branch 580 or newer (CUDA 13.0), or install a build with SASS for the GPU; or, on this "
        "Data Center GPU, NVIDIA's CUDA forward-compatibility package (cuda-compat-13-0 from NVIDIA's repositories, or "
        "cuda-compat on conda), which runs CUDA 13.0 on an older driver branch where NVIDIA's compatibility table supports "
        "that branch");
  auto sm90 = coverage_findings(report, code, {*parse_device("sm_90", *t)}, driver, *t, nullptr);
  REQUIRE(sm90.size() == 1);
  CHECK(sm90[0].fix.find("cuda-compat") == std::string::npos);
  auto rtx = coverage_findings(report, code, {*parse_device("RTX 5090", *t)}, driver, *t, nullptr);
  REQUIRE(rtx.size() == 1);
  CHECK(rtx[0].fix.find("cuda-compat") == std::string::npos);
}

TEST_CASE("coverage findings: a CUDA 13 library on a V100 is told of the CUDA 12 package, with no version it cannot have") {
  auto t = embedded_gpu_table();
  auto releases = lock::embedded_release_table();
  REQUIRE(t.ok());
  REQUIRE(releases.ok());
  auto report = one_library("lib/libcublas.so.13", "cublas", "nvidia-cublas", "13.1.0.3", 13);
  FatbinSource code = [](const std::string&) { return std::optional<elf::FatbinSummary>(fatbin({sass(75), sass(80)})); };
  auto v100 = coverage_findings(report, code, {*parse_device("V100", *t)}, std::nullopt, *t, &*releases);
  REQUIRE(v100.size() == 1);
  CHECK(v100[0].code == code::no_kernel_image);
  CHECK(v100[0].fix ==
        "CUDA 13 builds nothing for GPUs before Turing (sm_75): on V100 replace nvidia-cublas 13.1.0.3 with the CUDA 12 "
        "wheel nvidia-cublas-cu12 (CUDA 12 still builds sm_70; the newest CUDA 12 release the release table knows, "
        "12.9.1, has cublas 12.9.1.4), or run on a newer GPU");
  CHECK(v100[0].fix.find("nvidia-cublas-cu12 13") == std::string::npos);
}

TEST_CASE("coverage findings: no GPU code in the env's loaded files says nothing was judged") {
  auto t = embedded_gpu_table();
  REQUIRE(t.ok());
  auto report = one_library("lib/libplain.so", "cudart", "nvidia-cuda-runtime", "13.0.96", 13);
  FatbinSource none = [](const std::string&) { return std::optional<elf::FatbinSummary>(); };
  auto f = coverage_findings(report, none, {*parse_device("V100", *t), *parse_device("H100", *t)}, std::nullopt, *t, nullptr);
  REQUIRE(f.size() == 1);
  CHECK(f[0].code == code::no_gpu_code);
  CHECK(f[0].severity == Severity::info);
  CHECK(f[0].title == "no library of this env that loads carries GPU code: nothing judged for --gpu V100, H100");
  // With GPU code somewhere: no such finding.
  FatbinSource some = [](const std::string&) { return std::optional<elf::FatbinSummary>(fatbin({sass(70), sass(90)})); };
  CHECK(coverage_findings(report, some, {*parse_device("V100", *t)}, std::nullopt, *t, nullptr).empty());
}
