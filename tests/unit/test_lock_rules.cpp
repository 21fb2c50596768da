// The alignment rules on small envs whose libraries are compiled here: a
// stand-in nvJitLink exporting __nvJitLink*_12_0 ... _12_N under version node
// libnvJitLink.so.12 (as the real one does) and a stand-in cuSPARSE that
// references one of them, as examples/demo-env builds them.
#include <doctest/doctest.h>

#include <filesystem>

#include "doctor/alignment_findings.hpp"
#include "doctor/doctor.hpp"
#include "lock/alignment.hpp"
#include "support/fixture.hpp"
#include "sys/disk_file_view.hpp"
#include "sys/machine.hpp"

using namespace condacuda;
using namespace condacuda::lock;
namespace fs = std::filesystem;

namespace {
const ReleaseTable& table() {
  static ReleaseTable t = *embedded_release_table();
  return t;
}

class FakeEnv {
public:
  FakeEnv() : dir_("lock-rules") { fixture::make_dirs(dir_ / "build"); }

  // An nvJitLink wheel whose library defines the entry points of 12.0 ... 12.max_minor.
  void nvjitlink(const std::string& version, int max_minor, const std::string& package = "nvidia-nvjitlink-cu12") {
    std::string lib = build_nvjitlink(max_minor, "env");
    add(lib, "lib/nvidia/nvjitlink/lib/libnvJitLink.so.12", "nvjitlink", "libnvJitLink.so.12", package, version, 12, {});
  }

  // A cuSPARSE wheel built against an nvJitLink of 12.needs_minor, referencing
  // __nvJitLinkAddData_12_<needs_minor>.
  void cusparse(const std::string& version, int needs_minor, const std::string& package = "nvidia-cusparse-cu12",
                int major = 12) {
    std::string link_against = build_nvjitlink(needs_minor, "link");
    std::string src = "int __nvJitLinkAddData_12_" + std::to_string(needs_minor) + "(void);\n" +
                      "int __nvJitLinkCreate_12_0(void);\n"
                      "int cusparseCreate(void) { return __nvJitLinkCreate_12_0() + __nvJitLinkAddData_12_" +
                      std::to_string(needs_minor) + "(); }\n";
    std::string out = dir_ / "build/libcusparse.so.12";
    fixture::shared_library(out, src, {"-Wl,-soname,libcusparse.so.12", "-L" + fs::path(link_against).parent_path().string(),
                                       "-l:libnvJitLink.so.12"});
    add(out, "lib/nvidia/cusparse/lib/libcusparse.so.12", "cusparse", "libcusparse.so.12", package, version, major,
        {"libnvJitLink.so.12"});
  }

  // A library with no versioned needs: only its package and major matter.
  void plain(const std::string& component, const std::string& soname, const std::string& package, const std::string& version,
             int major) {
    std::string out = dir_ / ("build/" + soname);
    fixture::shared_library(out, "int f(void) { return 0; }\n", {"-Wl,-soname," + soname});
    add(out, "lib/" + package + "/" + soname, component, soname, package, version, major, {});
  }

  Alignment evaluate(std::optional<DriverVersion> driver = std::nullopt) {
    view_ = std::make_unique<sys::DiskFileView>(sys::host_machine());
    AlignmentInputs in;
    in.inventory = &inv;
    in.table = &table();
    in.files = view_.get();
    in.driver = std::move(driver);
    return evaluate_alignment(in);
  }

  inventory::Inventory inv;

private:
  std::string build_nvjitlink(int max_minor, const std::string& tag) {
    std::string dir = dir_ / ("build/" + tag + std::to_string(max_minor));
    fixture::make_dirs(dir);
    std::string src, names;
    for (int m = 0; m <= max_minor; ++m) {
      std::string n = std::to_string(m);
      src += "int __nvJitLinkCreate_12_" + n + "(void) { return 0; }\nint __nvJitLinkAddData_12_" + n + "(void) { return 0; }\n";
      names += "__nvJitLinkCreate_12_" + n + "; __nvJitLinkAddData_12_" + n + "; ";
    }
    fixture::write_file(dir + "/nvjitlink.map", "libnvJitLink.so.12 {\n  global: " + names + "\n  local: *;\n};\n");
    fixture::shared_library(dir + "/libnvJitLink.so.12", src,
                            {"-Wl,-soname,libnvJitLink.so.12", "-Wl,--version-script=" + dir + "/nvjitlink.map"});
    return dir + "/libnvJitLink.so.12";
  }

  void add(const std::string& built, const std::string& rel, const std::string& component, const std::string& soname,
           const std::string& package, const std::string& version, int major, std::vector<std::string> needed) {
    fs::create_directories(fs::path(dir_ / rel).parent_path());
    fs::copy_file(built, dir_ / rel, fs::copy_options::overwrite_existing);
    inventory::Library lib;
    lib.file = rel;
    lib.component = component;
    lib.toolkit = component != "cudnn" && component != "nccl";
    lib.soname = soname;
    lib.folder = fs::path(rel).parent_path().string();
    lib.manager = "pip";
    lib.package = package;
    lib.version = version;
    lib.cuda_major = major;
    lib.cuda_major_source = "wheel name";
    lib.needed = std::move(needed);
    inv.libraries.push_back(std::move(lib));
    inv.prefix = dir_.path();
  }

  fixture::TempDir dir_;
  std::unique_ptr<sys::DiskFileView> view_;
};

const RuleOutcome& rule_of(const Alignment& a, const char* name) {
  const RuleOutcome* r = a.find(name);
  REQUIRE(r);
  return *r;
}
} // namespace

TEST_CASE("the demo env's set (cusparse 12.1 needs _12_1, nvjitlink 12.4) is aligned; the symbol rule implies 12.1") {
  FakeEnv env;
  env.nvjitlink("12.4.127", 4);
  env.cusparse("12.1.0.106", 1);
  env.plain("cudart", "libcudart.so.12", "nvidia-cuda-runtime-cu12", "12.1.105", 12);
  Alignment a = env.evaluate();
  CHECK(a.aligned);
  CHECK(a.series == "12.4"); // the newest release among the components
  const auto& symbols = rule_of(a, rule::symbols);
  CHECK(symbols.result == RuleResult::pass);
  CHECK(symbols.min_release == "12.1");
  CHECK(rule_of(a, rule::releases).result == RuleResult::pass);
  CHECK(rule_of(a, rule::same_major).result == RuleResult::pass);
  CHECK(rule_of(a, rule::driver).result == RuleResult::skipped);
  REQUIRE(a.rules.size() == 4);
  CHECK(a.rules[0].rule == "symbols");
  CHECK(a.rules[3].rule == "driver");
}

TEST_CASE("the release rule: an nvjitlink of the very release cusparse belongs to passes (at least, not above)") {
  // CUDA 12.1.1's set: cusparse 12.1.0.106 and nvjitlink 12.1.105, one release.
  FakeEnv env;
  env.nvjitlink("12.1.105", 1);
  env.cusparse("12.1.0.106", 1);
  Alignment a = env.evaluate();
  CHECK(a.aligned);
  const auto& releases = rule_of(a, rule::releases);
  CHECK(releases.result == RuleResult::pass);
  bool said = false;
  for (const auto& e : releases.evidence) said = said || e.find("nvJitLink 12.1 >= 12.1") == 0;
  CHECK_MESSAGE(said, "the evidence names the equal releases");
}

TEST_CASE("an nvjitlink wheel older than cusparse needs fails both the symbol and the release rule") {
  FakeEnv env;
  env.nvjitlink("12.1.105", 1);
  env.cusparse("12.3.1.170", 4); // CUDA 12.4.1's cuSPARSE
  Alignment a = env.evaluate();
  CHECK_FALSE(a.aligned);
  const auto& symbols = rule_of(a, rule::symbols);
  CHECK(symbols.result == RuleResult::fail);
  CHECK(symbols.min_release == "12.4");
  REQUIRE(symbols.failures.size() == 1);
  CHECK(symbols.failures[0].symbols == std::vector<std::string>{"__nvJitLinkAddData_12_4"});
  CHECK(symbols.failures[0].version == "libnvJitLink.so.12");
  CHECK(symbols.failures[0].needed_release == "12.4");
  CHECK(symbols.failures[0].provider_package == "nvidia-nvjitlink-cu12 12.1.105");
  const auto& releases = rule_of(a, rule::releases);
  CHECK(releases.result == RuleResult::fail);
  REQUIRE(releases.failures.size() == 1);
  CHECK(releases.failures[0].needed_release == "12.4");
  CHECK(releases.failures[0].consumer_soname == "libcusparse.so.12");

  // doctor turns the same failures into findings, with the fix in the manager that installed it.
  auto findings = doctor::alignment_findings(a);
  REQUIRE(findings.size() == 2);
  for (const auto& f : findings) {
    CHECK(f.code == doctor::code::misaligned);
    CHECK(f.severity == doctor::Severity::error);
    CHECK(f.library == "libnvJitLink.so.12");
    CHECK(f.fix == "pip install --upgrade 'nvidia-nvjitlink-cu12>=12.4'");
  }
  CHECK(findings[0].symbols == "__nvJitLinkAddData_12_4");
  CHECK(findings[0].min_release == "12.4");
}

TEST_CASE("a too-old nvJitLink no package owns: the finding names the file and never says install") {
  FakeEnv env;
  env.nvjitlink("", 0, "");
  env.inv.libraries.back().manager.clear(); // a file copied in by hand: no record owns it
  env.cusparse("12.1.0.106", 1);
  auto findings = doctor::alignment_findings(env.evaluate());
  REQUIRE_FALSE(findings.empty());
  const auto& f = findings.front();
  CHECK(f.title == "libcusparse.so.12 needs symbols the env's libnvJitLink.so.12 "
                   "(lib/nvidia/nvjitlink/lib/libnvJitLink.so.12, no package owns it) does not define");
  CHECK(f.fix == "remove lib/nvidia/nvjitlink/lib/libnvJitLink.so.12 (no package owns it), or replace it with "
                 "libnvJitLink.so.12 >= 12.1 from a package");
  for (const auto& each : findings) CHECK(each.fix.find("install") == std::string::npos);
  CHECK(f.evidence.front().find("which lib/nvidia/nvjitlink/lib/libnvJitLink.so.12 (no package owns it) does not define") !=
        std::string::npos);
}

TEST_CASE("the symbol rule needs no table: unknown versions leave only the release rule unknown") {
  FakeEnv env;
  env.nvjitlink("99.0.1", 1, "some-nvjitlink");
  env.cusparse("99.0.2", 4, "some-cusparse");
  Alignment a = env.evaluate();
  CHECK(rule_of(a, rule::symbols).result == RuleResult::fail);
  const auto& releases = rule_of(a, rule::releases);
  CHECK(releases.result == RuleResult::unknown);
  CHECK(releases.failures.empty());
  bool said_unknown = false;
  for (const auto& e : releases.evidence) said_unknown = said_unknown || e.find("unknown (not in the release table)") != std::string::npos;
  CHECK(said_unknown);
  CHECK(a.series == "12"); // only the major is known
}

TEST_CASE("toolkit libraries from two CUDA majors fail the same-major rule; the minority is named") {
  FakeEnv env;
  env.plain("cudart", "libcudart.so.13", "nvidia-cuda-runtime", "13.0.96", 13);
  env.plain("cublas", "libcublas.so.13", "nvidia-cublas", "13.1.0.3", 13);
  env.plain("cufft", "libcufft.so.11", "nvidia-cufft-cu12", "11.2.1.3", 12);
  env.plain("cudnn", "libcudnn.so.9", "nvidia-cudnn-cu12", "9.1.0.70", 12); // not a toolkit library: not judged
  Alignment a = env.evaluate();
  const auto& same = rule_of(a, rule::same_major);
  CHECK(same.result == RuleResult::fail);
  REQUIRE(same.failures.size() == 1);
  CHECK(same.failures[0].provider_soname == "libcufft.so.11");
  CHECK(same.failures[0].needed_release == "13");
  CHECK_FALSE(a.aligned);
  CHECK(a.series == "13.0");
  auto findings = doctor::alignment_findings(a);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].fix.find("nvidia-cufft") != std::string::npos);
}

TEST_CASE("CUDA 13 wheels in a CUDA 12 torch env: the consumers' major decides, the strays are named for removal") {
  FakeEnv env;
  env.nvjitlink("12.1.105", 1);
  env.cusparse("12.1.0.106", 1);
  env.plain("cusparse", "libcusparse.so.12", "nvidia-cusparse", "12.6.3.3", 13);
  env.plain("nvjitlink", "libnvJitLink.so.13", "nvidia-nvjitlink", "13.0.88", 13);
  // Without a consumer, two libraries of each major: the newer wins the tie.
  CHECK(rule_of(env.evaluate(), rule::same_major).failures.front().needed_release == "13");
  env.inv.consumers.push_back({"lib/torch/lib/libtorch_cuda.so", {"libcudart.so.12", "libcusparse.so.12"}, "pip", "torch", "2.4.0"});
  CHECK(inventory::consumers_major(env.inv).major == 12);
  CHECK(inventory::consumers_major(env.inv).evidence == "lib/torch/lib/libtorch_cuda.so needs libcudart.so.12");
  Alignment a = env.evaluate();
  CHECK(a.series == "12.1");
  const auto& same = rule_of(a, rule::same_major);
  CHECK(same.result == RuleResult::fail);
  REQUIRE(same.failures.size() == 2);
  for (const auto& f : same.failures) {
    CHECK(f.provider_major == 13);
    CHECK(f.needed_release == "12");
    CHECK_FALSE(f.replacement.empty());
  }
  auto findings = doctor::alignment_findings(a);
  const doctor::Finding* mixed = nullptr;
  for (const auto& f : findings)
    if (f.title.starts_with("toolkit libraries of another CUDA major")) mixed = &f;
  REQUIRE(mixed);
  CHECK(mixed->fix == "`pip uninstall -y nvidia-cusparse nvidia-nvjitlink` (the env's CUDA 12 copies stay: "
                      "nvidia-cusparse-cu12 12.1.0.106, nvidia-nvjitlink-cu12 12.1.105)");
  CHECK(mixed->fix.find("install nvidia-cusparse-cu12") == std::string::npos); // installed: never advised
  CHECK(mixed->affects.size() == 2);
  CHECK(mixed->title.find("the env's consumers need CUDA 12: lib/torch/lib/libtorch_cuda.so needs libcudart.so.12") !=
        std::string::npos);
}

TEST_CASE("consumers_major: sonames whose major is CUDA's and torch's +cuNNN; silent when they disagree") {
  inventory::Inventory inv;
  inv.consumers.push_back({"a.so", {"libcusparse.so.12"}, "", "", ""}); // cuSPARSE's soname says nothing
  CHECK(inventory::consumers_major(inv).major == -1);
  inv.consumers.push_back({"torch/_C.so", {"libcuda.so.1"}, "pip", "torch", "2.9.0+cu130"});
  CHECK(inventory::consumers_major(inv).major == 13);
  CHECK(inventory::consumers_major(inv).evidence == "torch 2.9.0+cu130 is a CUDA 13 build");
  inv.consumers.push_back({"cupy/x.so", {"libnvrtc.so.12"}, "pip", "cupy-cuda12x", "13.3.0"});
  CHECK(inventory::consumers_major(inv).major == -1);
}

TEST_CASE("the driver rule: the branch against the series' minimum, skipped without a driver") {
  FakeEnv env;
  env.plain("cudart", "libcudart.so.13", "nvidia-cuda-runtime", "13.0.96", 13);
  auto with = [&](const char* v) { return env.evaluate(parse_driver_version(v, "--driver")); };
  CHECK(rule_of(with("580.65.06"), rule::driver).result == RuleResult::pass);
  Alignment old = with("575.57.08");
  const auto& driver = rule_of(old, rule::driver);
  CHECK(driver.result == RuleResult::fail);
  CHECK_FALSE(old.aligned);
  CHECK(driver.evidence.back() == "the CUDA 13.0.0 installer bundles driver 580.65.06");
  auto findings = doctor::alignment_findings(old);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].code == doctor::code::driver_too_old);
  CHECK(rule_of(env.evaluate(), rule::driver).result == RuleResult::skipped);

  FakeEnv cu12;
  cu12.plain("cudart", "libcudart.so.12", "nvidia-cuda-runtime-cu12", "12.4.127", 12);
  CHECK(rule_of(cu12.evaluate(parse_driver_version("525.60.13", "--driver")), rule::driver).result == RuleResult::pass);
  CHECK(rule_of(cu12.evaluate(parse_driver_version("520.61.05", "--driver")), rule::driver).result == RuleResult::fail);
}

TEST_CASE("doctor's driver-too-old: the driver's source as given (--driver), and forward compatibility named") {
  FakeEnv env;
  env.plain("cudart", "libcudart.so.13", "nvidia-cuda-runtime", "13.0.96", 13);
  sys::DiskFileView files(sys::host_machine());
  doctor::DoctorInputs in;
  in.inventory = env.inv;
  in.driver_version = "535.104";
  in.driver_source = "--driver";
  auto findings = doctor::alignment_findings(in, files);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].code == doctor::code::driver_too_old);
  REQUIRE_FALSE(findings[0].evidence.empty());
  CHECK(findings[0].evidence[0] == "driver 535.104 (branch 535, from --driver) < 580, the minimum for CUDA 13.x");
  CHECK(findings[0].fix.find("forward-compatibility package (cuda-compat-13-X") != std::string::npos);
  CHECK(findings[0].fix.find("on a Data Center GPU") != std::string::npos); // doctor does not know the GPU here
  in.driver_source = doctor::DoctorInputs{}.driver_source; // the default: the machine's file
  CHECK(doctor::alignment_findings(in, files)[0].evidence[0].find("from /proc/driver/nvidia/version") != std::string::npos);
}

TEST_CASE("an env without CUDA libraries: nothing fails, nothing is guessed") {
  FakeEnv env;
  Alignment a = env.evaluate(parse_driver_version("580.65.06", "--driver"));
  CHECK(a.aligned);
  CHECK(a.series == "unknown");
  CHECK(rule_of(a, rule::same_major).result == RuleResult::unknown);
  CHECK(rule_of(a, rule::releases).result == RuleResult::unknown);
  CHECK(rule_of(a, rule::driver).result == RuleResult::skipped);
}
