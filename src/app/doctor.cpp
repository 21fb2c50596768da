#include "app/doctor.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "app/imports.hpp"
#include "app/kernels.hpp"
#include "app/plan_request.hpp"
#include "app/visible_gpus.hpp"
#include "doctor/contexts.hpp"
#include "doctor/gpu_coverage.hpp"
#include "loader/glibc_release.hpp"
#include "lock/driver.hpp"
#include "lock/release_table.hpp"
#include "sys/gpu_code.hpp"
#include "sys/load_check_cache.hpp"
#include "sys/machine.hpp"
#include "sys/mapped_file.hpp"
#include "sys/result_cache.hpp"
#include "launch/hook_model.hpp"
#include "launch/launch.hpp"
#include "repair/staleness.hpp"
#include "util/strings.hpp"
#include "sys/prefix_tree.hpp"
#include "sys/repair_state.hpp"
#include "sys/shell_environment.hpp"
#include "sys/system_cuda.hpp"

namespace condacuda::app {

namespace {
// What the env's repair has become: today's plan for the launches it
// recorded against the recorded one (the env changed: stale-repair), this
// shell's launch when the repair never verified it (unverified-launch), and
// the links it made that point at nothing; a record that cannot be read
// (unreadable-repair-record).
void add_repair_findings(doctor::DoctorReport& report, const doctor::DoctorInputs& inputs, sys::DiskFileView& files,
                         const std::vector<std::string>& system,
                         const sys::RepairState& state) {
  if (state.unreadable) report.findings.push_back(repair::unreadable_record_finding(inputs.env.prefix, *state.unreadable));
  if (!state.manifest) return;
  const repair::Manifest& recorded = *state.manifest;
  auto today = repair::plan_repair(inputs, files, plan_request(inputs, recorded, {std::nullopt, false, false, {}}, system));
  const auto difference = repair::plan_difference(recorded, today);
  if (!difference.empty()) report.findings.push_back(repair::stale_repair_finding(inputs.env.prefix, difference));
  const auto shell = launch::not_activated_value(inputs.base_ld_library_path, inputs.active_hook_entries);
  if (difference.empty() && !recorded.launches.empty() && !launch::is_recorded(recorded.launches, shell)) {
    // A launch that fails without activation (not-activated) needs pins: the
    // plan from here is the one that finding's fix (`repair --pin`) makes.
    const bool needs_pins = std::any_of(report.findings.begin(), report.findings.end(), [](const doctor::Finding& f) {
      return f.code == doctor::code::not_activated && f.severity != doctor::Severity::info;
    });
    PlanChoices choices{needs_pins ? std::optional(true) : std::nullopt, true, false, {}};
    auto with_shell = repair::plan_repair(inputs, files, plan_request(inputs, recorded, choices, system));
    report.findings.push_back(repair::unverified_launch_finding(inputs.env.prefix, shell, recorded.launches,
                                                                repair::plan_difference(recorded, with_shell), needs_pins));
  }
  std::map<std::string, std::vector<std::string>> folder_names;
  if (auto tree = sys::PrefixTree::open(inputs.env.prefix))
    for (const auto& e : recorded.entries) {
      std::string folder = std::filesystem::path(e.path).parent_path().generic_string();
      if (e.kind == repair::ManifestEntry::Kind::symlink && !folder_names.count(folder))
        if (auto names = tree->list(folder)) folder_names[folder] = *names;
    }
  if (auto dangling = repair::dangling_links(recorded, inputs.env.prefix, files, folder_names); !dangling.empty())
    report.findings.push_back(repair::dangling_link_finding(inputs.env.prefix, dangling));
}
Result<doctor::GpuTable> gpu_table(const DoctorOptions& options) {
  if (!options.gpu_table_file) return doctor::embedded_gpu_table();
  auto text = sys::read_text_file(*options.gpu_table_file, sys::read_cap::config);
  if (!text) return text.error();
  return doctor::parse_gpu_table(*text, *options.gpu_table_file);
}

bool asks_for_this_node(const std::vector<std::string>& gpus) {
  return std::any_of(gpus.begin(), gpus.end(), [](const std::string& g) { return g == "auto" || g == "visible"; });
}

// The devices --gpu names ("auto", "visible": this node's, app/visible_gpus.hpp), each once.
Result<std::vector<doctor::Device>> devices_for(const std::vector<std::string>& gpus, const doctor::GpuTable& table,
                                                const VisibleGpus& node) {
  std::vector<doctor::Device> out;
  auto add = [&](const doctor::Device& d) {
    if (std::none_of(out.begin(), out.end(), [&](const doctor::Device& x) { return x.label == d.label; })) out.push_back(d);
  };
  for (const auto& g : gpus) {
    if (g == "auto" || g == "visible") {
      if (g == "auto" && node.devices.empty())
        return make_error(ErrorCode::bad_input, "--gpu auto: no NVIDIA GPU visible (" + node.why_none +
                                                    "; --gpu visible judges a node without GPUs too)");
      for (const auto& d : node.devices) add(d);
      continue;
    }
    auto d = doctor::parse_device(g, table);
    if (!d) return d.error();
    add(*d);
  }
  return out;
}

// no-kernel-image / ptx-jit-only for the devices asked for.
Status add_coverage_findings(doctor::DoctorReport& report, const DoctorOptions& options, const doctor::GpuTable& table,
                             const VisibleGpus& node) {
  auto devices = devices_for(options.gpus, table, node);
  if (!devices) return devices.error();
  std::optional<doctor::DriverBranch> driver;
  if (const auto& version = report.inputs.driver_version) {
    auto parsed = lock::parse_driver_version(*version, report.inputs.driver_source);
    if (!parsed) return make_error(ErrorCode::bad_input, "--driver '" + *version + "' is not a driver version (e.g. 535.104.05)");
    driver = table.driver(parsed->branch);
  }
  sys::FatbinCache cache(sys::FatbinCache::default_path());
  std::vector<std::string> warnings;
  cache.load(warnings);
  std::set<std::string> damaged;
  const std::string prefix = report.inputs.env.prefix + "/";
  auto fatbin_of = [&](const std::string& path) {
    auto code = cache.summary(path);
    if (code && !code->problems.empty() && damaged.insert(path).second)
      warnings.push_back((path.starts_with(prefix) ? path.substr(prefix.size()) : path) + ": damaged fatbin (" +
                         code->problems.front() + "): its GPU verdict covers only the entries that could be read");
    return code;
  };
  auto releases = lock::embedded_release_table(); // names the release that adds an architecture
  for (auto& f : doctor::coverage_findings(report, fatbin_of, *devices, driver, table, releases ? &*releases : nullptr))
    report.findings.push_back(std::move(f));
  cache.save(warnings);
  for (auto& w : warnings) report.inputs.inventory.warnings.push_back(std::move(w));
  return ok_status();
}

// The node as a job launched here sees it (doctor/node_facts.hpp).
doctor::NodeFacts node_facts(const doctor::DoctorInputs& in, const VisibleGpus& gpus, std::vector<std::string> system) {
  doctor::NodeFacts node;
  node.hostname = sys::host_name();
  node.slurm_node = sys::slurm_node_name();
  node.glibc = sys::glibc_version();
  node.driver = in.driver_version;
  node.driver_source = in.driver_version ? in.driver_source : "none";
  for (const auto& d : gpus.devices) node.gpus.push_back({d.label, d.sm()});
  node.gpus_source = gpus.source;
  node.ld_library_path = in.base_ld_library_path;
  node.system_cuda_folders = std::move(system);
  if (in.config.cache) node.ld_so_cache_cuda = doctor::cuda_sonames_in_cache(*in.config.cache);
  return node;
}
} // namespace

namespace {
// What mapping each of the env's files would meet (the most costly part of
// a first run), found before the simulations ask: cached, or on every core.
std::vector<std::string> env_files(const doctor::DoctorInputs& in) {
  std::vector<std::string> paths;
  for (const auto& lib : in.inventory.libraries) paths.push_back(in.env.prefix + "/" + lib.file);
  for (const auto& c : in.inventory.consumers) paths.push_back(in.env.prefix + "/" + c.file);
  return paths;
}

// --glibc's value: a release whose rules the model has (docs/loader-model.md,
// "Per glibc version": 2.28 from glibc's sources, 2.31 to 2.41 measured too).
Result<int> modelled_glibc_minor(const std::string& release) {
  auto minor = loader::glibc_minor_of(release);
  if (!minor || *minor < loader::oldest_modelled_glibc_minor || *minor > loader::newest_modelled_glibc_minor ||
      release != "2." + std::to_string(*minor))
    return make_error(ErrorCode::bad_input, "--glibc " + util::terminal_safe(release) + ": the loader model knows glibc 2." +
                                                std::to_string(loader::oldest_modelled_glibc_minor) + " to 2." +
                                                std::to_string(loader::newest_modelled_glibc_minor) + " (e.g. 2.31)");
  return *minor;
}

// The doctor's judgement once the inputs are known and the files checked.
Result<doctor::DoctorReport> diagnose_env(const DoctorOptions& options, doctor::DoctorInputs& inputs,
                                          const std::vector<std::string>& in_front, sys::DiskFileView& files,
                                          const sys::RepairState& state, std::vector<std::string> system) {
  auto imports = resolve_imports(options.imports, options.env.prefix, inputs.inventory.site_packages);
  if (!imports) return imports.error();
  for (const auto& i : *imports) {
    if (i.framework.empty()) continue;
    const auto found = inputs.python ? frameworks::find_frameworks(frameworks::embedded_recipes(), *inputs.python)
                                     : std::vector<frameworks::InstalledFramework>{};
    if (std::none_of(found.begin(), found.end(), [&](const auto& f) { return f.framework->name == i.framework; }))
      return make_error(ErrorCode::bad_input, "--imports: the env's python finds no " + i.framework + " on its sys.path");
  }
  inputs.imports = std::move(*imports);
  auto not_activated = [&] {
    return doctor::not_activated_inputs(
        inputs, launch::not_activated_value(inputs.base_ld_library_path, inputs.active_hook_entries));
  };
  doctor::DoctorReport report;
  // A venv or uv env has no activation that sources conda's activate.d: its
  // launches are the not-activated ones only.
  const auto context = options.context ? options.context
                                       : is_venv(options.env) ? std::optional(doctor::LaunchContext::not_activated) : std::nullopt;
  if (context == doctor::LaunchContext::not_activated) {
    report = doctor::run_doctor(not_activated(), files);
    doctor::mark_not_activated(report);
  } else {
    report = doctor::run_doctor(inputs, files);
    if (!context && doctor::contexts_differ(inputs))
      doctor::add_not_activated(report, doctor::run_doctor(not_activated(), files));
  }
  if (!in_front.empty()) report.findings.push_back(doctor::folders_before_hook_finding(in_front, options.env.prefix));
  add_repair_findings(report, inputs, files, system, state);
  std::optional<Result<doctor::GpuTable>> table; // parsed at most once, when a GPU is to be named
  const GpuTableSource table_source = [&]() -> Result<const doctor::GpuTable*> {
    if (!table) table = gpu_table(options);
    if (!*table) return table->error();
    return &**table;
  };
  auto gpus = visible_gpus(table_source, asks_for_this_node(options.gpus));
  if (!gpus) return gpus.error();
  if (!options.gpus.empty()) {
    auto t = table_source();
    if (!t) return t.error();
    if (auto s = add_coverage_findings(report, options, **t, *gpus); !s) return s.error();
  }
  // Jupyter kernels of the env: launches a server starts, in its environment.
  const auto survey =
      survey_kernels(inputs, state.manifest ? state.manifest->launches : std::vector<launch::PathValue>{}, files);
  for (const auto& k : survey.unreadable) report.findings.push_back(bad_kernelspec_finding(k));
  doctor::judge_kernels(report, survey.kernels, survey.launches, system, files);
  report.node = node_facts(inputs, *gpus, std::move(system));
  return report;
}
} // namespace

Result<doctor::DoctorReport> doctor(const DoctorOptions& options) {
  sys::DiskFileView& files = sys::process_file_view();
  const sys::RepairState state = sys::read_repair_state(options.env.prefix);
  std::vector<std::string> cache_warnings;
  // The machine first: the load checks depend on its loader (and --glibc's),
  // and start while the env is scanned, as each of its files is parsed.
  loader::LoaderConfig machine = sys::detect_machine().config;
  if (options.glibc) {
    auto minor = modelled_glibc_minor(*options.glibc);
    if (!minor) return minor.error();
    machine.glibc_minor = *minor;
  }
  sys::LoadCheckCache load_checks(options.cache ? sys::LoadCheckCache::default_path() : "", machine);
  load_checks.load(cache_warnings);
  sys::DistInfoCache dist_info(options.cache ? sys::DistInfoCache::default_path() : "");
  dist_info.load(cache_warnings);
  InputHelpers helpers{&dist_info, &machine, [&](const std::string& path, const inventory::ScannedFile& file) {
                         if (inventory::lists_as_library_or_consumer(file)) load_checks.start(path, file.elf);
                       }};
  auto inputs = doctor_inputs(options.env, options.ld_library_path, files, state, helpers);
  if (!inputs) return inputs.error();
  dist_info.save(cache_warnings);
  // The shell as it is: folders put in front of the hook's entries after
  // activation (`module load`) are searched first by every process it starts.
  std::vector<std::string> in_front;
  if (!options.ld_library_path.is_given()) {
    const launch::ShellState shell = sys::this_shell(options.env.prefix);
    const launch::HookPlacement placement = launch::hook_placement(shell);
    if (placement.active && !placement.in_front.empty()) {
      in_front = placement.in_front;
      inputs->config.ld_library_path = shell.ld_library_path;
    }
  }
  if (options.driver) {
    inputs->driver_version = *options.driver;
    inputs->driver_source = "--driver";
  }
  if (options.glibc) inputs->glibc_source = "--glibc";
  // Results kept between runs: what each file's symbol tables said, what
  // binding and the symbol rule found.
  sys::ResultCache results(options.cache ? sys::ResultCache::default_path() : "", CONDACUDA_VERSION);
  results.load(cache_warnings);
  // The view is the process's: what it is lent here is taken back however
  // this function leaves (an exception too), before the lenders are gone.
  struct Lent {
    sys::DiskFileView& files;
    ~Lent() {
      files.use_result_memo(nullptr);
      files.use_load_checks(nullptr);
    }
  } lent{files};
  files.use_result_memo(&results);
  files.use_load_checks(&load_checks);
  load_checks.prepare(files, env_files(*inputs));
  // The machine's CUDA folders (what a repair is verified against), each
  // listed again only when a name in it changed.
  sys::FolderVerdicts folders(options.cache ? sys::FolderVerdicts::default_path() : "");
  folders.load(cache_warnings);
  std::vector<std::string> system = sys::system_cuda_dirs("", &folders);
  folders.save(cache_warnings);
  auto report = diagnose_env(options, *inputs, in_front, files, state, std::move(system));
  files.use_result_memo(nullptr);
  files.use_load_checks(nullptr);
  load_checks.save(files, cache_warnings);
  results.save(cache_warnings);
  if (report)
    for (auto& w : cache_warnings) report->inputs.inventory.warnings.push_back(std::move(w));
  return report;
}

} // namespace condacuda::app
