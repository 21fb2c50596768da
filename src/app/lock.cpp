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

Result<LockedEnv> lock_env(const LockOptions& options) {
  auto snapshot = sys::scan_env(options.env.prefix);
  if (!snapshot) return as_bad_input(snapshot.error());
  sys::DiskFileView& files = sys::process_file_view();
  for (const auto& f : snapshot->shared_objects)
    if (f.elf && !f.symlink) files.adopt(snapshot->prefix + "/" + f.path, f.elf->bytes());
  inventory::Inventory inv = inventory::build_inventory(*snapshot);
  LockedEnv out;
  out.warnings = inv.warnings;
  lock::AlignmentInputs in;
  in.inventory = &inv;
  in.table = options.table;
  in.files = &files;
  switch (options.driver.kind) {
  case DriverChoice::Kind::this_machine: in.driver = sys::read_driver_version(); break;
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

} // namespace condacuda::app
