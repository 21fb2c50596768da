#include "app/lock.hpp"

#include "doctor/grouping.hpp"

#include <algorithm>

#include "app/doctor.hpp"
#include "doctor/findings.hpp"
#include "sys/disk_file_view.hpp"
#include "sys/env_scan.hpp"
#include "sys/hash_cache.hpp"
#include "sys/machine.hpp"
#include "sys/mapped_file.hpp"
#include "sys/posix.hpp"
#include "sys/repair_state.hpp"

namespace condacuda::app {

namespace {
Error as_bad_input(Error e) {
  e.code = ErrorCode::bad_input;
  return e;
}
} // namespace

Status LockedEnv::complete() const {
  if (unhashed.empty()) return ok_status();
  return make_error(ErrorCode::bad_input, "cannot lock: " + std::to_string(unhashed.size()) + " librar" +
                                              (unhashed.size() == 1 ? "y" : "ies") + " could not be read (see the warnings)");
}

Result<LockedEnv> lock_env(const LockEnvOptions& options) {
  auto snapshot = sys::scan_env(options.env.prefix);
  if (!snapshot) return as_bad_input(snapshot.error());
  sys::DiskFileView& files = sys::process_file_view();
  for (const auto& f : snapshot->shared_objects)
    if (f.elf && !f.symlink) files.adopt(snapshot->prefix + "/" + f.path, f.elf);
  inventory::Inventory inv = inventory::build_inventory(*snapshot);
  LockedEnv out;
  out.warnings = inv.warnings;
  lock::AlignmentInputs in;
  in.inventory = &inv;
  in.table = options.table;
  in.files = &files;
  switch (options.driver.kind) {
  case DriverChoice::Kind::this_machine: {
    auto driver = sys::node_driver_version();
    if (!driver) return driver.error();
    in.driver = *driver;
    break;
  }
  case DriverChoice::Kind::none: break;
  case DriverChoice::Kind::given: in.driver = options.driver.version; break;
  }
  lock::Alignment alignment = lock::evaluate_alignment(in);
  std::vector<std::string> paths;
  for (const auto& lib : inv.libraries) paths.push_back(lib.file);
  sys::HashedFiles hashed = sys::hash_files(inv.prefix, paths, options.hash_cache ? sys::default_hash_cache_path() : "");
  out.stats = hashed.stats;
  out.warnings.insert(out.warnings.end(), hashed.warnings.begin(), hashed.warnings.end());
  for (const auto& p : paths)
    if (!hashed.sha256_by_file.count(p)) out.unhashed.push_back(p);
  // A library `repair --pin` changed is locked as its original (one tag
  // differs): the pin is condacuda's own fix, not drift of the env.
  if (auto manifest = sys::read_manifest(inv.prefix); manifest && *manifest)
    for (const auto& pin : (*manifest)->pins)
      if (auto it = hashed.sha256_by_file.find(pin.path); it != hashed.sha256_by_file.end() && it->second == pin.pinned_sha256) {
        it->second = pin.original_sha256;
        out.pinned.push_back(pin.path);
      }
  out.lock = lock::make_lock(options.env.name, inv, hashed.sha256_by_file, alignment, *options.table);
  return out;
}

namespace {
bool is_load_error(const std::string& code) {
  namespace c = doctor::code;
  return code == c::not_found || code == c::undefined_symbol || code == c::version_not_found || code == c::bad_file ||
         code == c::loader_abort;
}
} // namespace

Result<LockCheck> check_lock(const lock::Lockfile& locked, const env::EnvRecord& env, const LockedEnv& current) {
  LockCheck out;
  out.diff = lock::diff_locks(locked, current.lock);
  DoctorOptions options;
  options.env = env;
  auto report = doctor(options);
  if (!report) return as_bad_input(report.error());
  out.loads.ld_library_path = report->inputs.base_ld_library_path;
  std::vector<lock::LoadFailure> found;
  doctor::for_each_cause(report->findings, [&](const doctor::Finding& f) {
    // A locked component whose copy here is not the version a package
    // requires: the lock's entry is the env's copy that would satisfy.
    if (f.severity == doctor::Severity::error && f.code == doctor::code::requirement_mismatch && !f.expected.empty()) {
      found.push_back({f.expected, "", f.code, f.first_error, f.fix});
      return;
    }
    if (f.severity != doctor::Severity::error || !is_load_error(f.code)) return;
    for (const auto& file : f.affects) {
      auto root = std::find_if(report->roots.begin(), report->roots.end(), [&](const doctor::RootResult& r) { return r.file == file; });
      std::string first = root != report->roots.end() && !root->first_error.empty() ? root->first_error : f.first_error;
      found.push_back({file, root != report->roots.end() ? root->component : "", f.code, first, f.fix});
    }
  });
  out.loads.failures = lock::locked_load_failures(locked, found);
  out.outcome = lock::check_outcome(out.diff, out.loads);
  return out;
}

Result<lock::ReleaseTable> release_table(const std::string& path) {
  Result<lock::ReleaseTable> table = path.empty() ? lock::embedded_release_table() : [&]() -> Result<lock::ReleaseTable> {
    auto text = sys::read_text_file(path, sys::read_cap::release_table);
    if (!text) return text.error();
    return lock::parse_release_table(*text, path);
  }();
  if (!table) return make_error(ErrorCode::bad_input, "release table: " + table.error().describe());
  return table;
}

Result<lock::Lockfile> read_lock(const std::string& path) {
  auto text = sys::read_text_file(path, sys::read_cap::lockfile);
  if (!text) return make_error(ErrorCode::bad_input, "cannot read the lock: " + text.error().describe());
  auto parsed = lock::parse_lock(*text, path);
  if (!parsed) return as_bad_input(parsed.error());
  return parsed;
}

Status write_output(const std::string& path, const std::string& text) {
  auto status = sys::write_named_output(path, text);
  if (!status) return as_bad_input(status.error());
  return status;
}

namespace {
LockOutcome failed(LockOutcome o, Error error) {
  o.status = LockStatus::error;
  o.error = std::move(error);
  return o;
}

// --driver: a version, "none", or "" (this machine's).
Result<DriverChoice> driver_choice(const std::string& given) {
  if (given.empty()) return DriverChoice{};
  if (given == "none") return DriverChoice{DriverChoice::Kind::none, {}};
  auto version = lock::parse_driver_version(given, "--driver");
  if (!version)
    return make_error(ErrorCode::bad_input, "--driver: '" + given + "' is not a driver version like 580.65.06 (or 'none')");
  return DriverChoice{DriverChoice::Kind::given, *version};
}

// The YAML lock, written to -o FILE when one was given.
LockOutcome write_lock(LockOutcome o, const LockOptions& options) {
  if (auto complete = o.current->complete(); !complete) return failed(std::move(o), complete.error());
  auto yaml = lock::render_lock(o.current->lock, CONDACUDA_VERSION);
  if (!yaml) return failed(std::move(o), yaml.error());
  if (!options.output.empty())
    if (auto written = write_output(options.output, *yaml); !written) return failed(std::move(o), written.error());
  o.yaml = std::move(*yaml);
  o.status = LockStatus::locked;
  return o;
}
} // namespace

LockOutcome lock(const LockOptions& options) {
  LockOutcome o;
  std::optional<lock::Lockfile> locked;
  if (!options.check.empty()) {
    auto read = read_lock(options.check);
    if (!read) return failed(std::move(o), read.error());
    locked = std::move(*read);
  }
  auto table = release_table(options.releases);
  if (!table) return failed(std::move(o), table.error());
  EnvChoice choice = select_env(options.env);
  for (const auto& w : choice.warnings) o.warnings.push_back(w.describe());
  if (!choice.env) {
    o.envs_found = std::move(choice.found);
    return failed(std::move(o), *choice.error);
  }
  o.env = std::move(choice.env);
  auto driver = driver_choice(options.driver);
  if (!driver) return failed(std::move(o), driver.error());
  auto current = lock_env({*o.env, &*table, *driver, options.hash_cache});
  if (!current) return failed(std::move(o), current.error());
  o.warnings.insert(o.warnings.end(), current->warnings.begin(), current->warnings.end());
  o.current = std::move(*current);
  if (!locked) return write_lock(std::move(o), options);
  auto check = check_lock(*locked, *o.env, *o.current);
  if (!check) return failed(std::move(o), check.error());
  o.check = std::move(*check);
  o.status = LockStatus::checked;
  return o;
}

} // namespace condacuda::app
