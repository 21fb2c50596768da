#include "doctor/import_order.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>

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
  for (const auto& step : steps) out.push_back(next_step(sim, host, seq, step, prefix, files, nullptr));
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

std::vector<Finding> import_order_findings(const DoctorReport& report, loader::Simulator& sim,
                                           const loader::Process& host, loader::FileSystemView& files) {
  const DoctorInputs& in = report.inputs;
  std::vector<std::pair<std::size_t, Closure>> loading;
  for (std::size_t i = 0; i < report.roots.size(); ++i)
    if (report.roots[i].loads) loading.emplace_back(i, closure_of(report.roots[i].report, files));
  // (soname, loaded copy, own copy) -> the finding; pairs in the order found.
  std::map<std::tuple<std::string, std::string, std::string>, Finding> by_copies;
  std::vector<std::tuple<std::string, std::string, std::string>> order;
  std::set<std::pair<std::size_t, std::size_t>> tried;
  auto path_of = [&](std::size_t root) { return in.env.prefix + "/" + report.roots[root].file; };
  // Each root loaded first once (the process after it is copied for every
  // second root), and each ordered pair simulated once.
  std::map<std::size_t, Sequence> after;
  std::map<std::pair<std::size_t, std::size_t>, SequenceStep> seconds;
  auto second_after = [&](std::size_t a, std::size_t b) -> const SequenceStep* {
    if (auto it = seconds.find({a, b}); it != seconds.end()) return &it->second;
    auto [first, fresh] = after.try_emplace(a);
    if (fresh) {
      first->second = start(host);
      next_step(sim, host, first->second, {path_of(a), loader::Visibility::local}, in.env.prefix, files, nullptr);
    }
    if (!first->second.ok) return nullptr;
    Sequence seq = first->second;
    // A root's own report is its load alone, but for an extension without the
    // env's python as host (doctor excused its C-API symbols there).
    const loader::LoadReport* alone = in.host_program ? &report.roots[b].report : nullptr;
    SequenceStep step = next_step(sim, host, seq, {path_of(b), loader::Visibility::local}, in.env.prefix, files, alone);
    return &seconds.emplace(std::make_pair(a, b), std::move(step)).first->second;
  };
  // The first root is the copy the second got: only an open by path meets that.
  auto opened_by_path = [&](std::size_t a, const SequenceStep& second) {
    return relative(second.loaded_copy, in.env.prefix) == report.roots[a].file;
  };
  // The finding for the failing order a then b, with whether the other order works.
  auto finding_for = [&](std::size_t a, std::size_t b, const SequenceStep& second) {
    Finding f = sequence_finding(second, in, files);
    if (opened_by_path(a, second)) {
      // The first root is the other copy itself: only a process that opens
      // that file by its path (not by soname) before the second meets this.
      f.severity = Severity::warning;
      f.evidence.push_back("only a process that opens " + report.roots[a].file +
                           " by its path first meets this; by soname the loader takes the copy its search finds first");
    }
    const SequenceStep* reverse = second_after(b, a);
    f.evidence.push_back(!reverse || reverse->loads
                             ? "the other order (" + second.file + " then " + second.loaded_by + ") works"
                             : "the other order fails too: " + reverse->first_error);
    return f;
  };
  auto try_order = [&](std::size_t a, std::size_t b) {
    if (!tried.insert({a, b}).second) return;
    const SequenceStep* found = second_after(a, b);
    if (!found) return;
    const SequenceStep& second = *found;
    if (second.loads || !second.loads_alone || second.soname.empty()) return;
    auto key = std::make_tuple(second.soname, normal(second.loaded_copy), normal(second.own_copy));
    auto [it, added] = by_copies.try_emplace(key);
    if (added) {
      order.push_back(key);
      it->second = finding_for(a, b, second);
      return;
    }
    std::vector<std::string> affects = it->second.affects;
    if (it->second.severity == Severity::warning && !opened_by_path(a, second))
      it->second = finding_for(a, b, second); // an order that needs no open by path: an error, named by it
    for (const auto& root : affects) // every root seen so far, once
      if (std::find(it->second.affects.begin(), it->second.affects.end(), root) == it->second.affects.end())
        it->second.affects.push_back(root);
    for (const auto& root : {second.loaded_by, second.file})
      if (std::find(it->second.affects.begin(), it->second.affects.end(), root) == it->second.affects.end())
        it->second.affects.push_back(root);
  };
  // The pairs to try: closures sharing a soname resolved to different files.
  // Consumers (what scripts import) first, so that a finding's title names
  // the pair a user meets; libraries opened by path come after.
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t x = 0; x < loading.size(); ++x)
    for (std::size_t y = x + 1; y < loading.size(); ++y) {
      const Closure& cx = loading[x].second;
      const Closure& cy = loading[y].second;
      const bool conflict = std::any_of(cx.begin(), cx.end(), [&](const auto& entry) {
        auto other = cy.find(entry.first);
        return other != cy.end() && !other->second.same_file(entry.second);
      });
      if (conflict) pairs.emplace_back(loading[x].first, loading[y].first);
    }
  auto libraries_in = [&](const std::pair<std::size_t, std::size_t>& p) {
    return (report.roots[p.first].kind == "library") + (report.roots[p.second].kind == "library");
  };
  std::stable_sort(pairs.begin(), pairs.end(), [&](const auto& a, const auto& b) { return libraries_in(a) < libraries_in(b); });
  for (const auto& [a, b] : pairs) {
    try_order(a, b);
    try_order(b, a);
  }
  std::vector<Finding> out;
  for (const auto& key : order) out.push_back(std::move(by_copies[key]));
  return out;
}

} // namespace condacuda::doctor
