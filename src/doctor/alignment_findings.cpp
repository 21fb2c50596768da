#include "doctor/alignment_findings.hpp"

#include <algorithm>
#include <map>

#include "inventory/components.hpp"
#include "inventory/cuda_builds.hpp"
#include "util/strings.hpp"

namespace condacuda::doctor {

namespace {
// upgrade_command as a step, for a pip package.
std::vector<FixAction> upgrade_actions(const lock::RuleFailure& f) {
  if (f.provider_manager != "pip" || f.provider_package.empty()) return {};
  const std::string package = f.provider_package.substr(0, f.provider_package.find(' '));
  return {{"pip-install", {"install", "--upgrade", f.needed_release.empty() ? package : package + ">=" + f.needed_release}}};
}

// "pip install --upgrade 'nvidia-nvjitlink-cu12>=12.4'" for the package that
// is too old, in the manager that installed it. A copy no package owns is
// replaced or removed, never "installed": the env already has the soname.
std::string upgrade_command(const lock::RuleFailure& f) {
  auto space = f.provider_package.find(' ');
  std::string package = f.provider_package.substr(0, space);
  std::string spec = f.needed_release.empty() ? package : package + ">=" + f.needed_release;
  if (const auto steps = upgrade_actions(f); !steps.empty()) return command_line(steps.front());
  if (f.provider_manager == "conda") return "`conda install " + util::shell_word(spec) + "` (or mamba/pixi)";
  std::string wanted = f.provider_soname + (f.needed_release.empty() ? "" : " >= " + f.needed_release);
  if (f.provider_package.empty())
    return "remove " + f.provider + " (no package owns it), or replace it with " + wanted + " from a package";
  return "upgrade " + f.provider_package + " to " + wanted;
}

// "(pip nvidia-nvjitlink-cu12 12.1.105)", or the file when no package owns it.
std::string owner_text(const lock::RuleFailure& f) {
  if (f.provider_package.empty()) return "(" + f.provider + ", no package owns it)";
  return "(" + (f.provider_manager.empty() ? "" : f.provider_manager + " ") + f.provider_package + ")";
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
  out.title = f.consumer_soname + " needs symbols the env's " + f.provider_soname + " " + owner_text(f) +
              " does not define";
  out.symbols = util::join(f.symbols, ",");
  out.version = f.version;
  out.fix = upgrade_command(f);
  out.actions = upgrade_actions(f);
  return out;
}

Finding releases_finding(const lock::RuleOutcome& rule, const lock::RuleFailure& f) {
  Finding out = base(rule, f);
  out.title = "the env's nvJitLink " + owner_text(f) + " is from an older CUDA release than " + f.consumer_soname +
              " (CUDA " + f.needed_release + ")";
  out.fix = upgrade_command(f);
  out.actions = upgrade_actions(f);
  return out;
}

void add_once(std::vector<std::string>& list, const std::string& item) {
  if (!item.empty() && std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
}

// The package name of "name version" (or the whole label without a space).
std::string package_name(const std::string& label) { return label.substr(0, label.find(' ')); }

// Libraries of another CUDA major than the env's, all in one finding: the fix
// removes the strays (in the manager that installed each) and installs the
// env's build of a component only where the env has no copy of it; it never
// names a package that is already installed as one to install.
Finding same_major_finding(const lock::RuleOutcome& rule, const std::vector<lock::RuleFailure>& strays) {
  Finding out = base(rule, strays.front());
  const std::string& major = strays.front().needed_release;
  std::vector<std::string> labels, pip_remove, conda_remove, files, installs, kept, pip_installs;
  for (const auto& f : strays) {
    labels.push_back((f.provider_package.empty() ? f.provider : f.provider_package) + " (" + f.provider_soname +
                     ", CUDA " + std::to_string(f.provider_major) + ")");
    const std::string name = package_name(f.provider_package);
    if (f.provider_package.empty()) add_once(files, f.provider);
    else if (f.provider_manager == "conda") add_once(conda_remove, name);
    else add_once(pip_remove, name);
    if (!f.replacement.empty()) {
      add_once(kept, f.replacement);
      continue;
    }
    const std::string wheel = inventory::wheel_for_component(f.provider_component, util::leading_number(major));
    add_once(installs, f.provider_manager == "pip" && !wheel.empty()
                           ? "`" + command_line({"pip-install", {"install", wheel}}) + "`"
                           : "install the CUDA " + major + " build of " + f.provider_component);
    if (f.provider_manager == "pip" && !wheel.empty()) add_once(pip_installs, wheel);
  }
  out.affects.clear();
  for (const auto& f : strays) out.affects.push_back(f.provider);
  for (std::size_t i = 1; i < strays.size(); ++i) out.evidence.insert(out.evidence.end() - 1, strays[i].message);
  out.title = "toolkit libraries of another CUDA major than the env's: " + util::join(labels, ", ") + "; " +
              strays.front().reason;
  std::vector<std::string> steps, remove{"uninstall", "-y"};
  remove.insert(remove.end(), pip_remove.begin(), pip_remove.end());
  if (!pip_remove.empty()) steps.push_back("`" + command_line({"pip-uninstall", remove}) + "`");
  if (!conda_remove.empty()) steps.push_back("`conda remove " + util::join(conda_remove, " ") + "` (or mamba/pixi)");
  if (!files.empty()) steps.push_back("remove " + util::join(files, ", ") + " (no package owns it)");
  for (const auto& i : installs) steps.push_back(i);
  // As steps only when every one is pip's (a conda package or a loose file is the user's to handle).
  if (conda_remove.empty() && files.empty() && installs.size() == pip_installs.size()) {
    if (!pip_remove.empty()) out.actions.push_back({"pip-uninstall", remove});
    for (const auto& w : pip_installs) out.actions.push_back({"pip-install", {"install", w}});
  }
  out.fix = util::join(steps, ", then ") +
            (kept.empty() ? "" : " (the env's CUDA " + major + " copies stay: " + util::join(kept, ", ") + ")");
  out.min_release.clear(); // needed_release holds a major here, not a release
  return out;
}

// The env's own copy does not satisfy what a package of the env requires:
// misaligned, whatever launch loads it (which copy loads is requirement-mismatch).
Finding requirements_finding(const lock::RuleOutcome& rule, const lock::RuleFailure& f) {
  Finding out;
  out.code = code::misaligned;
  out.severity = Severity::error;
  out.title = f.message;
  out.library = f.provider_soname;
  out.expected = f.provider;
  out.expected_package = f.provider_package;
  out.evidence = {f.message, "the requirement is " + f.consumer_soname + "'s (Requires-Dist, or conda depends)"};
  (void)rule;
  out.affects = {f.provider};
  out.fix = (f.provider_manager == "conda" ? "conda install '" : "pip install '") + f.reason + "'";
  return out;
}

Finding driver_finding(const lock::RuleOutcome& rule, const lock::RuleFailure& f) {
  Finding out;
  out.code = code::driver_too_old;
  out.severity = Severity::error;
  out.title = f.message;
  out.library = "libcuda.so.1";
  out.evidence = rule.evidence;
  // NVIDIA's forward compatibility runs a newer CUDA major on an older driver
  // branch, on Data Center GPUs only (doctor --gpu names the GPU; here it is not known).
  const std::string major = std::to_string(f.provider_major);
  out.fix = "update the NVIDIA driver to branch " + f.needed_release + " or newer (minor-version compatibility), "
            "or use an env of an older CUDA major; on a Data Center GPU (A100, H100, ...), NVIDIA's CUDA "
            "forward-compatibility package (cuda-compat-" + major + "-X from NVIDIA's repositories, or cuda-compat on "
            "conda) can run CUDA " + major + " on this driver branch where NVIDIA's compatibility table supports it";
  return out;
}
} // namespace

namespace {
// The major most of the env's toolkit libraries are (ties: the newer), -1 when none is known.
int libraries_major(const inventory::Inventory& inv) {
  std::map<int, int> count;
  for (const auto& lib : inv.libraries)
    if (lib.toolkit && lib.cuda_major > 0) ++count[lib.cuda_major];
  int best = -1;
  for (const auto& [major, n] : count)
    if (best < 0 || n >= count[best]) best = major;
  return best;
}

} // namespace

std::optional<ConsumerRebuild> consumer_rebuild(const std::string& manager, const std::string& package, const std::string& version,
                                                const std::string& build, const inventory::Inventory& inventory, int env_major) {
  if (package.empty() || env_major < 0) return std::nullopt;
  const auto built = inventory::built_for(package, version, manager == "conda" ? build : "", inventory.requirements);
  if (!built || built->major == env_major) return std::nullopt;
  ConsumerRebuild out{built->major, built->evidence, {}, ""};
  if (manager == "conda") {
    out.words = "`" + inventory::conda_rebuild_command(package, env_major, build) + "` (or mamba/pixi)";
    return out;
  }
  if (manager != "pip") return std::nullopt;
  const auto rebuild = inventory::rebuild_for(package, version, env_major);
  if (!rebuild) return std::nullopt;
  out.actions = {{"pip-uninstall", {"uninstall", "-y", rebuild->uninstall}}, {"pip-install", rebuild->pip_install_args()}};
  out.words = "`" + command_line(out.actions[0]) + "` then `" + command_line(out.actions[1]) + "`";
  return out;
}

namespace {
// Consumers built for another major than most of the env's libraries
// (cupy-cuda11x among CUDA 12 wheels) make the same-major rule take their
// major for the env's, and its fix would move the whole env to it. The fix
// that converges is the consumers' builds for the libraries' major: those
// consumers and their major's stray libraries go, their matching builds come.
void consumer_builds_fix(Finding& f, const inventory::Inventory& inv) {
  const int env_major = libraries_major(inv);
  std::vector<std::string> uninstall, names, conda_words, evidence;
  std::vector<std::vector<std::string>> installs;
  int their_major = -1;
  for (const auto& c : inv.consumers) {
    const std::string name = c.package + " " + c.version;
    if (std::find(names.begin(), names.end(), name) != names.end()) continue; // one package, many files
    const auto rebuild = consumer_rebuild(c.manager, c.package, c.version, c.build, inv, env_major);
    if (!rebuild) continue;
    their_major = rebuild->built;
    names.push_back(name);
    evidence.push_back(name + ": " + rebuild->evidence);
    if (rebuild->actions.empty()) {
      conda_words.push_back(rebuild->words);
      continue;
    }
    uninstall.push_back(rebuild->actions[0].args.back());
    installs.push_back(rebuild->actions[1].args);
  }
  if (names.empty() || env_major < 0) return;
  for (const auto& lib : inv.libraries)
    if (lib.toolkit && lib.cuda_major == their_major && lib.manager == "pip" && !lib.package.empty())
      add_once(uninstall, lib.package);
  f.title = util::join(names, ", ") + (names.size() == 1 ? " is" : " are") + " built for CUDA " + std::to_string(their_major) +
            "; the env's other CUDA libraries are CUDA " + std::to_string(env_major);
  f.evidence.push_back("CUDA " + std::to_string(their_major) + " builds (" + util::join(evidence, "; ") + "): their CUDA " +
                       std::to_string(env_major) + " builds fit the env");
  std::string words;
  f.actions.clear();
  if (!uninstall.empty()) {
    std::vector<std::string> remove{"uninstall", "-y"};
    remove.insert(remove.end(), uninstall.begin(), uninstall.end());
    f.actions = {{"pip-uninstall", remove}};
    for (const auto& args : installs) f.actions.push_back({"pip-install", args});
    for (const auto& a : f.actions) words += (words.empty() ? "`" : " then `") + command_line(a) + "`";
  }
  for (const auto& w : conda_words) words += (words.empty() ? "" : ", and ") + w;
  if (!conda_words.empty()) f.actions.clear(); // a conda step is the user's: no half list of steps
  f.fix = "install their CUDA " + std::to_string(env_major) + " builds: " + words;
}
} // namespace

std::vector<Finding> alignment_findings(const lock::Alignment& alignment, const inventory::Inventory* inventory) {
  std::vector<Finding> out;
  for (const auto& rule : alignment.rules) {
    if (rule.result != lock::RuleResult::fail) continue;
    for (const auto& f : rule.failures) {
      if (rule.rule == lock::rule::symbols) out.push_back(symbols_finding(rule, f));
      else if (rule.rule == lock::rule::releases) out.push_back(releases_finding(rule, f));
      else if (rule.rule == lock::rule::same_major) continue; // one finding for all, below
      else if (rule.rule == lock::rule::driver) out.push_back(driver_finding(rule, f));
      else if (rule.rule == lock::rule::requirements) out.push_back(requirements_finding(rule, f));
    }
    if (rule.rule == lock::rule::same_major && !rule.failures.empty()) {
      out.push_back(same_major_finding(rule, rule.failures));
      if (inventory) consumer_builds_fix(out.back(), *inventory);
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
  if (in.driver_version) ai.driver = lock::parse_driver_version(*in.driver_version, in.driver_source);
  return alignment_findings(lock::evaluate_alignment(ai), &in.inventory);
}

} // namespace condacuda::doctor
