#pragma once
// A model of glibc's ld.so (docs/loader-model.md): program start-up and dlopen on a
// simulated process, with the search order, version checks and symbol binding
// of the real loader, and its error texts. Pure: files are seen only through
// FileSystemView, machine facts only through LoaderConfig.
#include <string>
#include <unordered_map>
#include <vector>

#include "loader/config.hpp"
#include "loader/file_system_view.hpp"
#include "loader/path_list.hpp"
#include "loader/process.hpp"
#include "loader/versions.hpp"

namespace condacuda::loader {

enum class Binding { lazy, now };
enum class Visibility { local, global }; // RTLD_LOCAL / RTLD_GLOBAL

// The synthetic program condacuda uses as a host when there is no real one:
// a C program that needs only libc (what a dlopen probe is).
inline const std::vector<std::string> minimal_program_needs{"libc.so.6"};

// A reference of a loaded object that did not bind (binding.cpp).
struct UnboundReference {
  std::uint32_t index = 0; // in the object's dynamic symbol table
  elf::Symbol symbol;
  const VersionRef* version = nullptr;
  bool assertion = false; // check_match would assert (glibc 2.31-2.40)
  bool lazy_only = false; // only PLT relocations use it under lazy binding: fails when first called
};

class Simulator {
public:
  Simulator(LoaderConfig config, FileSystemView& files);

  const LoaderConfig& config() const { return config_; }

  // exec(program): maps the program and its dependencies, checks versions and
  // binds symbols (lazily unless config.bind_now). `program` is the real path
  // of the executable (its directory is $ORIGIN). In trace mode (ldd) missing
  // libraries become placeholders and every error is collected.
  LoadReport start_program(Process& process, const std::string& program, const std::string& argv0,
                           bool trace = false);

  // A process whose executable is synthetic and needs only `needs`.
  LoadReport start_synthetic(Process& process, const std::vector<std::string>& needs);

  // dlopen(file, binding | visibility) called from object `caller` (-1: the
  // executable). On success the process gains the new objects; on failure it
  // is unchanged, like the real dlopen. The report always lists every problem.
  LoadReport dlopen(Process& process, const std::string& file, Binding binding, Visibility visibility,
                    int caller = -1);

  // dlopen in a throw-away copy of `process`: the report only (doctor opens
  // every root in a fresh copy of the same host).
  LoadReport trial_dlopen(const Process& process, const std::string& file, Binding binding, int caller = -1);

  // Where `referrer`'s first undefined reference named `name` binds in
  // `process`: the defining object (-1 when it does not bind) and the
  // version of the definition ("" when unversioned).
  struct BoundSymbol {
    int object = -1;
    std::string version;
  };
  BoundSymbol resolve(const Process& process, int referrer, std::string_view name);

private:
  struct MapResult {
    int object = -1;
    FoundVia via = FoundVia::not_found;
    std::string dir, element;
    CandidateList tried;
    std::optional<LoadError> error;
  };
  struct SearchHit {
    std::string path; // as ld.so names it (dir + subdir + name)
    std::string dir, element;
    FoundVia via = FoundVia::not_found;
  };

  // Mapping (search.cpp).
  MapResult map_object(Process& p, int requester, const std::string& name, bool trace, bool dlopen_mode,
                       bool callmap = false);
  int find_loaded(Process& p, const std::string& name) const;
  std::optional<LoadError> search(Process& p, int requester, const std::string& name, SearchHit& hit,
                                  CandidateList& tried, bool& other_class, int& last_errno);
  std::optional<LoadError> search_uncached(Process& p, int requester, const std::string& name, SearchHit& hit,
                                           std::vector<Candidate>& tried, bool& other_class, int& last_errno);
  std::string search_key(const Process& p, int requester, const std::string& name) const;
  struct SearchMemo {
    SearchHit hit;
    CandidateList tried;
    bool other_class = false;
    int last_errno = 0;
    std::optional<LoadError> fatal;
  };
  std::unordered_map<std::string, SearchMemo> search_memo_;
  enum class ListResult { found, not_found, abandon, fatal };
  ListResult search_list(const std::vector<SearchDir>& dirs, FoundVia step, const std::string& name,
                         SearchHit& hit, std::vector<Candidate>& tried, bool& other_class, int& last_errno,
                         std::optional<LoadError>& fatal);
  Candidate::Outcome try_candidate(const std::string& path, FoundVia step, std::vector<Candidate>& tried,
                                   bool& other_class, int& last_errno, std::optional<LoadError>& fatal);
  std::optional<LoadError> check_new_object(Process& p, const OpenedFile& opened, const std::string& name,
                                            bool dlopen_mode) const;
  int add_object(Process& p, const OpenedFile& opened, const std::string& realname, const std::string& name,
                 int loader);
  const std::vector<SearchDir>& object_paths(const Process& p, int index, bool runpath);
  DstValues dst_values(const Process& p, int index) const;
  std::string absolute(const std::string& path) const;

  // Loading (simulator.cpp).
  std::vector<int> map_dependencies(Process& p, int root, bool trace, bool dlopen_mode, LoadReport& report);
  // An object of the system's glibc (a glibc soname in a system directory, or ld.so).
  bool part_of_system_glibc(const LoadedObject& obj) const;
  void check_versions(const Process& p, const std::vector<int>& objects, LoadReport& report);
  void bind_symbols(const Process& p, const std::vector<int>& order, Binding binding, LoadReport& report);
  // Binding's outcome kept across runs (files_.result_memo()): the key's
  // material names every input ("" when a file has no stamp), the value each
  // reference that did not bind, in the order reported.
  std::string binding_inputs(const Process& p, const std::vector<int>& order, Binding binding) const;
  bool replay_bindings(const Process& p, const std::vector<int>& order, std::string_view kept, LoadReport& report);
  std::vector<UnboundReference> unbound_references(const Process& p, int object, std::uint64_t global_fingerprint);
  std::vector<int> sort_maps(const Process& p, const std::vector<int>& maps, bool force_first) const;
  void set_scope(Process& p, int object, int local_root) const;
  LoadReport start_common(Process& p, bool trace, LoadReport& report);
  LoadReport dlopen_in(Process& p, const std::string& file, Binding binding, int caller);

  // Binding (binding.cpp).
  const std::vector<VersionRef>& versions_of(const elf::ElfObject& elf);
  struct Lookup {
    int object = -1;
    bool assertion = false;
    std::uint16_t version = 0; // version index of the definition in its object
  };
  // Searches the referrer's scope lists [first, last).
  Lookup lookup(const Process& p, int referrer, const elf::Symbol& ref, const VersionRef* version,
                std::size_t first = 0, std::size_t last = static_cast<std::size_t>(-1));
  // A reference of an object that no definition in its root-independent
  // scope lists satisfies (or that fails check_match's assertion there).
  struct StableMiss {
    std::uint32_t index;
    bool assertion;
  };
  const std::vector<StableMiss>& stable_misses(const Process& p, int referrer, std::uint64_t global_fingerprint);
  bool do_lookup(const LoadedObject& obj, const elf::HashedName& name, const VersionRef* version, bool& assertion,
                 std::uint16_t& found_version);

  LoaderConfig config_;
  FileSystemView& files_;
  std::vector<std::string> subdirs_;       // hwcaps subdirectories, ending with ""
  std::vector<SearchDir> system_dirs_;
  CacheLookupConfig cache_config_;
  std::unordered_map<std::string, std::vector<SearchDir>> path_cache_;
  std::unordered_map<const elf::ElfObject*, std::vector<VersionRef>> versions_;
  // The references each file leaves unbound in its root-independent scope
  // lists, per (referrer file, global scope fingerprint): doctor binds the
  // same library for many roots, and most references bind there.
  struct MissKey {
    const elf::ElfObject* elf;
    std::uint64_t global;
    bool operator==(const MissKey&) const = default;
  };
  struct MissKeyHash {
    std::size_t operator()(const MissKey& k) const {
      return std::hash<const void*>()(k.elf) ^ (std::hash<std::uint64_t>()(k.global) * 0x9e3779b97f4a7c15ull);
    }
  };
  std::unordered_map<MissKey, std::vector<StableMiss>, MissKeyHash> stable_misses_;
};

} // namespace condacuda::loader
