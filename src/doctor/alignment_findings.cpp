#include "doctor/alignment_findings.hpp"

#include "inventory/components.hpp"
#include "util/strings.hpp"

namespace condacuda::doctor {

namespace {
// "pip install --upgrade 'nvidia-nvjitlink-cu12>=12.4'" for the package that
// is too old, in the manager that installed it.
std::string upgrade_command(const lock::RuleFailure& f) {
  auto space = f.provider_package.find(' ');
  std::string package = f.provider_package.substr(0, space);
  std::string spec = f.needed_release.empty() ? package : package + ">=" + f.needed_release;
  if (f.provider_manager == "pip") return "pip install --upgrade '" + spec + "'";
  if (f.provider_manager == "conda") return "conda install '" + spec + "' (or mamba/pixi)";
  return "install " + f.provider_soname + (f.needed_release.empty() ? "" : " >= " + f.needed_release) + " into the env";
}

Finding base(const lock::RuleOutcome& rule, const lock::RuleFailure& f) {
  Finding out;
  out.code = code::misaligned;
  out.severity = Severity::error;
  out.library = f.provider_soname;
  out.expected = f.provider;
  out.expected_package = f.provider_package;
  out.min_release = f.needed_release;
  out.evidence.push_back(f.message);
  out.evidence.push_back("alignment rule '" + rule.rule + "' (the rule `condacuda lock` records)");
  out.affects.push_back(f.consumer.empty() ? f.provider : f.consumer);
  return out;
}

Finding symbols_finding(const lock::RuleOutcome& rule, const lock::RuleFailure& f) {
  Finding out = base(rule, f);
  out.title = f.consumer_soname + " needs symbols the env's " + f.provider_soname + " (" + f.provider_package +
              ") does not define";
  out.symbols = util::join(f.symbols, ",");
  out.version = f.version;
  out.fix = upgrade_command(f);
  return out;
}

Finding releases_finding(const lock::RuleOutcome& rule, const lock::RuleFailure& f) {
  Finding out = base(rule, f);
  out.title = "the env's nvJitLink (" + f.provider_package + ") is from an older CUDA release than " + f.consumer_soname +
              " (CUDA " + f.needed_release + ")";
  out.fix = upgrade_command(f);
  return out;
}

Finding same_major_finding(const lock::RuleOutcome& rule, const lock::RuleFailure& f) {
  Finding out = base(rule, f);
  out.title = "toolkit libraries from two CUDA majors: " + f.provider_soname + " is CUDA " + std::to_string(f.provider_major);
  std::string wheel = inventory::wheel_for_component(f.provider_component, util::leading_number(f.needed_release));
  out.fix = "install the CUDA " + f.needed_release + " build" + (wheel.empty() ? "" : " (" + wheel + ")") + " in place of " +
            (f.provider_package.empty() ? f.provider_soname : f.provider_package);
  out.min_release.clear(); // needed_release holds a major here, not a release
  return out;
}

Finding driver_finding(const lock::RuleOutcome& rule, const lock::RuleFailure& f) {
  Finding out;
  out.code = code::driver_too_old;
  out.severity = Severity::error;
  out.title = f.message;
  out.library = "libcuda.so.1";
  out.evidence = rule.evidence;
  out.fix = "update the NVIDIA driver to branch " + f.needed_release + " or newer (minor-version compatibility), "
            "or use an env of an older CUDA major";
  return out;
}
} // namespace

std::vector<Finding> alignment_findings(const lock::Alignment& alignment) {
  std::vector<Finding> out;
  for (const auto& rule : alignment.rules) {
    if (rule.result != lock::RuleResult::fail) continue;
    for (const auto& f : rule.failures) {
      if (rule.rule == lock::rule::symbols) out.push_back(symbols_finding(rule, f));
      else if (rule.rule == lock::rule::releases) out.push_back(releases_finding(rule, f));
      else if (rule.rule == lock::rule::same_major) out.push_back(same_major_finding(rule, f));
      else if (rule.rule == lock::rule::driver) out.push_back(driver_finding(rule, f));
    }
  }
  return out;
}

std::vector<Finding> alignment_findings(const DoctorInputs& in, loader::FileSystemView& files) {
  auto table = lock::embedded_release_table();
  if (!table) return {}; // a build without its table: a unit test catches it, doctor goes on
  lock::AlignmentInputs ai;
  ai.inventory = &in.inventory;
  ai.table = &*table;
  ai.files = &files;
  if (in.driver_version) ai.driver = lock::parse_driver_version(*in.driver_version, "/proc/driver/nvidia/version");
  return alignment_findings(lock::evaluate_alignment(ai));
}

} // namespace condacuda::doctor
