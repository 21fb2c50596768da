#include "python/modules.hpp"

#include "util/strings.hpp"

namespace condacuda::python {

std::vector<std::string> module_suffixes(int major, int minor) {
  // importlib.machinery: EXTENSION_SUFFIXES, then SOURCE_SUFFIXES, then BYTECODE_SUFFIXES.
  return {".cpython-" + std::to_string(major) + std::to_string(minor) + "-x86_64-linux-gnu.so", ".abi3.so", ".so", ".py",
          ".pyc"};
}

namespace {
std::string join(const std::string& dir, const std::string& name) {
  if (dir.empty()) return name;
  return dir.back() == '/' ? dir + name : dir + "/" + name;
}

// FileFinder.find_spec for `tail` in one folder.
ModuleSpec find_in_folder(const std::string& folder, const std::string& tail, const std::vector<std::string>& suffixes,
                          PathProbe& probe) {
  ModuleSpec spec;
  // FileFinder looks only at what the folder lists: the name itself (a
  // package or a portion), or the name with a module suffix.
  bool listed = probe.has(folder, tail);
  for (std::size_t i = 0; i < suffixes.size() && !listed; ++i) listed = probe.has(folder, tail + suffixes[i]);
  if (!listed) return spec;
  const std::string base = join(folder, tail);
  const bool is_dir = probe.is_dir(base);
  if (is_dir) {
    for (const auto& suffix : suffixes) {
      const std::string init = join(base, "__init__" + suffix);
      if (probe.is_file(init)) {
        spec.found = spec.package = true;
        spec.origin = init;
        spec.path = {base};
        return spec;
      }
    }
  }
  for (const auto& suffix : suffixes) {
    const std::string file = join(folder, tail + suffix);
    if (probe.is_file(file)) {
      spec.found = true;
      spec.origin = file;
      return spec;
    }
  }
  if (is_dir) {
    spec.namespace_package = spec.package = true; // a portion: the caller collects it
    spec.path = {base};
  }
  return spec;
}

// PathFinder._get_spec over `folders`: the first module or regular package
// wins; namespace portions are collected in order.
ModuleSpec find_in_path(const std::vector<std::string>& folders, const std::vector<std::string>& entries,
                        const std::string& tail, const std::vector<std::string>& suffixes, PathProbe& probe) {
  ModuleSpec portions;
  for (std::size_t i = 0; i < folders.size(); ++i) {
    // An entry that is not a folder (the stdlib's zip, a path that does not exist) has no FileFinder.
    if (!probe.is_dir(folders[i])) continue;
    ModuleSpec spec = find_in_folder(folders[i], tail, suffixes, probe);
    if (spec.found) {
      spec.entry = entries[i];
      return spec;
    }
    if (spec.namespace_package) {
      if (portions.path.empty()) portions.entry = entries[i];
      portions.path.push_back(spec.path.front());
    }
  }
  if (!portions.path.empty()) portions.found = portions.package = portions.namespace_package = true;
  return portions;
}
} // namespace

ModuleSpec find_module(const std::string& dotted_name, const std::vector<SysPathEntry>& sys_path, const std::string& cwd,
                       int major, int minor, PathProbe& probe) {
  const auto suffixes = module_suffixes(major, minor);
  std::vector<std::string> folders, entries;
  for (const auto& e : sys_path) {
    folders.push_back(e.folder(cwd));
    entries.push_back(e.path);
  }
  ModuleSpec spec;
  std::string top_entry;
  const auto parts = util::split(dotted_name, ".");
  for (std::size_t i = 0; i < parts.size(); ++i) {
    spec = find_in_path(folders, entries, parts[i], suffixes, probe);
    if (!spec.found) return ModuleSpec{};
    if (i == 0) top_entry = spec.entry;
    if (i + 1 < parts.size()) {
      if (!spec.package) return ModuleSpec{}; // "is not a package"
      folders = spec.path;
      entries.assign(folders.size(), top_entry);
    }
  }
  spec.entry = top_entry;
  return spec;
}

namespace {
// fnmatch's translation, matched directly: '*' any run, '?' one character,
// '[...]' a set ('!' first negates, a ']' first is literal, a-b ranges),
// an unclosed '[' a literal.
bool match_from(const std::string& name, std::size_t n, const std::string& pat, std::size_t p) {
  while (p < pat.size()) {
    const char c = pat[p];
    if (c == '*') {
      while (p < pat.size() && pat[p] == '*') ++p;
      if (p == pat.size()) return true;
      for (std::size_t k = n; k <= name.size(); ++k)
        if (match_from(name, k, pat, p)) return true;
      return false;
    }
    if (n == name.size()) return false;
    if (c == '?') {
      ++n, ++p;
      continue;
    }
    if (c == '[') {
      std::size_t j = p + 1;
      if (j < pat.size() && pat[j] == '!') ++j;
      if (j < pat.size() && pat[j] == ']') ++j;
      while (j < pat.size() && pat[j] != ']') ++j;
      if (j < pat.size()) {
        std::size_t k = p + 1;
        bool negate = false;
        if (pat[k] == '!') negate = true, ++k;
        bool hit = false;
        for (bool first = true; k < j; first = false) {
          char lo = pat[k];
          if (lo == ']' && !first) break;
          if (k + 2 < j && pat[k + 1] == '-') {
            hit |= lo <= name[n] && name[n] <= pat[k + 2];
            k += 3;
          } else {
            hit |= lo == name[n];
            ++k;
          }
        }
        if (hit == negate) return false;
        ++n, p = j + 1;
        continue;
      }
      // no closing ']': a literal '['
    }
    if (name[n] != c) return false;
    ++n, ++p;
  }
  return n == name.size();
}
} // namespace

bool fnmatch(const std::string& name, const std::string& pattern) { return match_from(name, 0, pattern, 0); }

std::vector<std::string> glob_in(const std::string& folder_as_written, const std::string& folder_on_disk,
                                 const std::string& pattern, PathProbe& probe) {
  std::vector<std::string> out;
  const bool has_magic = pattern.find_first_of("*?[") != std::string::npos;
  if (!has_magic) {
    // glob._glob0: the name itself, when it exists (a broken link counts: lexists).
    if (probe.exists(join(folder_on_disk, pattern))) out.push_back(join(folder_as_written, pattern));
    return out;
  }
  for (const auto& name : probe.list(folder_on_disk)) {
    if (name.empty() || (name.front() == '.' && pattern.front() != '.')) continue;
    if (fnmatch(name, pattern)) out.push_back(join(folder_as_written, name));
  }
  return out;
}

namespace {
std::string repr_str(const std::string& s) {
  const bool has_single = s.find('\'') != std::string::npos, has_double = s.find('"') != std::string::npos;
  const char quote = has_single && !has_double ? '"' : '\'';
  static const char* hex = "0123456789abcdef";
  std::string out(1, quote);
  for (std::size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const std::size_t n = util::utf8_sequence_length(s, i);
      if (n > 0) {
        out.append(s, i, n);
        i += n;
      } else {
        out += "\\udc";
        out += hex[c >> 4];
        out += hex[c & 15];
        ++i;
      }
      continue;
    }
    if (c == '\\' || c == static_cast<unsigned char>(quote)) out += '\\', out += static_cast<char>(c);
    else if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7f) out += "\\x", out += hex[c >> 4], out += hex[c & 15];
    else out += static_cast<char>(c);
    ++i;
  }
  return out + quote;
}
} // namespace

std::string repr_str_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + repr_str(items[i]);
  return out + "]";
}

} // namespace condacuda::python
