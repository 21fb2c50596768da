#pragma once
// A framework's import as a program: its recipe's steps run in a copy of the
// env's python process in the loader model, as the real import would run
// them (docs/frameworks.md): which files it opens, from which sys.path
// folder, in which mode, and the exception that ends it. Pure: files
// through loader::FileSystemView and python::PathProbe.
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "frameworks/installed.hpp"
#include "loader/simulator.hpp"

namespace condacuda::frameworks {

enum class Verdict {
  loads,        // the import (JAX: the CUDA backend) comes up
  fails,        // the import raises
  cpu_fallback, // JAX runs on the CPU
  unmodelled,   // no recipe for this release: judged library by library
};
const char* to_string(Verdict verdict); // "loads", "fails", "cpu-fallback", "unmodelled"

// One open the program made.
struct ProgramOpen {
  StepKind step = StepKind::open;
  std::string library; // what the step asked for (a pattern, a soname, a module)
  std::string path;    // the file opened, as the program named it
  bool ok = true;
  std::string error;   // the loader's text when it failed
  bool swallowed = false; // the program caught the failure and went on
  // For a file a preload found on sys.path: the entry it came from.
  std::string entry;
  python::PathOrigin origin = python::PathOrigin::env_site;
};

struct ProgramResult {
  InstalledFramework framework; // a copy: its recipe and framework point into the static book
  Verdict verdict = Verdict::loads;
  std::string exception; // "ImportError", "OSError", "ValueError", "RuntimeError", "AssertionError"
  std::string message;   // its text
  std::optional<loader::LoadError> load_error; // the loader's error behind it, when there is one
  std::string failing_object; // the file the loader's error names (lexically normal), "" when none
  std::vector<ProgramOpen> opens;
  // Every file the program mapped or tried to map: (device, inode), what
  // "a root the program opens" means.
  std::set<std::pair<std::uint64_t, std::uint64_t>> touched;
  // What the program's process holds at the end beside the host's: each
  // object's soname, path and the search step that found it (what a launch
  // with another LD_LIBRARY_PATH could change).
  struct Loaded {
    std::string soname, path;
    loader::FoundVia via = loader::FoundVia::not_found;
  };
  std::vector<Loaded> loaded;

  bool ok() const { return verdict == Verdict::loads || verdict == Verdict::unmodelled; }
  // "ImportError: /x/libcusparse.so.12: undefined symbol: ..."
  std::string error_text() const { return exception.empty() ? message : exception + ": " + message; }
};

// Runs `fw`'s recipe (fw.recipe must be set) after `import ctypes` in a copy
// of `host`, the env's python as the loader model started it.
// With `process`, the program runs in it instead and leaves it as the real
// one would (what loaded stays loaded, also after a failure): a sequence of
// imports in one process (doctor --imports).
ProgramResult run_program(const InstalledFramework& fw, const RecipeBook& book, const PythonView& view,
                          loader::Simulator& sim, const loader::Process& host, loader::FileSystemView& files,
                          loader::Process* process = nullptr);

} // namespace condacuda::frameworks
