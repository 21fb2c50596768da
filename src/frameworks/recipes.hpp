#pragma once
// Framework import recipes (templates/frameworks.yml, docs/frameworks.md): for
// each framework, the steps its import performs by release, as data. The
// recipe interpreter (frameworks/program.hpp) runs them in the loader model.
// Pure: YAML text in, recipes out.
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "loader/simulator.hpp"
#include "util/result.hpp"

namespace condacuda::frameworks {

// What a failure of the framework's recipe means to the user.
enum class FailureMeans {
  import_error, // the import raises: the program stops
  cpu_fallback, // JAX: the CUDA backend is not registered; the program runs on the CPU
};

enum class StepKind {
  open,               // ctypes.CDLL(<package folder>/arg, mode); `body` handles an OSError
  raise_unless_named, // in an OSError handler: re-raise unless a pattern of list `arg` is named
  preload,            // each library of list `arg`, found by the recipe's search, opened RTLD_LOCAL
  guard,              // try: body except Exception: pass (only when_maps_contains, if set, is loaded)
  import_module,      // the extension module `arg` imported (RTLD_NOW | RTLD_LOCAL)
  import_all,         // every extension module of the package folder `arg`, by name
  preload_modules,    // JAX's _load over list `arg`
  import_first,       // JAX's _import_extensions over `modules`
  load_sonames,       // JAX's version check: dlopen of each soname of list `arg` from the extension chosen
  cupy_preload,       // CuPy's _preload_library(arg)
};
const char* to_string(StepKind kind);

enum class Missing { raise, skip }; // preload: a library the search does not find

struct Step {
  StepKind kind = StepKind::open;
  std::string arg;
  loader::Visibility mode = loader::Visibility::local;
  Missing missing = Missing::raise;
  std::vector<Step> body; // open: the OSError handler; guard: the guarded steps
  std::string when_maps_contains;
  std::vector<std::string> modules; // import_first
  bool pathfinder = false;          // cupy_preload: cuda-pathfinder first (CuPy 14)
  bool operator==(const Step&) const = default;
};

// How a preload turns (folder, pattern) into files: glob each pattern under a
// sys.path entry, in order; the first entry with a match wins.
struct Search {
  std::string requires_folder; // an entry without this folder is skipped ("" = none)
  std::vector<std::string> globs; // with {folder}, {pattern}, {cuda_major}
  bool operator==(const Search&) const = default;
};

struct Recipe {
  std::string id;       // "torch-2.6"
  std::string releases; // PEP 440 specifiers the installed version must satisfy
  std::string source;   // the framework's source the steps come from
  bool inferred = false; // put together from PRs, not read at the tag
  std::string search;   // a key of Framework::searches
  std::vector<Step> steps;
  bool operator==(const Recipe&) const = default;
};

struct Framework {
  std::string name;      // "torch"
  std::string statement; // what the user runs: "import torch"
  std::string module;    // the module whose package folder the steps start from ({major} for JAX)
  std::vector<std::string> distributions; // dist-info names (PEP 503), one per CUDA flavour
  FailureMeans failure = FailureMeans::import_error;
  // Named lists; each entry is a row of strings whose meaning the step gives
  // (torch: folder, pattern, condition; JAX: module, files...; versions: name, soname).
  std::map<std::string, std::vector<std::vector<std::string>>> lists;
  std::map<std::string, Search> searches;
  std::vector<Recipe> recipes;

  // The recipe whose releases `version` satisfies; nullptr when none does.
  const Recipe* recipe_for(const std::string& version) const;
  bool operator==(const Framework&) const = default;
};

// cuda-pathfinder's table: a library's sonames (oldest first), its folders
// under site-packages, and the libraries it loads first.
struct PathfinderLib {
  std::vector<std::string> sonames, dirs, deps;
  bool operator==(const PathfinderLib&) const = default;
};

struct RecipeBook {
  std::vector<Framework> frameworks;
  std::map<std::string, PathfinderLib> pathfinder;
  const Framework* find(const std::string& name) const;
  bool operator==(const RecipeBook&) const = default;
};

// Errors (ErrorCode::corrupt) name the entry that is wrong; `source_name` prefixes them.
Result<RecipeBook> parse_recipes(std::string_view yaml_text, const std::string& source_name);

// templates/frameworks.yml as the build compiled it (src/tools/compile_recipes.cpp,
// run by src/CMakeLists.txt): the value parse_recipes gives the file, made in
// microseconds instead of yaml-cpp's milliseconds (a test compares the two).
RecipeBook compiled_recipe_book();

// The compiled book, made once.
const RecipeBook& embedded_recipes();

// The top-level modules of the compiled book's frameworks ("torch",
// "jax_plugins", "cupy"), without making the book: whether an env's python
// can import any framework at all is asked of every env with a python.
std::span<const std::string_view> compiled_top_level_modules();

} // namespace condacuda::frameworks
