#include "doctor/import_order.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

#include "elf/elf_constants.hpp"
#include "util/strings.hpp"

namespace condacuda::doctor {

namespace {
// A file as the loader tells files apart: by device and inode (ld.so never
// maps one file twice, whatever the name, elf/dl-load.c _dl_map_object_from_fd).
struct Copy {
  std::uint64_t dev = 0, ino = 0;
  std::string path; // as the loader named it
  bool same_file(const Copy& o) const { return dev == o.dev && ino == o.ino; }
};
using Closure = std::map<std::string, Copy>; // soname -> the copy a root maps

std::string soname_of(const std::optional<std::string>& soname, const std::string& name) {
  return soname ? *soname : std::filesystem::path(name).filename().string();
}

Closure closure_of(const loader::LoadReport& report, loader::FileSystemView& files) {
  Closure out;
  for (const auto& o : report.objects) {
    if (o.preexisting || o.faked || o.name.empty()) continue;
    const auto& f = files.open_verify(o.name);
    out.emplace(soname_of(o.soname, o.name), Copy{f.dev, f.ino, o.name});
  }
  return out;
}

std::string normal(const std::string& path) { return std::filesystem::path(path).lexically_normal().string(); }

std::string relative(const std::string& path, const std::string& prefix) {
  const std::string p = std::filesystem::path(path).lexically_normal().string();
  return p.starts_with(prefix + "/") ? p.substr(prefix.size() + 1) : p;
}

std::string message_of(const loader::LoadReport& r) {
  if (!r.first) return "";
  return r.first->kind == loader::ErrorKind::assertion ? r.first->text : r.first->message();
}

// For a step that failed in `p` but loads alone: the soname whose copy in
// `p` differs from its own, preferring the one the error names.
void explain(SequenceStep& s, const loader::LoadReport& failed, const loader::LoadReport& alone, const loader::Process& p,
             const std::vector<std::string>& loaded_by, loader::FileSystemView& files) {
  const Closure own = closure_of(alone, files);
  for (std::size_t i = 0; i < p.objects.size(); ++i) {
    const auto& o = p.objects[i];
    if (o.name.empty()) continue;
    const std::string soname = soname_of(o.soname, o.name);
    auto mine = own.find(soname);
    if (mine == own.end() || (mine->second.dev == o.dev && mine->second.ino == o.ino)) continue;
    const bool named = failed.first && (failed.first->library == soname || failed.first->name == soname ||
                                        failed.first->text.find(soname) != std::string::npos);
    if (!s.soname.empty() && !named) continue;
    s.soname = soname;
    s.loaded_copy = o.name;
    s.own_copy = mine->second.path;
    s.loaded_by = i < loaded_by.size() ? loaded_by[i] : "";
    if (named) return;
  }
}

// The env library at `path`: by name (its file or a link the inventory saw),
// else by identity (a link made later, as repair's, reaches it too).
const inventory::Library* library_at(const DoctorInputs& in, const std::string& path, loader::FileSystemView& files) {
  const std::string rel = relative(path, in.env.prefix);
  for (const auto& lib : in.inventory.libraries) {
    if (lib.file == rel) return &lib;
    for (const auto& n : lib.names)
      if (n == rel) return &lib;
  }
  const auto& target = files.open_verify(normal(path));
  if (!target.opened()) return nullptr;
  for (const auto& lib : in.inventory.libraries) {
    const auto& f = files.open_verify(in.env.prefix + "/" + lib.file);
    if (f.opened() && f.dev == target.dev && f.ino == target.ino) return &lib;
  }
  return nullptr;
}

std::string owner(const DoctorInputs& in, const std::string& path, loader::FileSystemView& files) {
  const inventory::Library* lib = library_at(in, path, files);
  if (!lib || lib->package.empty()) return path.starts_with(in.env.prefix + "/") ? "no package" : "outside the env";
  return lib->manager + " " + lib->package + " " + lib->version;
}

bool on_ld_library_path(const DoctorInputs& in, const std::string& dir) {
  if (!in.config.ld_library_path) return false;
  for (const auto& entry : util::split(*in.config.ld_library_path, ":"))
    if (!entry.empty() && normal(entry) == normal(dir)) return true;
  return false;
}

// Whether a library's package is its component's own (nvidia-nvjitlink-cu12,
// cuda-nvjitlink, libnvjitlink for nvjitlink), not one that bundles it.
bool package_of_component(const inventory::Library& lib) {
  auto squash = [](std::string s) {
    std::string out;
    for (char c : s)
      if (std::isalnum(static_cast<unsigned char>(c))) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  };
  return !lib.component.empty() && squash(lib.package).find(squash(lib.component)) != std::string::npos;
}

// What makes the copy loaded first the one `step` needs: its package
// upgraded to the release of the copy the step loads alone (or newer), or
// removed; a file no package owns, removed.
std::string one_copy_step(const DoctorInputs& in, const SequenceStep& step, loader::FileSystemView& files) {
  const inventory::Library* older = library_at(in, step.loaded_copy, files);
  const inventory::Library* own = library_at(in, step.own_copy, files);
  if (!older && !normal(step.loaded_copy).starts_with(in.env.prefix + "/")) {
    const std::string dir = std::filesystem::path(normal(step.loaded_copy)).parent_path().string();
    if (on_ld_library_path(in, dir))
      return "take " + dir + " off LD_LIBRARY_PATH where this env's programs start (or start them with `condacuda run`): "
             "its copy lacks what " + step.file + " needs";
    return "the copy in " + dir + " (outside the env, found through the system's search) lacks what " + step.file +
           " needs: give " + step.loaded_by + " the env's copy";
  }
  if (!older || older->package.empty())
    return "remove " + relative(step.loaded_copy, in.env.prefix) + " (" + owner(in, step.loaded_copy, files) +
           "), whose copy lacks what " + step.file + " needs";
  // The release of the copy the step loads alone, where its package is the
  // component's own (a copy bundled in another package has that package's version).
  std::string release = own && !own->version.empty() && package_of_component(*own) && package_of_component(*older)
                            ? " to " + own->version + " or newer (the release of the copy " + step.file + " loads alone)"
                            : "";
  return "upgrade " + owner(in, step.loaded_copy, files) + release + ", or remove it: its copy lacks what " + step.file + " needs";
}

std::string copy_text(const DoctorInputs& in, const std::string& path, loader::FileSystemView& files) {
  return relative(path, in.env.prefix) + " (" + owner(in, path, files) + ")";
}
} // namespace

namespace {
// A process part-way through a sequence, with the step that mapped each
// object ("" : the host).
struct Sequence {
  loader::Process process;
  std::vector<std::string> loaded_by;
  bool ok = true; // every step so far loaded
};

Sequence start(const loader::Process& host) { return {host, std::vector<std::string>(host.objects.size()), true}; }

// One more dlopen in `seq`. `alone`: the step's result in a fresh process,
// when the caller has it (doctor's roots), else computed on a failure.
SequenceStep next_step(loader::Simulator& sim, const loader::Process& host, Sequence& seq, const ImportStep& step,
                       const std::string& prefix, loader::FileSystemView& files, const loader::LoadReport* alone) {
  SequenceStep s;
  s.file = relative(step.file, prefix);
  s.visibility = step.visibility;
  loader::LoadReport r = sim.dlopen(seq.process, step.file, loader::Binding::now, step.visibility);
  s.loads = r.ok;
  s.first_error = message_of(r);
  if (r.ok) {
    seq.loaded_by.resize(seq.process.objects.size(), s.file);
    return s;
  }
  seq.ok = false;
  loader::LoadReport own;
  if (!alone) own = sim.trial_dlopen(host, step.file, loader::Binding::now);
  const loader::LoadReport& by_itself = alone ? *alone : own;
  s.loads_alone = by_itself.ok;
  if (by_itself.ok) explain(s, r, by_itself, seq.process, seq.loaded_by, files);
  return s;
}
} // namespace

std::vector<SequenceStep> simulate_sequence(loader::Simulator& sim, const loader::Process& host,
                                            const std::vector<ImportStep>& steps, const std::string& prefix,
                                            loader::FileSystemView& files) {
  std::vector<SequenceStep> out;
  Sequence seq = start(host);
  for (const auto& step : steps) {
    out.push_back(next_step(sim, host, seq, step, prefix, files, nullptr));
    // ALONE is the step in a fresh process, whatever it did in this one.
    if (out.back().loads) out.back().loads_alone = sim.trial_dlopen(host, step.file, loader::Binding::now).ok;
  }
  return out;
}

Finding sequence_finding(const SequenceStep& step, const DoctorInputs& in, loader::FileSystemView& files) {
  Finding f;
  f.code = code::import_order;
  f.severity = Severity::error;
  f.library = step.soname;
  f.resolved = step.loaded_copy;
  f.expected = relative(step.own_copy, in.env.prefix);
  f.expected_package = owner(in, step.own_copy, files);
  f.first_error = step.first_error;
  f.title = "importing " + step.loaded_by + " then " + step.file + " fails: " + step.file + " gets " + step.soname +
            " from the copy " + step.loaded_by + " loaded";
  f.evidence.push_back(step.loaded_by + " loads " + step.soname + " from " + copy_text(in, step.loaded_copy, files));
  f.evidence.push_back(step.file + " alone loads it from " + copy_text(in, step.own_copy, files));
  f.evidence.push_back("a process keeps one " + step.soname + ": whoever loads it first decides the copy every later "
                       "import binds to");
  f.affects = {step.loaded_by, step.file};
  f.fix = "one copy of " + step.soname + " for the whole env: " + one_copy_step(in, step, files) + "; or import " + step.file +
          " before " + step.loaded_by;
  return f;
}

namespace {
// What tells roots apart in an import order (root_classes): a key of NUL-separated parts.
void put(std::string& key, std::string_view part) {
  key += part;
  key += '\0';
}

// A symbol's version as the file names it ("file/VERSION" for a need).
std::string version_name(const elf::ElfObject& e, std::uint16_t index) {
  for (const auto& need : e.version_needs())
    for (const auto& entry : need.entries)
      if (entry.other == index) return std::string(need.file) + "/" + std::string(entry.name);
  for (const auto& def : e.version_definitions())
    if (def.index == index) return std::string(def.name);
  return std::to_string(index);
}

// A search list with $ORIGIN made the root's folder, each entry normalized:
// two roots in different folders search alike when these are equal.
std::string search_list(std::optional<std::string_view> list, const std::string& origin) {
  if (!list) return "-";
  std::string out;
  for (std::string entry : util::split(*list, ":"))
    out += normal(util::replace_all(util::replace_all(entry, "${ORIGIN}", origin), "$ORIGIN", origin)) + ":";
  return out;
}

// The names the other objects of a root's closure refer to: a definition of
// the root's with one of these names can interpose on them.
std::set<std::string> names_referenced(const loader::LoadReport& r, std::uint64_t dev, std::uint64_t ino,
                                       loader::FileSystemView& files) {
  std::set<std::string> out;
  for (const auto& o : r.objects) {
    if (o.preexisting || o.faked || o.name.empty()) continue;
    const auto& f = files.open_verify(o.name);
    if (!f.elf || (f.dev == dev && f.ino == ino)) continue;
    for (auto i : f.elf->undefined_symbols())
      if (auto sym = f.elf->symbol(i)) out.emplace(sym->name);
  }
  return out;
}

// The facts of a root's own file that decide how it loads after another
// root: what it needs and where it searches, its flags and version needs,
// its references in the order ld.so relocates them (the first that fails is
// the one reported), and its definitions its dependencies refer to.
std::string own_facts(const elf::ElfObject& e, const std::string& origin, const std::set<std::string>& referenced) {
  std::string key;
  const auto& d = e.dynamic();
  put(key, d.soname ? *d.soname : "-");
  for (auto n : d.needed) put(key, n);
  put(key, search_list(d.rpath, origin));
  put(key, search_list(d.runpath, origin));
  put(key, std::to_string(d.flags) + "," + std::to_string(d.flags_1));
  for (const auto& need : e.version_needs())
    for (const auto& entry : need.entries) put(key, std::string(need.file) + "/" + std::string(entry.name) + "," + std::to_string(entry.flags));
  std::set<std::uint32_t> seen;
  for (const auto& ref : e.relocation_order()) {
    auto sym = ref.symbol ? e.symbol(ref.symbol) : std::nullopt;
    if (!sym || sym->defined() || !seen.insert(ref.symbol).second) continue;
    put(key, std::string(sym->name) + "@" + version_name(e, sym->version) + "," + std::to_string(sym->bind) + "," +
                 std::to_string(sym->type));
  }
  put(key, "defines");
  for (std::uint32_t i = 1; i < e.symbol_count(); ++i) {
    auto sym = e.symbol(i);
    if (!sym || !sym->defined() || sym->bind == elf::stb_local || !referenced.count(std::string(sym->name))) continue;
    put(key, std::string(sym->name) + "@" + version_name(e, sym->version) + "," + std::to_string(sym->bind) + "," +
                 std::to_string(sym->type) + "," + std::to_string(sym->visibility));
  }
  return key;
}

// A root of the pass: its closure, its class, and the name and file it has
// in that closure.
struct OrderRoot {
  std::size_t root = 0; // index into report.roots
  Closure closure;
  std::size_t cls = 0;
  std::string name; // its soname (else file name): the closure's key for it
  Copy self;
};

// Every other object of the root's closure by name, file and path.
std::string others_key(const OrderRoot& r) {
  std::string key;
  for (const auto& [name, copy] : r.closure) {
    if (copy.same_file(r.self)) continue;
    put(key, name);
    put(key, std::to_string(copy.dev) + ":" + std::to_string(copy.ino));
    put(key, normal(copy.path)); // members name it by their own paths: second_after maps them
  }
  return key;
}

// The roots that load alone, with their closures and classes (root_classes).
std::vector<OrderRoot> order_roots(const DoctorReport& report, loader::FileSystemView& files, bool grouped) {
  std::vector<OrderRoot> out;
  for (std::size_t i = 0; i < report.roots.size(); ++i) {
    const auto& r = report.roots[i].report;
    if (!report.roots[i].loads || r.root < 0 || static_cast<std::size_t>(r.root) >= r.objects.size()) continue;
    const auto& own = r.objects[static_cast<std::size_t>(r.root)];
    const auto& f = files.open_verify(own.name);
    out.push_back({i, closure_of(r, files), 0, soname_of(own.soname, own.name), Copy{f.dev, f.ino, own.name}});
  }
  // Names and files some root's closure holds besides the root itself; the
  // names two closures resolve to different files (only a root whose closure
  // has one is ever paired: the others need no key).
  std::set<std::string> needed_names;
  std::set<std::pair<std::uint64_t, std::uint64_t>> needed_files;
  std::map<std::string, std::set<std::pair<std::uint64_t, std::uint64_t>>> files_of;
  for (const auto& o : out)
    for (const auto& [name, copy] : o.closure) {
      files_of[name].insert({copy.dev, copy.ino});
      if (copy.same_file(o.self)) continue;
      needed_names.insert(name);
      needed_files.insert({copy.dev, copy.ino});
    }
  auto paired = [&](const OrderRoot& o) {
    return std::any_of(o.closure.begin(), o.closure.end(), [&](const auto& e) { return files_of[e.first].size() > 1; });
  };
  std::map<std::string, std::size_t> classes;
  std::map<std::string, std::set<std::string>> referenced; // by others_key
  for (auto& o : out) {
    std::string key = "#" + std::to_string(o.root);
    const auto& f = files.open_verify(o.self.path);
    if (grouped && f.elf && !needed_names.count(o.name) && !needed_files.count({o.self.dev, o.self.ino}) && paired(o)) {
      const std::string others = others_key(o);
      auto [names, fresh] = referenced.try_emplace(others);
      if (fresh) names->second = names_referenced(report.roots[o.root].report, o.self.dev, o.self.ino, files);
      const std::string origin = std::filesystem::path(normal(o.self.path)).parent_path().string();
      key = std::string(to_string(report.roots[o.root].kind)) + '\0' + others + '\0' + own_facts(*f.elf, origin, names->second);
    }
    o.cls = classes.try_emplace(key, classes.size()).first->second;
  }
  return out;
}

// `text` with each whole occurrence of a path (not a longer path it begins)
// made its replacement, all at once (two members may swap names).
std::string with_paths(const std::string& text, const std::vector<std::pair<std::string, std::string>>& paths) {
  auto whole_at = [&](std::size_t at, const std::string& path) {
    if (path.empty() || text.compare(at, path.size(), path) != 0) return false;
    const std::size_t next = at + path.size();
    return next == text.size() || !(std::isalnum(static_cast<unsigned char>(text[next])) ||
                                    std::string_view("._-/+").find(text[next]) != std::string_view::npos);
  };
  std::string out;
  for (std::size_t at = 0; at < text.size();) {
    const std::pair<std::string, std::string>* hit = nullptr;
    for (const auto& p : paths)
      if (whole_at(at, p.first) && (!hit || p.first.size() > hit->first.size())) hit = &p;
    if (hit) {
      out += hit->second;
      at += hit->first.size();
    } else {
      out += text[at++];
    }
  }
  return out;
}

// Whether two roots' closures share a soname resolved to different files,
// but for the two roots' own entries (compared by name for each pair of
// members: a class's members have different names).
bool closures_conflict(const OrderRoot& x, const OrderRoot& y) {
  return std::any_of(x.closure.begin(), x.closure.end(), [&](const auto& entry) {
    auto other = y.closure.find(entry.first);
    if (other == y.closure.end() || other->second.same_file(entry.second)) return false;
    return !(entry.second.same_file(x.self) && other->second.same_file(y.self));
  });
}

// What the pass left untried past its cap: said, never silent.
Finding skipped_finding(const DoctorReport& report, std::size_t cap, std::size_t pairs, const std::set<std::size_t>& roots,
                        std::size_t classes) {
  Finding f;
  f.code = code::import_order_skipped;
  f.severity = Severity::info;
  f.title = std::to_string(pairs) + " import order(s) of " + std::to_string(roots.size()) +
            " root(s) not simulated: the import-order pass stops at " + std::to_string(cap) + " simulated orders";
  f.evidence.push_back("roots that load alike in any order (the same files for the rest of their closure, the same "
                       "needs and references of their own) are " + std::to_string(classes) +
                       " classes here; one order is simulated per ordered pair of classes whose closures share a "
                       "soname resolved to different files");
  f.evidence.push_back("orders past the cap are not judged: an import-order failure among them is not reported");
  for (auto r : roots) f.affects.push_back(report.roots[r].file);
  f.fix = "run the imports a script makes with `condacuda doctor --imports A,B,...`, or give each soname one copy "
          "(`condacuda repair`), which leaves no pair to simulate";
  return f;
}
} // namespace

std::vector<std::vector<std::size_t>> root_classes(const DoctorReport& report, loader::FileSystemView& files) {
  std::vector<std::vector<std::size_t>> out;
  for (const auto& o : order_roots(report, files, true)) {
    if (o.cls >= out.size()) out.resize(o.cls + 1);
    out[o.cls].push_back(o.root);
  }
  return out;
}

namespace {
// One pass over the pairs of roots that may conflict: each pair of classes
// simulated once on representatives (memoised), each failing order merged
// into one finding per (soname, loaded copy, own copy), the pairs past the
// cap counted. The tables are the pass's memory between the orders it tries.
class PairPass {
public:
  PairPass(const DoctorReport& report, loader::Simulator& sim, const loader::Process& host, loader::FileSystemView& files,
           const OrderPass& pass)
      : report_(report), in_(report.inputs), sim_(sim), host_(host), files_(files), pass_(pass),
        roots_(order_roots(report, files, pass.grouped)) {
    for (const auto& r : roots_) class_count_ = std::max(class_count_, r.cls + 1);
    members_.resize(class_count_);
    for (std::size_t i = 0; i < roots_.size(); ++i) members_[roots_[i].cls].push_back(i);
    for (const auto& r : roots_) rel_.push_back(relative(path_of(r.root), in_.env.prefix));
    for (const auto& r : roots_) library_.push_back(report.roots[r.root].kind == RootKind::library);
  }

  // The pairs to try: closures sharing a soname resolved to different files
  // (decided per pair of classes, but for the roots' own names). Consumers
  // (what scripts import) first, so that a finding's title names the pair a
  // user meets; libraries opened by path come after.
  std::vector<Finding> run() {
    for (int libraries = 0; libraries <= 2; ++libraries)
      for (std::size_t x = 0; x < roots_.size(); ++x)
        for (std::size_t y = x + 1; y < roots_.size(); ++y) {
          if (library_[x] + library_[y] != libraries || !conflict(x, y)) continue;
          try_order(x, y);
          try_order(y, x);
        }
    std::vector<Finding> out;
    for (const auto& key : order_) out.push_back(std::move(by_copies_[key].finding));
    if (skipped_pairs_ > 0)
      out.push_back(skipped_finding(report_, pass_.max_orders, skipped_pairs_, skipped_roots_, class_count_));
    return out;
  }

private:
  enum class Outcome { simulated, first_fails, skipped };
  using CopiesKey = std::tuple<std::string, std::string, std::string>; // soname, loaded copy, own copy

  // A pair of classes simulated on its representatives: the first member of
  // each (of a class with itself, its first two).
  struct Simulated {
    Outcome outcome = Outcome::skipped;
    std::size_t first = 0, second = 0; // the representatives (indices into roots_)
    SequenceStep step;
    // When the second fails only after the first: the finding's key and what
    // every member pair shares (normalized paths; a first opened by path is a
    // class of its own), so that a known finding only lists the members.
    std::optional<CopiesKey> key;
    bool by_path = false;         // the copy loaded first is the first root itself
    bool loaded_by_first = false; // that copy was loaded by the first root (else the host)
  };

  // The step of one root after another, with the members' names.
  struct Second {
    Outcome outcome = Outcome::skipped;
    SequenceStep step;
  };

  // A finding and the roots it lists, in the order found.
  struct Merged {
    Finding finding;
    std::set<std::string> listed;
    void list(const std::string& root) {
      if (listed.insert(root).second) finding.affects.push_back(root);
    }
  };

  std::string path_of(std::size_t root) const { return in_.env.prefix + "/" + report_.roots[root].file; }

  // Each representative first root is loaded once (the process after it is
  // copied for every second root).
  const Simulated& simulate(std::size_t ca, std::size_t cb) {
    auto [it, fresh] = by_classes_.try_emplace({ca, cb});
    Simulated& s = it->second;
    if (!fresh) return s;
    s.first = members_[ca][0];
    s.second = ca == cb ? members_[cb][1] : members_[cb][0];
    if (simulated_ >= pass_.max_orders) return s; // skipped
    ++simulated_;
    const std::size_t a = roots_[s.first].root, b = roots_[s.second].root;
    auto [first, started] = after_.try_emplace(a);
    if (started) {
      first->second = start(host_);
      next_step(sim_, host_, first->second, {path_of(a), loader::Visibility::local}, in_.env.prefix, files_, nullptr);
    }
    if (!first->second.ok) {
      s.outcome = Outcome::first_fails;
      return s;
    }
    Sequence seq = first->second;
    // A root's own report is its load alone, but for an extension without the
    // env's python as host (doctor excused its C-API symbols there).
    const loader::LoadReport* alone = in_.host_program ? &report_.roots[b].report : nullptr;
    s.step = next_step(sim_, host_, seq, {path_of(b), loader::Visibility::local}, in_.env.prefix, files_, alone);
    s.outcome = Outcome::simulated;
    if (s.step.loads || !s.step.loads_alone || s.step.soname.empty()) return s;
    s.key = std::make_tuple(s.step.soname, normal(s.step.loaded_copy), normal(s.step.own_copy));
    s.by_path = relative(s.step.loaded_copy, in_.env.prefix) == report_.roots[a].file;
    s.loaded_by_first = s.step.loaded_by == rel_[s.first];
    return s;
  }

  // The step of root y after root x (indices into roots_): the representatives'
  // step with the members' names (no step when the first fails or the pair was skipped).
  Second second_after(std::size_t x, std::size_t y) {
    const Simulated& s = simulate(roots_[x].cls, roots_[y].cls);
    if (s.outcome != Outcome::simulated) return {s.outcome, {}};
    if (s.step.loads) return {Outcome::simulated, {}}; // a step loads by default: nothing to name
    SequenceStep step = s.step;
    const std::size_t ra = roots_[s.first].root, rb = roots_[s.second].root, a = roots_[x].root, b = roots_[y].root;
    if (ra == a && rb == b) return {Outcome::simulated, std::move(step)};
    // Each object as the member's load names it: those the first loaded by
    // the first's paths, the rest by the second's (same names, same files).
    std::vector<std::pair<std::string, std::string>> paths{{path_of(ra), path_of(a)}, {path_of(rb), path_of(b)}};
    auto add_paths = [&](const OrderRoot& rep, const OrderRoot& member, const Closure* loaded_first) {
      for (const auto& [name, copy] : rep.closure) {
        auto mine = member.closure.find(name);
        if (mine == member.closure.end() || mine->second.path == copy.path) continue;
        if (loaded_first && loaded_first->count(name) && loaded_first->at(name).same_file(copy)) continue;
        paths.emplace_back(copy.path, mine->second.path);
      }
    };
    add_paths(roots_[s.first], roots_[x], nullptr);
    add_paths(roots_[s.second], roots_[y], &roots_[s.first].closure);
    auto named = [&](const std::string& path) {
      for (const auto& [from, to] : paths)
        if (path == from) return to;
      return path;
    };
    step.file = rel_[y];
    if (step.loaded_by == rel_[s.first]) step.loaded_by = rel_[x];
    step.loaded_copy = named(step.loaded_copy);
    step.own_copy = named(step.own_copy);
    step.first_error = with_paths(step.first_error, paths);
    return {Outcome::simulated, std::move(step)};
  }

  // The first root is the copy the second got: only an open by path meets that.
  bool opened_by_path(std::size_t a, const SequenceStep& second) const {
    return relative(second.loaded_copy, in_.env.prefix) == report_.roots[a].file;
  }

  // The finding for the failing order x then y, with whether the other order works.
  Finding finding_for(std::size_t x, std::size_t y, const SequenceStep& second) {
    const std::size_t a = roots_[x].root;
    Finding f = sequence_finding(second, in_, files_);
    if (opened_by_path(a, second)) {
      // The first root is the other copy itself: only a process that opens
      // that file by its path (not by soname) before the second meets this.
      f.severity = Severity::warning;
      f.evidence.push_back("only a process that opens " + report_.roots[a].file +
                           " by its path first meets this; by soname the loader takes the copy its search finds first");
    }
    const Second reverse = second_after(y, x);
    f.evidence.push_back(reverse.outcome == Outcome::skipped
                             ? "the other order (" + second.file + " then " + second.loaded_by +
                                   ") was not simulated: the pass reached its cap"
                         : reverse.outcome == Outcome::first_fails || reverse.step.loads
                             ? "the other order (" + second.file + " then " + second.loaded_by + ") works"
                             : "the other order fails too: " + reverse.step.first_error);
    return f;
  }

  void try_order(std::size_t x, std::size_t y) {
    const Simulated& s = simulate(roots_[x].cls, roots_[y].cls);
    if (s.outcome == Outcome::skipped) {
      ++skipped_pairs_;
      skipped_roots_.insert(roots_[x].root);
      skipped_roots_.insert(roots_[y].root);
      return;
    }
    if (s.outcome != Outcome::simulated || !s.key) return;
    auto [it, added] = by_copies_.try_emplace(*s.key);
    Merged& m = it->second;
    if (added || (m.finding.severity == Severity::warning && !s.by_path)) {
      const SequenceStep second = second_after(x, y).step; // with the members' names
      if (added) {
        order_.push_back(*s.key);
        m.finding = finding_for(x, y, second);
        for (const auto& root : m.finding.affects) m.listed.insert(root);
        return;
      }
      // An order that needs no open by path: an error, named by it; the roots seen so far stay listed.
      std::vector<std::string> listed = std::move(m.finding.affects);
      m.finding = finding_for(x, y, second);
      m.listed = std::set<std::string>(m.finding.affects.begin(), m.finding.affects.end());
      for (const auto& root : listed) m.list(root);
    }
    m.list(s.loaded_by_first ? rel_[x] : s.step.loaded_by);
    m.list(rel_[y]);
  }

  bool conflict(std::size_t x, std::size_t y) {
    if (roots_[x].name == roots_[y].name && !roots_[x].self.same_file(roots_[y].self)) return true;
    auto [known, fresh] = conflicts_.try_emplace({roots_[x].cls, roots_[y].cls});
    if (fresh) known->second = closures_conflict(roots_[members_[roots_[x].cls][0]], roots_[members_[roots_[y].cls][0]]);
    return known->second;
  }

  const DoctorReport& report_;
  const DoctorInputs& in_;
  loader::Simulator& sim_;
  const loader::Process& host_;
  loader::FileSystemView& files_;
  const OrderPass& pass_;
  const std::vector<OrderRoot> roots_;
  std::size_t class_count_ = 0;
  std::vector<std::vector<std::size_t>> members_; // class -> indices into roots_
  std::vector<std::string> rel_;                  // each root as a step names it
  std::vector<int> library_;                      // 1 for a library root, 0 for a consumer
  // The memo tables: the process after each first root, each pair of classes, each pair's conflict.
  std::map<std::size_t, Sequence> after_;
  std::map<std::pair<std::size_t, std::size_t>, Simulated> by_classes_;
  std::map<std::pair<std::size_t, std::size_t>, bool> conflicts_;
  std::size_t simulated_ = 0, skipped_pairs_ = 0;
  std::set<std::size_t> skipped_roots_;
  std::map<CopiesKey, Merged> by_copies_;
  std::vector<CopiesKey> order_; // the findings' keys, in the order found
};
} // namespace

std::vector<Finding> import_order_findings(const DoctorReport& report, loader::Simulator& sim,
                                           const loader::Process& host, loader::FileSystemView& files,
                                           const OrderPass& pass) {
  return PairPass(report, sim, host, files, pass).run();
}

} // namespace condacuda::doctor
