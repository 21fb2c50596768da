#pragma once
// The state of a simulated process (its link map) and what a load reports.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "elf/elf_object.hpp"
#include "loader/file_stamp.hpp"
#include "loader/path_list.hpp"

namespace condacuda::loader {

// How a library was found (elf/dl-load.c _dl_map_object): the search step.
enum class FoundVia {
  already_loaded, // matched a loaded object's name, alias or soname: no search
  same_file,      // found by search, but the same inode was already loaded
  direct_path,    // the name contains '/': opened as given
  rpath,          // DT_RPATH of the requester or of its loaders
  exe_rpath,      // DT_RPATH of the executable
  ld_library_path,
  runpath,        // DT_RUNPATH of the requester only
  ld_so_cache,    // /etc/ld.so.cache
  default_dirs,   // the system directories
  not_found,
};
const char* to_string(FoundVia via);

// One path tried while searching, and why it was not taken.
struct Candidate {
  enum class Outcome {
    missing,       // ENOENT / ENOTDIR
    no_access,     // EACCES
    open_error,    // another errno: the rest of that list is abandoned
    wrong_class,   // ELFCLASS32: skipped
    wrong_machine, // another e_machine: skipped
    abi_tag,       // an ABI note for another OS or a newer kernel (glibc <= 2.35): skipped
    fatal,         // the load stops here (file too short, invalid ELF header, ...)
    accepted,
  };
  std::string path;
  FoundVia step = FoundVia::not_found;
  Outcome outcome = Outcome::missing;
};
const char* to_string(Candidate::Outcome outcome);

// The paths one search tried, in order, shared and never changed: every
// requester that asks for the same name in the same scope tried the same
// paths (the simulator memoises the search), so its edges share one list.
class CandidateList {
public:
  CandidateList() = default;
  explicit CandidateList(std::vector<Candidate> tried)
      : list_(tried.empty() ? nullptr : std::make_shared<const std::vector<Candidate>>(std::move(tried))) {}
  const std::vector<Candidate>& all() const { return list_ ? *list_ : none(); }
  auto begin() const { return all().begin(); }
  auto end() const { return all().end(); }
  std::size_t size() const { return all().size(); }
  bool empty() const { return all().empty(); }
  const Candidate& operator[](std::size_t i) const { return all()[i]; }

private:
  static const std::vector<Candidate>& none() {
    static const std::vector<Candidate> empty;
    return empty;
  }
  std::shared_ptr<const std::vector<Candidate>> list_;
};

// One loaded object (struct link_map).
struct LoadedObject {
  std::string name;                 // l_name: the path it was opened as ("" for the executable)
  std::vector<std::string> aliases; // l_libname: the names it was requested by
  std::optional<std::string> soname;
  std::optional<std::string> origin; // $ORIGIN (nullopt when unknown)
  std::uint64_t dev = 0, ino = 0;
  FileStamp stamp; // unknown for a synthetic executable and a placeholder
  std::shared_ptr<const elf::ElfObject> elf;
  std::vector<std::string> synthetic_needs; // a synthetic executable (no file) needs these
  int loader = -1;    // l_loader: the object that first requested it
  bool is_main = false;
  bool is_interp = false; // ld.so itself
  bool faked = false; // trace mode (ldd): a placeholder for a library not found
  bool relocated = false;
  std::vector<int> initfini;   // [self, direct dependencies...] (sorting input)
  std::vector<int> searchlist; // dlopen roots and the executable: the breadth-first list
  std::vector<std::vector<int>> scope; // l_scope: lists of objects searched for symbols
  // How many leading lists of `scope` do not depend on the dlopen root (the
  // object itself under DT_SYMBOLIC, the global scope): binding results in
  // them can be reused across roots.
  std::size_t stable_scopes = 0;
  // Provenance for reports.
  FoundVia via = FoundVia::not_found;
  std::string via_dir;  // the search directory that held it (ends in '/')
  std::string via_element; // that directory as written in its list (before expansion)
};

struct Process {
  std::vector<LoadedObject> objects; // load order (the namespace list)
  std::vector<int> global_scope;     // the executable's search list + RTLD_GLOBAL objects
  int main = -1;
  std::string argv0;                 // names the executable in messages
  std::vector<SearchDir> ld_library_path; // parsed once at start-up (_dl_init_paths)
  // GL(dl_stack_flags) & PF_X: the kernel gives the program the stack its
  // PT_GNU_STACK asks for; an object loaded later that needs an executable
  // one makes it executable for good (_dl_make_stack_executable), or, from
  // glibc 2.41 on, under dlopen, is refused.
  bool stack_executable = false;
};

// A NEEDED string resolved (or not) for one requester.
struct Edge {
  int from = -1;
  std::string needed; // as written in DT_NEEDED (before token expansion)
  int to = -1;        // -1: not found / failed
  FoundVia via = FoundVia::not_found;
  std::string dir;     // the search directory that matched
  std::string element; // the list element as written (e.g. the LD_LIBRARY_PATH entry)
  CandidateList tried;
};

enum class ErrorKind {
  not_found,        // cannot open shared object file
  wrong_class,      // only 32-bit candidates
  bad_file,         // fatal file error (too short, invalid header, no dynamic section, ...)
  dst,              // empty dynamic string token substitution / DST in a secure program
  version_missing,  // version `V' not found (required by X)
  undefined_symbol, // undefined symbol: S[, version V]
  assertion,        // ld.so would abort (check_match assertion, glibc <= 2.40)
  executable_stack, // dlopen of an object that asks for an executable stack (glibc >= 2.41)
};
const char* to_string(ErrorKind kind);

struct LoadError {
  ErrorKind kind = ErrorKind::not_found;
  std::string objname; // the object dlerror names first
  std::string text;    // the rest, glibc's words
  int object = -1;     // the requester (not_found, undefined_symbol) or definer (version)
  int required_by = -1;
  std::string name;    // library name, symbol or version
  std::string version; // for symbols: the version node; for versions: the same as name
  std::string library; // for versions and versioned symbols: the file that should provide it
  bool lazy_only = false; // a PLT reference that only fails when called (lazy binding)

  // "objname: text" (what dlerror() returns and Python puts in ImportError).
  std::string message() const;
};

// A LoadError with the fields every error has.
LoadError load_error(ErrorKind kind, std::string objname, std::string text, int object);

// What a report keeps of each object of the process it ran in (the process
// itself is discarded when a dlopen fails).
struct ObjectSummary {
  std::string name;
  std::optional<std::string> soname;
  FoundVia via = FoundVia::not_found;
  std::string via_dir, via_element;
  bool faked = false;
  bool preexisting = false; // loaded before this dlopen (the host's objects)
  std::uint64_t dev = 0, ino = 0; // the file's identity (0, 0 for a synthetic executable or a placeholder)
};

struct LoadReport {
  int root = -1;
  bool ok = true;
  std::optional<LoadError> first; // what the real loader reports
  std::vector<LoadError> errors;  // every problem found (continuing like `ldd -r`)
  std::vector<int> searchlist;    // the root's breadth-first list
  std::vector<Edge> edges;
  std::vector<ObjectSummary> objects; // indexed like Edge::from/to and LoadError::object

  // An error that fails the load; the first is what the real loader reports.
  void fail(LoadError error);
};

// What a program start-up with this report looks like: ld.so's exit status
// and stderr (elf/rtld.c, elf/dl-error-skeleton.c). Load errors: the first,
// "PROG: error while loading shared libraries: ...", status 127. Version
// errors: every one, "PROG: OBJ: version ...", status 1. Symbol errors that
// happen at load time: the first, "PROG: symbol lookup error: ...", 127.
struct StartupOutcome {
  int exit_status = 0;
  std::string stderr_text;
};
StartupOutcome startup_outcome(const LoadReport& report, const std::string& argv0);

} // namespace condacuda::loader
