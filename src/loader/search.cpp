// Finding and mapping one object: _dl_map_object and open_path of
// glibc's elf/dl-load.c (docs/loader-model.md §2).
#include <cerrno>
#include <cstring>

#include "elf/elf_constants.hpp"
#include "loader/abi_tag_rule.hpp"
#include "loader/simulator.hpp"
#include "util/path.hpp"

namespace condacuda::loader {

namespace {
bool has_slash(const std::string& s) { return s.find('/') != std::string::npos; }

// The directory part of a path as _dl_new_object computes l_origin: no
// normalisation, a relative name gets the cwd prepended, "/x" keeps its '/'.
std::string origin_of(const std::string& realname, const std::string& cwd) {
  std::string full = realname;
  if (realname.empty() || realname[0] != '/') full = (cwd.empty() || cwd.back() != '/' ? cwd + "/" : cwd) + realname;
  return util::dir_name(full); // "/x": "/"
}
} // namespace

std::string Simulator::absolute(const std::string& path) const {
  if (!path.empty() && path[0] == '/') return path;
  std::string base = config_.cwd.empty() ? "/" : config_.cwd;
  if (base.back() != '/') base += '/';
  return base + path;
}

DstValues Simulator::dst_values(const Process& p, int index) const {
  DstValues v;
  v.platform = config_.platform;
  v.lib = config_.lib_token;
  v.secure = config_.secure;
  if (index >= 0) v.origin = p.objects[static_cast<std::size_t>(index)].origin;
  return v;
}

const std::vector<SearchDir>& Simulator::object_paths(const Process& p, int index, bool runpath) {
  const LoadedObject& obj = p.objects[static_cast<std::size_t>(index)];
  static const std::vector<SearchDir> none;
  if (!obj.elf) return none;
  const auto& value = runpath ? obj.elf->dynamic().runpath : obj.elf->dynamic().rpath;
  if (!value) return none;
  // Cached per (origin, value): the same list for every process copy.
  std::string key = (runpath ? "R" : "P") + obj.origin.value_or("\x01") + '\0' + std::string(*value);
  auto it = path_cache_.find(key);
  if (it != path_cache_.end()) return it->second;
  auto kind = runpath ? PathListKind::runpath : PathListKind::rpath;
  return path_cache_.emplace(key, decompose_path_list(*value, kind, dst_values(p, index))).first->second;
}

int Simulator::find_loaded(Process& p, const std::string& name) const {
  // _dl_map_object: the request matches an object's l_name, any name it was
  // requested by (l_libname), or its DT_SONAME; placeholders never match.
  for (std::size_t i = 0; i < p.objects.size(); ++i) {
    LoadedObject& obj = p.objects[i];
    if (obj.faked) continue;
    bool match = obj.name == name && !obj.is_main;
    for (const auto& alias : obj.aliases) match = match || alias == name;
    if (!match && obj.soname && *obj.soname == name) {
      obj.aliases.push_back(name); // add_name_to_object
      match = true;
    }
    if (match) return static_cast<int>(i);
  }
  return -1;
}

Candidate::Outcome Simulator::try_candidate(const std::string& path, FoundVia step, std::vector<Candidate>& tried,
                                            bool& other_class, int& last_errno, std::optional<LoadError>& fatal) {
  const OpenedFile& opened = files_.open_verify(absolute(path));
  Candidate c{path, step, Candidate::Outcome::accepted};
  if (!opened.opened()) {
    last_errno = opened.open_errno;
    c.outcome = opened.open_errno == EACCES ? Candidate::Outcome::no_access
                : (opened.open_errno == ENOENT || opened.open_errno == ENOTDIR) ? Candidate::Outcome::missing
                                                                                : Candidate::Outcome::open_error;
  } else if (opened.blocks) {
    // open_verify opens without O_NONBLOCK: on a FIFO the loader waits for a
    // writer and the process hangs there.
    c.outcome = Candidate::Outcome::fatal;
    fatal = load_error(ErrorKind::bad_file, path, "a FIFO: the loader would wait forever opening it", -1);
  } else if (opened.is_directory) {
    // open() succeeds on a directory; open_verify's read then fails (E7).
    c.outcome = Candidate::Outcome::fatal;
    fatal = load_error(ErrorKind::bad_file, path, std::string("cannot read file data: ") + std::strerror(EISDIR), -1);
  } else {
    switch (opened.header.verdict) {
    case elf::HeaderVerdict::ok: {
      AbiTagVerdict note = judge_abi_tag(opened.header.abi_tag, config_);
      if (note.kind == AbiTagVerdict::Kind::skip) {
        last_errno = note.error;
        c.outcome = Candidate::Outcome::abi_tag;
      } else if (note.kind == AbiTagVerdict::Kind::unreadable) {
        c.outcome = Candidate::Outcome::fatal;
        std::string text = "cannot read file data";
        if (note.error != 0) text += std::string(": ") + std::strerror(note.error);
        fatal = load_error(ErrorKind::bad_file, path, text, -1);
      }
      break;
    }
    case elf::HeaderVerdict::wrong_class:
      other_class = true;
      last_errno = ENOENT;
      c.outcome = Candidate::Outcome::wrong_class;
      break;
    case elf::HeaderVerdict::wrong_machine:
      last_errno = ENOENT;
      c.outcome = Candidate::Outcome::wrong_machine;
      break;
    case elf::HeaderVerdict::fatal:
      c.outcome = Candidate::Outcome::fatal;
      fatal = load_error(ErrorKind::bad_file, path, opened.header.fatal_reason, -1);
      break;
    }
  }
  tried.push_back(c);
  return c.outcome;
}

Simulator::ListResult Simulator::search_list(const std::vector<SearchDir>& dirs, FoundVia step,
                                             const std::string& name, SearchHit& hit,
                                             std::vector<Candidate>& tried, bool& other_class, int& last_errno,
                                             std::optional<LoadError>& fatal) {
  // open_path: one directory at a time, its hwcaps subdirectories first.
  for (const auto& dir : dirs) {
    for (const auto& sub : subdirs_) {
      std::string folder = dir.dir + sub;
      std::string path = folder + name;
      if (!files_.directory_exists(absolute(folder.empty() ? "." : folder))) {
        // A missing directory: open() would fail with ENOENT (ld.so remembers it as nonexisting).
        tried.push_back(Candidate{path, step, Candidate::Outcome::missing});
        last_errno = ENOENT;
        continue;
      }
      auto outcome = try_candidate(path, step, tried, other_class, last_errno, fatal);
      if (outcome == Candidate::Outcome::accepted) {
        hit = SearchHit{path, dir.dir, dir.element, step};
        return ListResult::found;
      }
      if (outcome == Candidate::Outcome::fatal) return ListResult::fatal;
      // Errors other than ENOENT/EACCES/ENOTDIR end this list (open_path).
      if (outcome == Candidate::Outcome::open_error) return ListResult::abandon;
    }
  }
  return ListResult::not_found;
}

std::string Simulator::search_key(const Process& p, int requester, const std::string& name) const {
  // Everything the search depends on besides the (unchanging) files: the
  // name, LD_LIBRARY_PATH, the requester's RUNPATH or its RPATH chain and the
  // executable's RPATH, and DF_1_NODEFLIB.
  std::string key = name;
  key += '\0';
  for (const auto& d : p.ld_library_path) key += d.dir + ':';
  auto paths = [&](int index) {
    const LoadedObject& o = p.objects[static_cast<std::size_t>(index)];
    key += '\0';
    key += o.origin.value_or("?");
    if (o.elf) {
      const auto& dyn = o.elf->dynamic();
      if (dyn.runpath) key.append("R").append(*dyn.runpath);
      if (dyn.rpath) key.append("P").append(*dyn.rpath);
      if (dyn.flags_1 & elf::df_1_nodeflib) key += 'N';
    }
  };
  for (int l = requester; l >= 0; l = p.objects[static_cast<std::size_t>(l)].loader) paths(l);
  if (p.main >= 0) paths(p.main);
  return key;
}

std::optional<LoadError> Simulator::search(Process& p, int requester, const std::string& name, SearchHit& hit,
                                           CandidateList& tried, bool& other_class, int& last_errno) {
  // Doctor asks the same question for every root (libm for each CUDA
  // library...): answers are memoised, the files do not change during a run.
  std::string key = search_key(p, requester, name);
  auto it = search_memo_.find(key);
  if (it == search_memo_.end()) {
    SearchMemo memo;
    std::vector<Candidate> paths;
    memo.fatal = search_uncached(p, requester, name, memo.hit, paths, memo.other_class, memo.last_errno);
    memo.tried = CandidateList(std::move(paths));
    it = search_memo_.emplace(std::move(key), std::move(memo)).first;
  }
  const SearchMemo& memo = it->second;
  hit = memo.hit;
  tried = memo.tried;
  other_class = other_class || memo.other_class;
  if (memo.last_errno) last_errno = memo.last_errno;
  return memo.fatal;
}

std::optional<LoadError> Simulator::search_uncached(Process& p, int requester, const std::string& name, SearchHit& hit,
                                                    std::vector<Candidate>& tried, bool& other_class,
                                                    int& last_errno) {
  std::optional<LoadError> fatal;
  auto run = [&](const std::vector<SearchDir>& dirs, FoundVia step) {
    auto r = search_list(dirs, step, name, hit, tried, other_class, last_errno, fatal);
    return r == ListResult::found || r == ListResult::fatal;
  };
  const LoadedObject* req = requester >= 0 ? &p.objects[static_cast<std::size_t>(requester)] : nullptr;
  bool req_has_runpath = req && req->elf && req->elf->dynamic().runpath.has_value();
  // 1. DT_RPATH of the requester and its loaders, then of the executable —
  //    only when the requester has no DT_RUNPATH.
  if (!req_has_runpath) {
    bool did_main = false;
    for (int l = requester; l >= 0; l = p.objects[static_cast<std::size_t>(l)].loader) {
      const auto& dirs = object_paths(p, l, false);
      if (dirs.empty()) continue;
      if (run(dirs, FoundVia::rpath)) return fatal;
      did_main = did_main || l == p.main;
    }
    if (!did_main && p.main >= 0) {
      const auto& dirs = object_paths(p, p.main, false);
      if (!dirs.empty() && run(dirs, FoundVia::exe_rpath)) return fatal;
    }
  }
  // 2. LD_LIBRARY_PATH (parsed at start-up; ignored in secure mode).
  if (!config_.secure && run(p.ld_library_path, FoundVia::ld_library_path)) return fatal;
  // 3. DT_RUNPATH of the requester only: never inherited.
  if (req && run(object_paths(p, requester, true), FoundVia::runpath)) return fatal;
  // 4. /etc/ld.so.cache; DF_1_NODEFLIB rejects results under system dirs.
  int flag_owner = requester >= 0 ? requester : p.main;
  const LoadedObject* owner = flag_owner >= 0 ? &p.objects[static_cast<std::size_t>(flag_owner)] : nullptr;
  bool nodeflib = owner && owner->elf && (owner->elf->dynamic().flags_1 & elf::df_1_nodeflib);
  if (config_.cache) {
    if (auto cached = cache_lookup(*config_.cache, name, cache_config_)) {
      bool rejected = false;
      for (const auto& sys : system_dirs_)
        rejected = rejected || (nodeflib && cached->compare(0, sys.dir.size(), sys.dir) == 0);
      if (!rejected) {
        auto outcome = try_candidate(*cached, FoundVia::ld_so_cache, tried, other_class, last_errno, fatal);
        if (outcome == Candidate::Outcome::fatal) return fatal;
        if (outcome == Candidate::Outcome::accepted) {
          hit = SearchHit{*cached, "", "", FoundVia::ld_so_cache};
          return std::nullopt;
        }
      }
    }
  }
  // 5. The system directories, unless DF_1_NODEFLIB.
  if (!nodeflib && run(system_dirs_, FoundVia::default_dirs)) return fatal;
  return std::nullopt;
}

std::optional<LoadError> Simulator::check_new_object(Process& p, const OpenedFile& opened, const std::string& name,
                                                     bool dlopen_mode) const {
  // _dl_map_object_from_fd's refusals, named by the requested name.
  const auto& elf = *opened.elf;
  if (elf.type() == elf::et_exec)
    return load_error(ErrorKind::bad_file, name, "cannot dynamically load executable", -1);
  if (!elf.has_dynamic())
    return load_error(ErrorKind::bad_file, name, "object file has no dynamic section", -1);
  if (elf.is_pie())
    return load_error(ErrorKind::bad_file, name, "cannot dynamically load position-independent executable", -1);
  if (dlopen_mode && (elf.dynamic().flags_1 & 0x40)) // DF_1_NOOPEN
    return load_error(ErrorKind::bad_file, name, "shared object cannot be dlopen()ed", -1);
  // What mapping, relocating and initialising it would meet (elf/load_checks.hpp).
  if (!opened.load) opened.load = files_.prepared_load_check(opened);
  if (!opened.load) opened.load = elf::check_load(elf.bytes().reader(), config_.machine, config_.page_size, config_.commit_limit,
                                                   config_.glibc_minor);
  if (!opened.load->ok()) return load_error(ErrorKind::bad_file, name, opened.load->reason, -1);
  // An object that asks for an executable stack while the stack is not one
  // (_dl_map_object_from_fd, after mapping): at start-up ld.so makes it
  // executable for the rest of the process (_dl_make_stack_executable), and
  // so did dlopen until glibc 2.40; from 2.41 on, dlopen refuses with EINVAL
  // (glibc 2.41 NEWS: "dlopen and dlmopen no longer make the stack
  // executable if a shared library requires it"). Measured on Debian 13's
  // 2.41 and 11's 2.31 (docs/loader-model.md, "Per glibc version").
  if (elf.wants_executable_stack() && !p.stack_executable) {
    if (dlopen_mode && config_.glibc_minor >= 41)
      return load_error(ErrorKind::executable_stack, name,
                        "cannot enable executable stack as shared object requires: Invalid argument", -1);
    p.stack_executable = true;
  }
  return std::nullopt;
}

int Simulator::add_object(Process& p, const OpenedFile& opened, const std::string& realname, const std::string& name,
                          int loader) {
  LoadedObject obj;
  obj.name = realname;
  obj.aliases.push_back(name);
  obj.elf = opened.elf;
  if (opened.elf && opened.elf->dynamic().soname) obj.soname = std::string(*opened.elf->dynamic().soname);
  obj.origin = origin_of(realname, config_.cwd);
  obj.dev = opened.dev;
  obj.ino = opened.ino;
  obj.stamp = opened.stamp;
  obj.loader = loader;
  p.objects.push_back(std::move(obj));
  return static_cast<int>(p.objects.size() - 1);
}

Simulator::MapResult Simulator::map_object(Process& p, int requester, const std::string& name, bool trace,
                                           bool dlopen_mode, bool callmap) {
  MapResult r;
  if (int found = find_loaded(p, name); found >= 0) {
    r.object = found;
    r.via = FoundVia::already_loaded;
    return r;
  }
  SearchHit hit;
  bool other_class = false;
  int last_errno = 0; // what errno holds if no candidate is ever opened (e.g. DF_1_NODEFLIB)
  if (has_slash(name)) {
    // A name with '/' is opened as given (relative to the cwd); no search.
    std::string realname = requester >= 0 ? expand_dst(name, dst_values(p, requester)) : name;
    std::optional<LoadError> fatal;
    if (!realname.empty()) {
      std::vector<Candidate> tried;
      auto outcome = try_candidate(realname, FoundVia::direct_path, tried, other_class, last_errno, fatal);
      r.tried = CandidateList(std::move(tried));
      if (outcome == Candidate::Outcome::accepted) hit = SearchHit{realname, "", "", FoundVia::direct_path};
    }
    if (fatal) {
      r.error = fatal;
      return r;
    }
  } else if (auto fatal = search(p, requester, name, hit, r.tried, other_class, last_errno)) {
    r.error = fatal;
    return r;
  }
  if (hit.path.empty()) {
    r.via = FoundVia::not_found;
    if (other_class)
      r.error = load_error(ErrorKind::wrong_class, name, "wrong ELF class: ELFCLASS32", requester);
    else
      r.error = load_error(ErrorKind::not_found, name,
                           std::string("cannot open shared object file") +
                               (last_errno ? std::string(": ") + std::strerror(last_errno) : std::string()),
                           requester);
    if (trace) {
      // ldd: a placeholder object that is never matched by name again.
      LoadedObject fake;
      fake.name = name;
      fake.faked = true;
      fake.loader = requester;
      p.objects.push_back(std::move(fake));
      r.object = static_cast<int>(p.objects.size() - 1);
    }
    return r;
  }
  r.via = hit.via;
  r.dir = hit.dir;
  r.element = hit.element;
  const OpenedFile& opened = files_.open_verify(absolute(hit.path));
  // The same file (st_dev, st_ino) is never mapped twice: the new name
  // becomes an alias of the loaded object.
  for (std::size_t i = 0; i < p.objects.size(); ++i) {
    LoadedObject& obj = p.objects[i];
    if (!obj.faked && obj.ino != 0 && obj.dev == opened.dev && obj.ino == opened.ino) {
      obj.aliases.push_back(name);
      r.object = static_cast<int>(i);
      r.via = FoundVia::same_file;
      return r;
    }
  }
  if (!opened.elf) {
    r.error = load_error(ErrorKind::bad_file, hit.path, "condacuda cannot read this file: " + opened.parse_error, requester);
    return r;
  }
  if (auto refusal = check_new_object(p, opened, name, dlopen_mode)) {
    r.error = refusal;
    return r;
  }
  // __RTLD_CALLMAP: the dlopen caller only lent its paths; the root has no loader.
  r.object = add_object(p, opened, hit.path, name, callmap ? -1 : requester);
  LoadedObject& added = p.objects[static_cast<std::size_t>(r.object)];
  added.via = hit.via;
  added.via_dir = hit.dir;
  added.via_element = hit.element;
  return r;
}

} // namespace condacuda::loader
