#include "loader/process.hpp"

namespace condacuda::loader {

const char* to_string(FoundVia via) {
  switch (via) {
  case FoundVia::already_loaded: return "already_loaded";
  case FoundVia::same_file: return "same_file";
  case FoundVia::direct_path: return "direct_path";
  case FoundVia::rpath: return "rpath";
  case FoundVia::exe_rpath: return "exe_rpath";
  case FoundVia::ld_library_path: return "ld_library_path";
  case FoundVia::runpath: return "runpath";
  case FoundVia::ld_so_cache: return "ld_so_cache";
  case FoundVia::default_dirs: return "default_dirs";
  case FoundVia::not_found: return "not_found";
  }
  return "not_found";
}

const char* to_string(Candidate::Outcome outcome) {
  switch (outcome) {
  case Candidate::Outcome::missing: return "missing";
  case Candidate::Outcome::no_access: return "no_access";
  case Candidate::Outcome::open_error: return "open_error";
  case Candidate::Outcome::wrong_class: return "wrong_class";
  case Candidate::Outcome::wrong_machine: return "wrong_machine";
  case Candidate::Outcome::abi_tag: return "abi_tag";
  case Candidate::Outcome::fatal: return "fatal";
  case Candidate::Outcome::accepted: return "accepted";
  }
  return "missing";
}

const char* to_string(ErrorKind kind) {
  switch (kind) {
  case ErrorKind::not_found: return "not_found";
  case ErrorKind::wrong_class: return "wrong_class";
  case ErrorKind::bad_file: return "bad_file";
  case ErrorKind::dst: return "dst";
  case ErrorKind::version_missing: return "version_missing";
  case ErrorKind::undefined_symbol: return "undefined_symbol";
  case ErrorKind::assertion: return "assertion";
  case ErrorKind::executable_stack: return "executable_stack";
  }
  return "not_found";
}

LoadError load_error(ErrorKind kind, std::string objname, std::string text, int object) {
  LoadError e;
  e.kind = kind;
  e.objname = std::move(objname);
  e.text = std::move(text);
  e.object = object;
  return e;
}

std::string LoadError::message() const {
  // dlerror.c: "%s%s%s" objname, ": " unless objname is empty, errstring.
  if (objname.empty()) return text;
  return objname + ": " + text;
}

void LoadReport::fail(LoadError error) {
  if (!first) first = error;
  ok = false;
  errors.push_back(std::move(error));
}

StartupOutcome startup_outcome(const LoadReport& report, const std::string& argv0) {
  auto is_map_error = [](ErrorKind k) {
    return k == ErrorKind::not_found || k == ErrorKind::wrong_class || k == ErrorKind::bad_file || k == ErrorKind::dst;
  };
  for (const auto& e : report.errors)
    if (is_map_error(e.kind)) return {127, argv0 + ": error while loading shared libraries: " + e.message() + "\n"};
  std::string versions;
  for (const auto& e : report.errors)
    if (e.kind == ErrorKind::version_missing) versions += argv0 + ": " + e.message() + "\n";
  if (!versions.empty()) return {1, versions};
  for (const auto& e : report.errors) {
    if (e.lazy_only) continue;
    if (e.kind == ErrorKind::assertion) return {127, e.text + "\n"};
    if (e.kind == ErrorKind::undefined_symbol) return {127, argv0 + ": symbol lookup error: " + e.message() + "\n"};
  }
  return {};
}

} // namespace condacuda::loader
