// Loading: _dl_map_object_deps (breadth-first mapping), _dl_check_map_versions,
// _dl_sort_maps and _dl_relocate_object's symbol lookups, for program start-up
// (elf/rtld.c) and dlopen (elf/dl-open.c). docs/loader-model.md §1, §6, §7.
#include "loader/simulator.hpp"

#include <algorithm>
#include <functional>

#include "elf/elf_constants.hpp"
#include "loader/versions.hpp"
#include "util/path.hpp"

namespace condacuda::loader {

namespace {
std::size_t at(int index) { return static_cast<std::size_t>(index); }

void summarize(const Process& p, std::size_t preexisting, LoadReport& report) {
  report.objects.clear();
  for (std::size_t i = 0; i < p.objects.size(); ++i) {
    const LoadedObject& o = p.objects[i];
    report.objects.push_back(ObjectSummary{o.is_main ? p.argv0 : o.name, o.soname, o.via, o.via_dir, o.via_element,
                                           o.faked, i < preexisting, o.dev, o.ino});
  }
}

} // namespace

Simulator::Simulator(LoaderConfig config, FileSystemView& files) : config_(std::move(config)), files_(files) {
  subdirs_ = hwcaps_subdirs(config_);
  cache_config_ = cache_lookup_config(config_);
  for (const auto& d : config_.system_dirs) system_dirs_.push_back(SearchDir{d, d});
}

std::vector<int> Simulator::map_dependencies(Process& p, int root, bool trace, bool dlopen_mode, LoadReport& report) {
  // One breadth-first pass; every object's DT_NEEDED in .dynamic order. After
  // the first error the real loader stops; the model goes on like `ldd`
  // (placeholders for what is missing) so that every problem is reported.
  std::vector<int> list{root};
  std::vector<bool> in_list(p.objects.size(), false);
  in_list[at(root)] = true;
  for (std::size_t i = 0; i < list.size(); ++i) {
    int l = list[i];
    if (p.objects[at(l)].faked) continue;
    std::vector<std::string> needed;
    if (const auto& elf = p.objects[at(l)].elf)
      for (auto n : elf->dynamic().needed) needed.emplace_back(n);
    else
      needed = p.objects[at(l)].synthetic_needs;
    std::vector<int> deps;
    for (const auto& written : needed) {
      std::string name = written;
      if (count_dst(written) != 0) {
        if (config_.secure) {
          report.fail(load_error(ErrorKind::dst, written, "DST not allowed in SUID/SGID programs", l));
          continue;
        }
        name = expand_dst(written, dst_values(p, l));
        if (name.empty()) {
          report.fail(load_error(ErrorKind::dst, written, "empty dynamic string token substitution", l));
          continue;
        }
      }
      MapResult m = map_object(p, l, name, true, dlopen_mode);
      (void)trace; // the model always continues; `trace` only decides what counts as fatal for callers
      if (in_list.size() < p.objects.size()) in_list.resize(p.objects.size(), false);
      Edge edge{l, written, m.error ? -1 : m.object, m.via, m.dir, m.element, std::move(m.tried)};
      report.edges.push_back(std::move(edge));
      if (m.error) {
        m.error->object = l;
        report.fail(*m.error);
      }
      if (m.object < 0) continue;
      if (!in_list[at(m.object)]) {
        in_list[at(m.object)] = true;
        list.push_back(m.object);
      }
      deps.push_back(m.object);
    }
    // DT_FILTER and DT_AUXILIARY name objects that are loaded too
    // (_dl_map_object_deps, elf/dl-deps.c): a filtee that cannot be loaded
    // fails the load, an auxiliary one is skipped. (ld.so puts a filtee before
    // its filter in the search list; the model appends it: the verdict is the
    // same, the order of a symbol's definitions may not be.)
    if (const auto& elf = p.objects[at(l)].elf) {
      std::vector<std::pair<std::string, bool>> filtees;
      for (auto f : elf->dynamic().filters) filtees.emplace_back(std::string(f), true);
      for (auto a : elf->dynamic().auxiliaries) filtees.emplace_back(std::string(a), false);
      for (const auto& [name, required] : filtees) {
        if (count_dst(name) != 0) continue; // with tokens: not modelled
        MapResult m = map_object(p, l, name, false, dlopen_mode);
        if (m.error) {
          if (required) {
            m.error->object = l;
            report.fail(*m.error);
          }
          continue;
        }
        if (in_list.size() < p.objects.size()) in_list.resize(p.objects.size(), false);
        if (!in_list[at(m.object)]) {
          in_list[at(m.object)] = true;
          list.push_back(m.object);
        }
        deps.push_back(m.object);
      }
    }
    LoadedObject& obj = p.objects[at(l)];
    if (obj.initfini.empty() && l != root && !obj.relocated) {
      obj.initfini.push_back(l);
      obj.initfini.insert(obj.initfini.end(), deps.begin(), deps.end());
    }
  }
  return list;
}

namespace {
// _dl_check_map_versions (elf/dl-version.c, glibc >= 2.36): an object with
// DT_RELR, a DT_VERNEED and libc.so.* among its DT_NEEDED must also need
// GLIBC_ABI_DT_RELR, the version that says it was linked for a loader that
// applies DT_RELR; without it the load fails. Objects with no version need
// at all are not checked.
bool relr_without_abi_version(const elf::ElfObject& elf) {
  if (!elf.dynamic().has_relr || elf.version_needs().empty()) return false;
  for (const auto& need : elf.version_needs())
    for (const auto& aux : need.entries)
      if (aux.name == "GLIBC_ABI_DT_RELR") return false;
  const auto& needed = elf.dynamic().needed;
  return std::any_of(needed.begin(), needed.end(), [](std::string_view n) { return n.starts_with("libc.so."); });
}
} // namespace

bool Simulator::part_of_system_glibc(const LoadedObject& obj) const {
  // The C library's own objects are built for the loader they ship with: a
  // machine of the release --glibc names has its own copies, never these
  // (Debian 12's libc.so.6 has DT_RELR, which no 2.31 loader ever meets).
  static constexpr std::string_view sonames[] = {
      "libc.so.6",     "libm.so.6",   "libmvec.so.1",   "libpthread.so.0", "libdl.so.2",
      "librt.so.1",    "libutil.so.1", "libresolv.so.2", "libanl.so.1",     "libnsl.so.1",
      "libthread_db.so.1", "libBrokenLocale.so.1", "libc_malloc_debug.so.0"};
  if (obj.is_interp) return true;
  if (!obj.soname || std::find(std::begin(sonames), std::end(sonames), *obj.soname) == std::end(sonames)) return false;
  return std::any_of(config_.system_dirs.begin(), config_.system_dirs.end(),
                     [&](const std::string& dir) { return obj.name.starts_with(dir); });
}

void Simulator::check_versions(const Process& p, const std::vector<int>& objects, LoadReport& report) {
  // _dl_check_map_versions / match_symbol: every required version must be
  // defined by the object that vn_file names (weak requirements excepted).
  for (int m : objects) {
    const LoadedObject& obj = p.objects[at(m)];
    if (obj.faked || !obj.elf || obj.relocated) continue;
    for (const auto& need : obj.elf->version_needs()) {
      std::string file(need.file);
      const LoadedObject* needed = nullptr;
      bool stub = false; // ldd's placeholder for a missing dependency
      for (const auto& candidate : p.objects)
        if (name_matches(candidate, file)) {
          if (candidate.faked) stub = true;
          else { needed = &candidate; break; }
        }
      if (!needed && !stub) {
        // find_needed found no object of that name: assert (needed != NULL).
        LoadError e;
        e.kind = ErrorKind::assertion;
        e.objname = obj.is_main ? p.argv0 : obj.name;
        e.text = "Inconsistency detected by ld.so: dl-version.c: 204: _dl_check_map_versions: Assertion `needed != NULL' failed!";
        e.required_by = m;
        report.fail(std::move(e));
        continue;
      }
      if (!needed || !needed->elf) continue;
      const auto& defs = needed->elf->version_definitions();
      if (defs.empty()) continue; // "no version information available": a warning only
      for (const auto& aux : need.entries) {
        bool found = std::any_of(defs.begin(), defs.end(),
                                 [&](const elf::VersionDefinition& d) { return d.hash == aux.hash && d.name == aux.name; });
        if (found || (aux.flags & elf::ver_flg_weak)) continue;
        LoadError e;
        e.kind = ErrorKind::version_missing;
        e.objname = needed->name;
        std::string requirer = obj.is_main ? p.argv0 : obj.name;
        e.text = "version `" + std::string(aux.name) + "' not found (required by " + requirer + ")";
        e.object = static_cast<int>(needed - p.objects.data());
        e.required_by = m;
        e.name = std::string(aux.name);
        e.version = e.name;
        e.library = file;
        report.fail(std::move(e));
      }
    }
    // After the version needs, in the same pass (glibc >= 2.36).
    if (config_.glibc_minor >= 36 && relr_without_abi_version(*obj.elf))
      report.fail(load_error(ErrorKind::bad_file, obj.is_main ? p.argv0 : obj.name,
                                "DT_RELR without GLIBC_ABI_DT_RELR dependency", m));
    // [< 2.36] DT_RELR is an unknown tag: its relative relocations are never
    // applied, and the first pointer they should have set (an .init_array
    // entry) sends the process to the link-time address (measured on 2.31:
    // SIGSEGV at the unrelocated constructor). One whose version needs name
    // GLIBC_ABI_DT_RELR already failed above.
    if (config_.glibc_minor < 36 && report.ok && obj.elf->dynamic().has_relr && !part_of_system_glibc(obj))
      report.fail(load_error(ErrorKind::bad_file, obj.is_main ? p.argv0 : obj.name,
                             "ld.so would crash: DT_RELR is unknown before glibc 2.36, so its relocations are not "
                             "applied",
                             m));
  }
}

std::vector<int> Simulator::sort_maps(const Process& p, const std::vector<int>& maps, bool force_first) const {
  // _dl_sort_maps_dfs (glibc 2.35+ default): depth-first over l_initfini from
  // the last map backwards; the reverse postorder puts dependencies after
  // their users. Placeholders are left out, as _dl_map_object_deps does.
  std::vector<int> input;
  for (int m : maps)
    if (!p.objects[at(m)].faked) input.push_back(m);
  std::vector<char> visited(p.objects.size(), 0);
  std::vector<int> postorder;
  std::function<void(int)> visit = [&](int m) {
    if (visited[at(m)] || p.objects[at(m)].faked) return;
    visited[at(m)] = 1;
    // The executable is never entered through a dependency edge.
    for (int dep : p.objects[at(m)].initfini)
      if (!visited[at(dep)] && !p.objects[at(dep)].is_main) visit(dep);
    postorder.push_back(m);
  };
  for (std::size_t i = input.size(); i-- > 0;) visit(input[i]);
  std::vector<int> sorted(postorder.rbegin(), postorder.rend());
  if (force_first && !sorted.empty() && sorted.front() != input.front()) {
    auto it = std::find(sorted.begin(), sorted.end(), input.front());
    if (it != sorted.end()) std::rotate(sorted.begin(), it, it + 1);
  }
  return sorted;
}

void Simulator::set_scope(Process& p, int object, int local_root) const {
  // _dl_new_object: the global scope, then the search list of the top of the
  // loader chain; DT_SYMBOLIC puts the object itself first
  // (_dl_map_object_from_fd).
  LoadedObject& obj = p.objects[at(object)];
  obj.scope.clear();
  if (obj.elf && obj.elf->dynamic().symbolic && !obj.is_main) obj.scope.push_back({object});
  obj.scope.push_back(p.global_scope);
  obj.stable_scopes = obj.scope.size();
  if (local_root >= 0 && local_root != p.main) obj.scope.push_back(p.objects[at(local_root)].searchlist);
}

LoadReport Simulator::start_program(Process& p, const std::string& program, const std::string& argv0, bool trace) {
  LoadReport report;
  p = Process{};
  p.argv0 = argv0;
  const OpenedFile& opened = files_.open_verify(absolute(program));
  if (!opened.elf) {
    std::string why = opened.opened() ? "not a loadable program: " + opened.parse_error : std::string("cannot open program");
    report.fail(load_error(ErrorKind::bad_file, program, why, -1));
    return report;
  }
  LoadedObject main;
  main.is_main = true;
  main.elf = opened.elf;
  main.dev = opened.dev;
  main.ino = opened.ino;
  main.stamp = opened.stamp;
  main.origin = program.find('/') == std::string::npos ? config_.cwd : util::dir_name(program);
  p.stack_executable = opened.elf->wants_executable_stack(); // the kernel's choice, from the program's PT_GNU_STACK
  p.objects.push_back(std::move(main));
  p.main = 0;
  return start_common(p, trace, report);
}

LoadReport Simulator::start_synthetic(Process& p, const std::vector<std::string>& needs) {
  LoadReport report;
  p = Process{};
  p.argv0 = "condacuda-host";
  LoadedObject main;
  main.is_main = true;
  main.synthetic_needs = needs;
  main.origin = config_.cwd;
  p.objects.push_back(std::move(main));
  p.main = 0;
  return start_common(p, false, report);
}

LoadReport Simulator::start_common(Process& p, bool trace, LoadReport& report) {
  // Room for a CUDA library's whole closure (a few dozen objects): moved
  // LoadedObjects are not reallocated again and again as it grows.
  p.objects.reserve(64);
  // ld.so itself is loaded from the start, under its PT_INTERP path and soname.
  const OpenedFile& interp = files_.open_verify(config_.interp);
  if (interp.elf) {
    LoadedObject rtld;
    rtld.name = config_.interp;
    rtld.aliases = {config_.interp, config_.interp_soname};
    rtld.soname = interp.elf->dynamic().soname ? std::string(*interp.elf->dynamic().soname) : config_.interp_soname;
    rtld.elf = interp.elf;
    rtld.dev = interp.dev;
    rtld.ino = interp.ino;
    rtld.stamp = interp.stamp;
    rtld.is_interp = true;
    rtld.relocated = true;
    // A PT_INTERP without a '/' (only a hostile host has one) keeps its name.
    rtld.origin = config_.interp.find('/') == std::string::npos ? config_.interp : util::dir_name(config_.interp);
    p.objects.push_back(std::move(rtld));
  }
  if (!config_.secure && config_.ld_library_path)
    p.ld_library_path = decompose_path_list(*config_.ld_library_path, PathListKind::ld_library_path, dst_values(p, p.main));
  report.root = p.main;
  std::vector<int> list = map_dependencies(p, p.main, trace, false, report);
  p.objects[at(p.main)].searchlist = list;
  p.global_scope = list;
  for (int o : list) set_scope(p, o, p.main);
  check_versions(p, list, report);
  std::vector<int> sorted = sort_maps(p, list, true);
  p.objects[at(p.main)].initfini = sorted;
  std::vector<int> order;
  for (auto it = sorted.rbegin(); it != sorted.rend(); ++it)
    if (!p.objects[at(*it)].relocated) order.push_back(*it);
  bind_symbols(p, order, config_.bind_now ? Binding::now : Binding::lazy, report);
  for (auto& obj : p.objects) obj.relocated = true;
  report.searchlist = list;
  summarize(p, 0, report);
  return report;
}

LoadReport Simulator::dlopen(Process& process, const std::string& file, Binding binding, Visibility visibility,
                             int caller) {
  Process p = process; // dlopen undoes everything on failure: work on a copy
  const std::size_t preexisting = p.objects.size();
  LoadReport report = dlopen_in(p, file, binding, caller);
  if (!report.ok) return report;
  for (std::size_t i = preexisting; i < p.objects.size(); ++i) {
    if (visibility == Visibility::global && !p.objects[i].faked) p.global_scope.push_back(static_cast<int>(i));
  }
  for (auto& obj : p.objects) obj.relocated = true;
  process = std::move(p);
  return report;
}

LoadReport Simulator::trial_dlopen(const Process& process, const std::string& file, Binding binding, int caller) {
  Process p = process;
  return dlopen_in(p, file, binding, caller);
}

LoadReport Simulator::dlopen_in(Process& p, const std::string& file, Binding binding, int caller) {
  LoadReport report;
  const std::size_t preexisting = p.objects.size();
  int requester = caller >= 0 ? caller : p.main;
  MapResult m = map_object(p, requester, file, false, true, /*callmap=*/true);
  report.edges.push_back(Edge{requester, file, m.error ? -1 : m.object, m.via, m.dir, m.element, m.tried});
  if (m.error) {
    report.fail(*m.error);
    summarize(p, preexisting, report);
    return report;
  }
  int root = m.object;
  report.root = root;
  if (p.objects[at(root)].relocated) {
    report.searchlist = p.objects[at(root)].searchlist;
    summarize(p, preexisting, report);
    return report; // already loaded: dlopen just returns it
  }
  std::vector<int> list = map_dependencies(p, root, false, true, report);
  p.objects[at(root)].searchlist = list;
  for (int o : list)
    if (!p.objects[at(o)].relocated) set_scope(p, o, root);
  check_versions(p, list, report);
  std::vector<int> sorted = sort_maps(p, list, false);
  p.objects[at(root)].initfini = sorted;
  std::vector<int> order;
  for (auto it = sorted.rbegin(); it != sorted.rend(); ++it)
    if (!p.objects[at(*it)].relocated) order.push_back(*it);
  bind_symbols(p, order, binding, report);
  report.searchlist = list;
  summarize(p, preexisting, report);
  return report;
}

} // namespace condacuda::loader
