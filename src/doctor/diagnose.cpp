// Findings from load reports. One finding per cause: the file that shadows,
// the library nothing finds, the version nobody defines — each listing every
// root it breaks, with the evidence and the fix.
#include "doctor/diagnose.hpp"

#include <filesystem>
#include <regex>
#include <map>
#include <set>

#include "doctor/alignment_findings.hpp"
#include "doctor/wording.hpp"
#include "inventory/components.hpp"
#include "inventory/cuda_builds.hpp"
#include "inventory/version_evidence.hpp"
#include "loader/path_list.hpp"
#include "loader/versions.hpp"
#include "util/path.hpp"
#include "util/strings.hpp"

namespace condacuda::doctor {

namespace {
namespace fs = std::filesystem;
using loader::ErrorKind;
using loader::FoundVia;

std::string normal(const std::string& p) { return util::lexically_normal(p); }

class Diagnosis {
public:
  Diagnosis(const DoctorReport& report, loader::FileSystemView& files)
      : report_(report), files_(files), prefix_(normal(report.inputs.env.prefix)) {
    while (prefix_.size() > 1 && prefix_.back() == '/') prefix_.pop_back();
  }

  std::vector<Finding> run() {
    for (const auto& root : report_.roots) {
      for (const auto& e : root.report.errors)
        if (!e.lazy_only && !consequence_of_missing(root, e)) on_error(root, e);
      on_loaded(root);
      on_foreign_major(root);
    }
    path_findings();
    hook_findings();
    return collect();
  }

private:
  const DoctorReport& report_;
  loader::FileSystemView& files_;
  std::string prefix_;
  std::map<std::string, Finding> groups_;
  std::vector<std::string> order_;
  std::set<std::string> blamed_; // files already named by an error finding

  bool inside_env(const std::string& path) const { return normal(path).rfind(prefix_ + "/", 0) == 0; }
  std::string shown(const std::string& path) const {
    std::string n = normal(path);
    return inside_env(n) ? n.substr(prefix_.size() + 1) : n;
  }
  FixAction repair_action() const { return {"repair", {report_.inputs.env.prefix}}; }
  std::string env_command() const { return command_line(repair_action()); }

  // The fix that puts the env's folders first on LD_LIBRARY_PATH: its hook,
  // unless the prefix, or the folder of the env's copy (`env_file`,
  // prefix-relative), cannot be written into a path list at all.
  // Sets the finding's step (repair) when that is the fix.
  std::string put_env_first(Finding& f, const std::string& why, const std::string& env_file = "") const {
    const std::string& prefix = report_.inputs.env.prefix;
    if (!loader::fits_path_list(prefix))
      return "move the env to a path without ':' or ';' (`conda rename`, or a new env): LD_LIBRARY_PATH cannot hold '" +
             prefix + "', those characters separate its entries, so no activation can put the env's folders first";
    const std::string folder = fs::path(env_file).parent_path().string();
    if (!loader::fits_path_list(folder))
      return "reinstall the package that owns " + env_file + " where its folder has no ':' or ';': LD_LIBRARY_PATH "
             "cannot hold '" + folder + "' (those characters separate its entries), so no hook can put it first and "
             "`condacuda repair` refuses it";
    f.actions = {repair_action()};
    return "run `" + env_command() + "`" + why;
  }

  Finding& group(const std::string& key, const char* code, Severity severity) {
    auto [it, inserted] = groups_.try_emplace(key);
    if (inserted) {
      it->second.code = code;
      it->second.severity = severity;
      order_.push_back(key);
    }
    return it->second;
  }

  // Symbols and versions that a library not found would have provided are
  // not causes of their own: the not-found finding covers them.
  static bool consequence_of_missing(const RootResult& root, const loader::LoadError& e) {
    if (e.kind != ErrorKind::undefined_symbol && e.kind != ErrorKind::version_missing) return false;
    for (const auto& other : root.report.errors)
      if ((other.kind == ErrorKind::not_found || other.kind == ErrorKind::wrong_class || other.kind == ErrorKind::bad_file) &&
          (e.library.empty() || other.objname == e.library))
        return true;
    return false;
  }

  static void add_affected(Finding& f, const RootResult& root) {
    if (std::find(f.affects.begin(), f.affects.end(), root.file) == f.affects.end()) f.affects.push_back(root.file);
    if (f.first_error.empty()) f.first_error = root.first_error;
  }

  const inventory::Library* env_library(const std::string& soname) const {
    return report_.inputs.inventory.find_by_soname(soname);
  }

  // The link on a search-path entry's way, said with its target: "/opt/cuda
  // is a link to /opt/cuda-12.0" (the user's model is the link's name), "" when
  // the entry is reached without one.
  struct LinkOnPath {
    std::string link, target;
  };
  std::optional<LinkOnPath> link_on_path(const std::string& entry) const {
    if (entry.empty() || entry.front() != '/') return std::nullopt;
    const std::string whole = normal(entry);
    const std::string real = files_.real_path(whole);
    if (real.empty() || real == whole) return std::nullopt;
    fs::path so_far("/");
    for (const auto& part : fs::path(whole).relative_path()) {
      so_far /= part;
      const std::string at = so_far.string(), resolved = files_.real_path(at);
      if (!resolved.empty() && resolved != at && files_.real_path(so_far.parent_path().string()) == so_far.parent_path().string())
        return LinkOnPath{at, resolved};
    }
    return LinkOnPath{whole, real};
  }

  // "LD_LIBRARY_PATH entry '/x', which the loader searches before ..." (doctor/wording.hpp).
  static std::string via_phrase(FoundVia via, const std::string& element) {
    return found_through(via, element).substr(std::string("found through ").size());
  }


  // Does the file define symbol@version (version "" = any definition)?
  bool defines(const std::string& path, const std::string& symbol, const std::string& version) const {
    const auto& opened = files_.open_verify(path);
    if (!opened.elf || !opened.elf->has_symbols()) return false;
    auto table = loader::build_version_table(*opened.elf);
    bool found = false;
    opened.elf->for_each_named(symbol, [&](std::uint32_t, const elf::Symbol& s) {
      if (!s.defined()) return true;
      found = version.empty() || (s.version < table.size() && table[s.version].name == version);
      return !found;
    });
    return found;
  }

  // With several copies of `soname` in the env (conda's lib/ beside a
  // wheel), the first one that defines every versioned symbol `requester`
  // needs from it, else the first copy. (repair chooses one copy for every
  // requester, repair/copies.cpp; for the one requester named here it has all
  // this one needs too.)
  const inventory::Library* env_library_for(const std::string& soname, const std::string& requester) const {
    const auto& from = files_.open_verify(requester);
    if (from.elf)
      for (const auto& lib : report_.inputs.inventory.libraries) {
        if (lib.soname != soname) continue;
        const auto& to = files_.open_verify(prefix_ + "/" + lib.file);
        if (to.elf && loader::satisfies_versioned_references(*from.elf, *to.elf, soname)) return &lib;
      }
    return env_library(soname);
  }

  void expect_env_file(Finding& f, const std::string& soname, const std::string& requester = "") const {
    if (const auto* lib = requester.empty() ? env_library(soname) : env_library_for(soname, normal(requester))) {
      f.expected = lib->file;
      f.expected_package = lib->package.empty() ? "" : lib->package + " " + lib->version;
    }
  }

  // Sets the finding's step (pip install) when the component has a wheel to name.
  std::string install_hint(Finding& f, const std::string& soname) const {
    if (!inventory::classify_library(soname)) return "install the package that provides " + soname + " into the env";
    const std::string wheel = wheel_for(soname);
    f.actions = install_actions(soname);
    if (!f.actions.empty())
      return "install " + soname + " into the env: `" + command_line(f.actions.front()) + "` (or the conda package of that component)";
    return "install " + soname + " into the env (pip: " + wheel + ", or the conda package of that component)";
  }

  // "upgrade the env's package of `file` (prefix-relative)" as a step, for a pip package.
  std::vector<FixAction> upgrade_actions(const std::string& file, const std::string& min_release) const {
    for (const auto& lib : report_.inputs.inventory.libraries)
      if (lib.file == file && lib.manager == "pip" && !lib.package.empty())
        return {{"pip-install", {"install", "--upgrade", min_release.empty() ? lib.package : lib.package + ">=" + min_release}}};
    return {};
  }

  // ", or point /opt/cuda (now /opt/cuda-12.0) at a CUDA >= 12.1": for an
  // LD_LIBRARY_PATH entry reached through a link, the lowest release that
  // defines what was missing (the versioned entry points say it).
  std::string point_link_elsewhere(const Finding& f) const {
    if (f.via != "ld_library_path" || f.min_release.empty()) return "";
    const auto link = link_on_path(f.via_entry);
    if (!link) return "";
    return ", or point " + link->link + " (now " + link->target + ") at a CUDA >= " + f.min_release;
  }

  // ": `pip install --upgrade 'x>=12.1'`": the finding's one step in words, if it has one.
  static std::string step_words(const Finding& f) {
    return f.actions.size() == 1 && !command_line(f.actions[0]).empty() ? ": `" + command_line(f.actions[0]) + "`" : "";
  }

  // NVIDIA's wheel of the soname's component, of its major (the env's when the soname does not say it); "" when none.
  std::string wheel_for(const std::string& soname) const {
    auto kind = inventory::classify_library(soname);
    if (!kind) return "";
    int major = kind->soname_is_cuda_major ? inventory::soname_major(soname) : -1;
    if (major < 0 && report_.inputs.inventory.cuda_majors.size() == 1) major = report_.inputs.inventory.cuda_majors[0];
    return inventory::wheel_for_component(kind->id, major);
  }

  // install_hint as a step: the wheel of that component and major, when it has one.
  std::vector<FixAction> install_actions(const std::string& soname) const {
    const std::string wheel = wheel_for(soname);
    if (wheel.empty() || wheel.find(' ') != std::string::npos) return {};
    return {{"pip-install", {"install", wheel}}};
  }


  void on_error(const RootResult& root, const loader::LoadError& e) {
    const auto& objects = root.report.objects;
    auto object_name = [&](int i) { return i >= 0 && i < static_cast<int>(objects.size()) ? objects[static_cast<std::size_t>(i)].name : std::string(); };
    switch (e.kind) {
    case ErrorKind::not_found:
    case ErrorKind::wrong_class: not_found(root, e, object_name(e.object)); break;
    case ErrorKind::undefined_symbol: undefined_symbol(root, e, object_name(e.object)); break;
    case ErrorKind::version_missing: version_missing(root, e, object_name(e.required_by)); break;
    case ErrorKind::bad_file:
    case ErrorKind::dst: {
      Finding& f = group("bad-file\n" + e.objname + e.text, code::bad_file, Severity::error);
      f.title = e.objname + ": " + e.text;
      f.resolved = e.objname;
      f.evidence = {"the loader stops at this file: " + e.text};
      f.fix = "remove or replace " + e.objname + ", or take its folder off the search path";
      add_affected(f, root);
      break;
    }
    case ErrorKind::executable_stack: {
      Finding& f = group("execstack\n" + e.objname, code::executable_stack, Severity::error);
      f.title = e.objname + " asks for an executable stack, which dlopen refuses from glibc 2.41 on";
      f.resolved = e.objname;
      f.evidence = {"the loader stops at this file: " + e.text,
                    "its PT_GNU_STACK has PF_X, or it has none (the x86-64 default is executable); glibc up to 2.40 "
                    "made the stack executable for it, 2.41 refuses under dlopen (program start-up still allows it)"};
      f.fix = "clear the flag: `patchelf --clear-execstack " + e.objname +
              "` (patchelf 0.18+) or relink it with -z noexecstack (upstream: ask for a build without it); or, for "
              "this process only, GLIBC_TUNABLES=glibc.rtld.execstack=2 where glibc has it (2.42, Debian's 2.41)";
      add_affected(f, root);
      break;
    }
    case ErrorKind::assertion: {
      Finding& f = group("abort", code::loader_abort, Severity::error);
      f.title = "ld.so aborts: a versioned reference into a library without symbol versions";
      f.evidence = {e.text};
      f.fix = "replace the unversioned library with the env's own build";
      add_affected(f, root);
      break;
    }
    }
  }

  void not_found(const RootResult& root, const loader::LoadError& e, const std::string& requester) {
    const std::string& soname = e.objname;
    Finding& f = group("not-found\n" + soname, code::not_found, Severity::error);
    f.library = soname;
    f.title = soname + " is not found";
    expect_env_file(f, soname, requester);
    std::string line = shown(requester) + " needs " + soname + "; no search path reaches it";
    if (std::find(f.evidence.begin(), f.evidence.end(), line) == f.evidence.end()) f.evidence.push_back(line);
    if (!f.expected.empty()) {
      f.title = soname + " is in the env but not found from where it is needed";
      f.actions = {repair_action()};
      f.fix = "run `" + env_command() + "`: it links " + soname + " next to the libraries that need it (their own search "
              "path then finds it without activation) and puts " + fs::path(f.expected).parent_path().string() +
              " on LD_LIBRARY_PATH when the env is activated";
    } else if (!consumer_fix(f, soname, requester)) {
      f.fix = install_hint(f, soname);
    }
    add_affected(f, root);
  }

  // The package that owns an env file (absolute path), from the inventory.
  struct Owner {
    std::string manager, package, version, build;
  };
  std::optional<Owner> owner_of(const std::string& path) const {
    const auto& inv = report_.inputs.inventory;
    for (const std::string& p : {normal(path), normal(files_.real_path(path))}) {
      if (!inside_env(p)) continue;
      const std::string rel = shown(p);
      for (const auto& c : inv.consumers)
        if (c.file == rel && !c.package.empty()) return Owner{c.manager, c.package, c.version, c.build};
      for (const auto& l : inv.libraries)
        if (l.file == rel && !l.package.empty()) return Owner{l.manager, l.package, l.version, l.build};
    }
    return std::nullopt;
  }

  // A library of another CUDA major is missing because its consumer is a
  // build for that major (cupy-cuda11x in a CUDA 12 env): the fix is the
  // consumer's matching build, not that major's library for the env (which
  // the next doctor would call misaligned, and the fix would loop).
  bool consumer_fix(Finding& f, const std::string& soname, const std::string& requester) {
    const auto& majors = report_.inputs.inventory.cuda_majors;
    const auto owner = requester.empty() ? std::nullopt : owner_of(requester);
    if (majors.empty() || !owner) return false;
    const int env_major = majors.back();
    const auto kind = inventory::classify_library(soname);
    const int wanted = kind && kind->soname_is_cuda_major ? inventory::soname_major(soname) : -1;
    const auto r = consumer_rebuild(owner->manager, owner->package, owner->version, owner->build, report_.inputs.inventory, env_major);
    if (!r || (wanted >= 0 && wanted != r->built)) return false;
    const std::string built = std::to_string(r->built);
    f.actions = r->actions;
    f.title = owner->package + " " + owner->version + " is built for CUDA " + built + "; this env is CUDA " +
              std::to_string(env_major) + " (" + soname + " is not found)";
    f.evidence.push_back(owner->package + " " + owner->version + " is a CUDA " + built + " build (" + r->evidence +
                         "); the env's CUDA libraries are CUDA " + std::to_string(env_major));
    f.fix = "install its CUDA " + std::to_string(env_major) + " build: " + r->words + " (a CUDA " + built + " " + soname +
            " in the env would mix two CUDA majors)";
    return true;
  }

  void undefined_symbol(const RootResult& root, const loader::LoadError& e, const std::string& referrer) {
    // Who should have defined it: the object loaded for the version's file.
    const loader::ObjectSummary* provider = nullptr;
    for (const auto& o : root.report.objects)
      if (!e.library.empty() && !o.faked && o.soname && *o.soname == e.library) provider = &o;
    std::string key = "undefined\n" + (provider ? normal(provider->name) : e.library + "\n" + referrer);
    Finding& f = group(key, code::undefined_symbol, Severity::error);
    f.library = e.library;
    f.version = e.version;
    std::set<std::string> symbols;
    for (const auto& s : util::split(f.symbols, ",")) if (!s.empty()) symbols.insert(s);
    symbols.insert(e.name);
    f.symbols = util::join(std::vector<std::string>(symbols.begin(), symbols.end()), ",");
    std::string release = inventory::implied_release(e.name);
    if (!release.empty() && util::compare_versions(release, f.min_release) > 0) f.min_release = release;
    if (provider) {
      f.resolved = normal(provider->name);
      f.via = loader::to_string(provider->via);
      f.via_entry = provider->via_element;
      blamed_.insert(f.resolved);
    }
    expect_env_file(f, e.library);
    std::string expected_abs = f.expected.empty() ? "" : normal(prefix_ + "/" + f.expected);
    bool own_file = provider && !expected_abs.empty() && expected_abs == f.resolved;
    if (!f.expected.empty() && !own_file) f.expected_satisfies = defines(expected_abs, e.name, e.version);
    f.evidence.clear();
    if (provider) {
      f.title = e.library + " from " + (inside_env(f.resolved) ? "the env" : shown(f.resolved)) + " lacks " + f.symbols +
                (f.version.empty() ? "" : " (version " + f.version + ")");
      f.evidence.push_back("loaded for " + e.library + ": " + shown(f.resolved) +
                           (inside_env(f.resolved) ? "" : ", " + outside_evidence(f.resolved, e.library)));
      f.evidence.push_back("found through " + via_phrase(provider->via, provider->via_element));
      if (auto link = link_on_path(provider->via_element); link && provider->via == FoundVia::ld_library_path)
        f.evidence.push_back(link->link + " is a link to " + link->target);
    } else {
      f.title = "undefined symbol " + f.symbols + " in " + shown(referrer);
    }
    f.evidence.push_back("missing: " + f.symbols + (f.version.empty() ? "" : ", version " + f.version) +
                         " (needed by " + shown(referrer) + ")");
    if (!f.min_release.empty()) f.evidence.push_back("these entry points need nvJitLink >= " + f.min_release);
    if (own_file) {
      f.evidence.push_back("that is the env's own " + f.expected + " (" + f.expected_package + "): it is too old");
      f.actions = upgrade_actions(f.expected, f.min_release);
      f.fix = "upgrade " + f.expected_package.substr(0, f.expected_package.find(' ')) +
              (f.min_release.empty() ? "" : " to a release >= " + f.min_release) + " in the env" + step_words(f);
    } else if (!f.expected.empty()) {
      f.evidence.push_back("the env's " + f.expected + " (" + f.expected_package + ") " +
                           (f.expected_satisfies ? "defines it" : "does not define it either"));
      // The env has the library but too old a one: upgrading it is the fix, not installing it.
      const std::string at_least = f.min_release.empty() ? "" : " (release >= " + f.min_release + ")";
      const std::string package = f.expected_package.substr(0, f.expected_package.find(' '));
      f.fix = f.expected_satisfies
                  ? put_env_first(f, " (the env's folders go first once activated; `condacuda run` without activation)", f.expected) +
                        (f.via == "ld_library_path" ? ", or remove '" + f.via_entry + "' from LD_LIBRARY_PATH" : "") +
                        point_link_elsewhere(f)
              : package.empty() ? install_hint(f, e.library) + at_least
                                : "upgrade " + package + " in the env" + at_least;
      if (!f.expected_satisfies && !package.empty()) {
        f.actions = upgrade_actions(f.expected, f.min_release);
        f.fix += step_words(f);
      }
    } else {
      f.fix = install_hint(f, e.library.empty() ? e.name : e.library);
    }
    add_affected(f, root);
  }

  void version_missing(const RootResult& root, const loader::LoadError& e, const std::string& requirer) {
    std::string definer = normal(e.objname);
    Finding& f = group("version\n" + definer + "\n" + e.version, code::version_not_found, Severity::error);
    f.library = e.library;
    f.version = e.version;
    f.resolved = definer;
    blamed_.insert(definer);
    for (const auto& o : root.report.objects)
      if (normal(o.name) == definer) {
        f.via = loader::to_string(o.via);
        f.via_entry = o.via_element;
        break;
      }
    expect_env_file(f, e.library);
    f.title = "version " + e.version + " is not defined by " + shown(definer);
    f.evidence = {shown(requirer) + " requires version " + e.version + " of " + e.library,
                  "loaded for it: " + shown(definer) + " (found through " +
                      via_phrase(loader::FoundVia::not_found, "") + ")"};
    if (!f.via.empty()) f.evidence.back() = "loaded for it: " + shown(definer) + ", found through " + f.via_entry;
    f.fix = !f.expected.empty() && normal(prefix_ + "/" + f.expected) != definer
                ? put_env_first(f, " so the env's " + f.expected + " is found first", f.expected)
                : install_hint(f, e.library);
    add_affected(f, root);
  }

  // Successful or not: objects taken from outside the env although the env has that soname.
  void on_loaded(const RootResult& root) {
    for (const auto& o : root.report.objects) {
      if (o.faked || o.preexisting || !o.soname || inside_env(o.name)) continue;
      const auto* lib = env_library(*o.soname);
      if (!lib) continue;
      std::string path = normal(o.name);
      if (blamed_.count(path)) continue;
      // One finding per copy; doctor/grouping.hpp makes one per cause (the
      // LD_LIBRARY_PATH entry, RPATH or cache that shadows) of them.
      Finding& f = group("shadowed\n" + path, code::shadowed, Severity::warning);
      if (f.title.empty()) {
        f.library = *o.soname;
        f.resolved = path;
        f.via = loader::to_string(o.via);
        f.via_entry = o.via_element;
        expect_env_file(f, *o.soname);
        const std::string version = outside_version(path, *o.soname);
        f.title = *o.soname + " comes from " + path + (version.empty() ? "" : " (" + version + ")") + ", not from the env";
        f.evidence = {"found through " + via_phrase(o.via, o.via_element),
                      *o.soname + ": " + path + ", " + outside_evidence(path, *o.soname) + "; the env has " +
                          f.expected + (f.expected_package.empty() ? "" : " (" + f.expected_package + ")")};
        f.fix = put_env_first(f, " so the env's own copies are found first", f.expected);
        // No repair changes the cache or the system folders: what it changes
        // is the search before them (LD_LIBRARY_PATH when activated).
        if (o.via == FoundVia::ld_so_cache || o.via == FoundVia::default_dirs)
          f.fix = put_env_first(f, ": the hook puts the env's folder on LD_LIBRARY_PATH, which the loader searches before " +
                                    std::string(o.via == FoundVia::ld_so_cache ? "/etc/ld.so.cache" : "the system folders") +
                                    " (it changes neither); without activation, launch with `condacuda run`",
                                f.expected);
      }
      add_affected(f, root);
    }
  }

  // What an outside copy says of its version (inventory/version_evidence.hpp):
  // "9.1.0", or "" when only its soname's major or nothing says it.
  std::optional<inventory::VersionEvidence> outside_copy_version(const std::string& path, const std::string& soname) const {
    auto kind = inventory::classify_library(soname);
    const auto& opened = files_.open_verify(path);
    if (!kind || !opened.elf) return std::nullopt;
    return inventory::file_version(kind->id, soname, fs::path(files_.real_path(path)).filename().string(), *opened.elf);
  }
  std::string outside_version(const std::string& path, const std::string& soname) const {
    auto v = outside_copy_version(path, soname);
    return v && !v->is_major_only() ? v->version : "";
  }
  std::string outside_evidence(const std::string& path, const std::string& soname) const {
    auto v = outside_copy_version(path, soname);
    // "version 12.0.140 (...)", or in plain words what little is known.
    if (!v) return "version unknown (neither its file name nor its contents say it)";
    if (v->is_major_only()) return "of CUDA " + v->version + ", its release unknown (its name says only the major)";
    return "version " + v->version + " (" + v->source + ")";
  }

  // The CUDA major a library from outside the env belongs to, and how that
  // is known: not by its soname (cuSPARSE is libcusparse.so.12 in CUDA 12 and
  // 13) but by the majors of the CUDA libraries it needs (libnvJitLink.so.13),
  // else by a folder on its path (cuda-13.0, cu13).
  std::optional<std::pair<int, std::string>> major_of_outside(const std::string& path, const std::string& soname) const {
    auto own = inventory::classify_library(soname);
    if (own && own->soname_is_cuda_major && inventory::soname_major(soname) > 0)
      return std::make_pair(inventory::soname_major(soname), "its soname is " + soname);
    const auto& opened = files_.open_verify(path);
    if (opened.elf)
      for (auto needed : opened.elf->dynamic().needed) {
        auto kind = inventory::classify_library(needed);
        if (kind && kind->soname_is_cuda_major && inventory::soname_major(needed) > 0)
          return std::make_pair(inventory::soname_major(needed), "it needs " + std::string(needed));
      }
    static const std::regex folder(R"(^(?:cuda-?|cu)(\d+)(?:\.\d+)*$)");
    for (const auto& part : fs::path(path).parent_path()) {
      std::smatch m;
      const std::string name = part.string();
      if (std::regex_match(name, m, folder)) return std::make_pair(std::stoi(m[1]), "its folder is " + name);
    }
    return std::nullopt;
  }

  // Successful or not: CUDA libraries taken from outside the env that belong
  // to another CUDA major than the env's. An error when the env has no copy
  // of that library (it lost it: a wheel uninstalled), else a warning.
  void on_foreign_major(const RootResult& root) {
    const auto& majors = report_.inputs.inventory.cuda_majors;
    if (majors.size() != 1) return;
    const int env_major = majors[0];
    // Only what the env's own files asked for: a foreign library's own
    // dependencies come with it and are not causes of their own.
    std::map<int, std::string> asked_by_env; // the object, and the env file that asked for it
    for (const auto& e : root.report.edges)
      if (e.from >= 0 && e.to >= 0 && inside_env(root.report.objects[static_cast<std::size_t>(e.from)].name))
        asked_by_env.emplace(e.to, root.report.objects[static_cast<std::size_t>(e.from)].name);
    for (int i = 0; i < static_cast<int>(root.report.objects.size()); ++i) {
      const auto& o = root.report.objects[static_cast<std::size_t>(i)];
      if (o.faked || o.preexisting || !o.soname || inside_env(o.name) || !asked_by_env.count(i)) continue;
      auto kind = inventory::classify_library(*o.soname);
      if (!kind) continue;
      std::string path = normal(o.name);
      auto major = major_of_outside(path, *o.soname);
      if (!major || major->first == env_major) continue;
      const bool lost = env_library(*o.soname) == nullptr;
      // A soname that names its major (libcudart.so.11.0) was asked for by a
      // file built for that major: the consumer is the foreign one, and it works.
      const std::string& requester = asked_by_env.at(i);
      const auto owner = kind->soname_is_cuda_major ? owner_of(requester) : std::nullopt;
      auto rebuild = owner ? consumer_rebuild(owner->manager, owner->package, owner->version, owner->build,
                                              report_.inputs.inventory, env_major)
                           : std::nullopt;
      if (rebuild && rebuild->built != major->first) rebuild.reset();
      Finding& f = group("foreign-major\n" + path, code::foreign_cuda_major,
                         lost && !rebuild ? Severity::error : Severity::warning);
      f.library = *o.soname;
      f.resolved = path;
      f.via = loader::to_string(o.via);
      f.via_entry = o.via_element;
      f.title = *o.soname + " comes from " + path + ", a CUDA " + std::to_string(major->first) +
                " library, into a CUDA " + std::to_string(env_major) + " env";
      f.evidence = {"found through " + via_phrase(o.via, o.via_element),
                    *o.soname + " belongs to CUDA " + std::to_string(major->first) + ": " + major->second,
                    kind->soname_is_cuda_major
                        ? "the env's CUDA libraries are CUDA " + std::to_string(env_major) + "; " + shown(requester) +
                              " asks for CUDA " + std::to_string(major->first) + "'s " + *o.soname + " by name"
                        : "the env's CUDA libraries are CUDA " + std::to_string(env_major) +
                              "; the loader accepts it (same soname), the CUDA runtime may not"};
      if (rebuild) {
        f.title = owner->package + " " + owner->version + " is built for CUDA " + std::to_string(rebuild->built) + " and takes " +
                  *o.soname + " from " + path + ", outside this CUDA " + std::to_string(env_major) + " env";
        f.evidence.push_back("it is a CUDA " + std::to_string(rebuild->built) + " build (" + rebuild->evidence +
                             "); it loads while that folder is on the search path, elsewhere it fails");
        f.actions = rebuild->actions;
        f.fix = "install its CUDA " + std::to_string(env_major) + " build: " + rebuild->words;
      } else if (lost) {
        f.evidence.push_back("the env has no " + *o.soname + " of its own");
        f.fix = install_hint(f, *o.soname);
      } else {
        expect_env_file(f, *o.soname);
        f.fix = put_env_first(f, " so the env's own copy is found first", f.expected);
      }
      add_affected(f, root);
    }
  }

  void path_findings() {
    const std::string& prefix = report_.inputs.env.prefix;
    if (!loader::fits_path_list(prefix)) {
      Finding& f = group("unusable-prefix", code::unusable_prefix, Severity::warning);
      f.title = "the env's path contains ':' or ';', which LD_LIBRARY_PATH cannot hold";
      f.evidence = {"the loader splits LD_LIBRARY_PATH on ':' and ';', with no escape: '" + prefix +
                        "' would become entries relative to the current directory",
                    "so the env's hook leaves LD_LIBRARY_PATH as it is, and `condacuda run` refuses the env"};
      f.fix = "move the env to a path without ':' or ';' (`conda rename`, or a new env)";
    }
    const auto& llp = report_.inputs.config.ld_library_path;
    if (!llp || llp->empty()) return;
    auto entries = util::split(*llp, ":;");
    std::vector<std::string> kept;
    bool empty_entry = false;
    for (const auto& entry : entries) {
      if (entry.empty()) {
        empty_entry = true;
        continue;
      }
      kept.push_back(entry);
      std::string dir = entry;
      while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
      bool named_stubs = fs::path(dir).filename() == "stubs";
      bool has_stub = files_.open_verify(normal(dir + "/libcuda.so")).elf && !files_.open_verify(normal(dir + "/libcuda.so.1")).elf;
      if (named_stubs || has_stub) {
        Finding& f = group("stubs\n" + entry, code::stubs_on_path, Severity::warning);
        f.title = "a CUDA stubs folder is on LD_LIBRARY_PATH: " + entry;
        f.via_entry = entry;
        f.evidence = {"the toolkit's stub libcuda.so makes every CUDA call fail with CUDA_ERROR_STUB_LIBRARY (34)"};
        f.fix = "remove '" + entry + "' from LD_LIBRARY_PATH (stubs are for linking only)";
      }
    }
    if (empty_entry) {
      Finding& f = group("empty-entry", code::empty_path_entry, Severity::warning);
      f.title = "LD_LIBRARY_PATH has an empty entry, which means the current directory";
      f.evidence = {"LD_LIBRARY_PATH='" + *llp + "'",
                    "the loader then searches whatever directory a program runs in (the `export X=dir:$X` idiom "
                    "does this when X was unset)"};
      f.fix = "export LD_LIBRARY_PATH='" + util::join(kept, ":") + "'";
    }
  }

  void hook_findings() {
    for (const auto& script : report_.inputs.foreign_hooks) {
      Finding& f = group("foreign\n" + script, code::foreign_hook, Severity::info);
      f.title = "another activation script changes LD_LIBRARY_PATH: " + script;
      f.evidence = {"doctor does not run other packages' activate.d scripts; their changes are not modelled"};
      f.fix = "check the result with `condacuda doctor` from an activated shell";
    }
  }

  std::vector<Finding> collect() {
    std::vector<Finding> out;
    for (const auto& key : order_) out.push_back(groups_[key]);
    std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) { return a.severity < b.severity; });
    return out;
  }
};
} // namespace

std::vector<Finding> diagnose(const DoctorReport& report, loader::FileSystemView& files) {
  return Diagnosis(report, files).run();
}

} // namespace condacuda::doctor
