#include "sys/env_scan.hpp"

#include <algorithm>
#include <filesystem>
#include <cstring>
#include <system_error>

#include <sys/stat.h>

#include "inventory/components.hpp"
#include "sys/mapped_file.hpp"
#include "sys/posix.hpp"

namespace condacuda::sys {

namespace fs = std::filesystem;

namespace {
bool skipped_dir(const fs::path& rel) {
  const std::string name = rel.filename().string();
  if (name == "__pycache__" || name == ".git" || name == "include" || name == "node_modules") return true;
  auto ends_with = [&](std::string_view suffix) {
    return name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (ends_with(".dist-info") || ends_with(".egg-info")) return true; // records, read separately
  // condacuda's own folder: the originals of pinned libraries are kept there,
  // never loaded, never part of the env's inventory.
  if (rel.generic_string() == "etc/condacuda") return true;
  if (rel.has_parent_path()) return false;
  return name == "pkgs" || name == "envs" || name == "conda-meta" || name == "share" || name == "man" ||
         name == "ssl" || name == "conda-bld" || name == ".pixi";
}

std::string relative_to(const fs::path& path, const fs::path& base) {
  return path.lexically_relative(base).generic_string();
}

// Problems with one library file become snapshot warnings that name it: a
// file that cannot be read (a FIFO, no permission), an ELF file whose tables
// are damaged, a symlink loop. A dangling link or a 32-bit/foreign ELF file
// is not a problem of the env, and stays silent.
inventory::ScannedFile scan_file(const fs::path& path, const fs::path& prefix, const fs::path& canonical_prefix,
                                 bool symlink, std::vector<std::string>& warnings) {
  inventory::ScannedFile f;
  f.path = relative_to(path, prefix);
  std::error_code ec;
  fs::path real = path;
  if (symlink) {
    f.symlink = true;
    f.link_target = fs::read_symlink(path, ec).string();
    real = fs::canonical(path, ec);
    if (ec == std::errc::too_many_symbolic_link_levels) warnings.push_back(f.path + ": symbolic link loop");
    if (ec) return f; // broken link
    std::string rel = relative_to(real, canonical_prefix);
    if (!rel.empty() && rel.rfind("..", 0) != 0) {
      f.resolved = rel;
      return f; // the target is scanned as a file of its own
    }
    // Out of the env in the end, but through another link of the env first
    // (repair's link to a uv-symlinked library): a name of that link, which
    // stands for the library of its own.
    fs::path first = fs::canonical(path.parent_path(), ec) / f.link_target;
    first = first.lexically_normal();
    std::error_code lec;
    if (!ec && fs::is_symlink(first, lec)) {
      std::string hop = relative_to(first, canonical_prefix);
      if (!hop.empty() && hop.rfind("..", 0) != 0) {
        f.resolved = hop;
        return f;
      }
    }
    ec.clear();
  }
  auto opened = map_file_open(real.string());
  if (!opened) {
    f.elf_error = opened.error().message;
    if (opened.error().code != ErrorCode::not_found) warnings.push_back(f.path + ": " + f.elf_error);
    return f;
  }
  const elf::FileBytes& bytes = opened->bytes;
  f.size = bytes.data.size();
  if (f.size < 4 || std::memcmp(bytes.reader().bytes(0, 4)->data(), "\x7f" "ELF", 4) != 0) return f;
  // The dynamic section and its names read with pread, not through the map
  // (elf/table_source.hpp): their pages are not the ones symbol lookups read.
  const DescriptorCopies copies(opened->fd.get());
  auto elf = elf::ElfObject::parse(bytes, false, &copies);
  if (elf) f.elf = *elf;
  else f.elf_error = elf.error().message;
  if (!elf && elf.error().code != ErrorCode::unsupported) warnings.push_back(f.path + ": not a usable ELF file: " + f.elf_error);
  return f;
}

// A dist-info file's text; with a cache, the part of it the scan parses
// (`kept` of it): from the cache when the file is unchanged, else read and
// remembered.
template <class Kept>
Result<std::string> read_kept(const std::string& path, std::uint64_t max_bytes, DistInfoCache* cache, Kept kept) {
  if (!cache) return read_text_file(path, max_bytes);
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode))
    if (auto hit = cache->find(path, key_of(st))) return std::move(*hit);
  auto text = read_text_file(path, max_bytes, &st); // st: the key of the bytes read
  if (!text) return text.error();
  std::string part(kept(*text));
  cache->remember(path, key_of(st), part);
  return part;
}

bool names_shared_library(std::string_view path) {
  // The inventory looks up shared libraries only (inventory/inventory.cpp).
  return inventory::looks_like_shared_library(path.substr(path.find_last_of('/') + 1));
}

void read_distributions(const fs::path& prefix, const std::string& site, inventory::EnvSnapshot& s, DistInfoCache* cache) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(prefix / site, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() < 10 || name.compare(name.size() - 10, 10, ".dist-info") != 0) continue;
    inventory::Distribution d;
    d.dist_info = relative_to(entry.path(), prefix);
    d.site_packages = site;
    if (auto meta = read_kept((entry.path() / "METADATA").string(), read_cap::metadata, cache, inventory::kept_metadata_lines)) {
      auto m = inventory::parse_metadata(*meta);
      d.name = m.name;
      d.version = m.version;
      d.requires_dist = m.requires_dist;
    } else if (meta.error().code != ErrorCode::not_found) {
      s.warnings.push_back(d.dist_info + "/METADATA " + meta.error().message + "; name and version taken from the folder");
    }
    auto record = read_kept((entry.path() / "RECORD").string(), read_cap::record, cache,
                            [](std::string_view text) { return inventory::kept_record_lines(text, names_shared_library); });
    if (record) d.files = inventory::parse_record(*record, names_shared_library);
    else if (record.error().code == ErrorCode::not_found) s.warnings.push_back(d.dist_info + ": no readable RECORD");
    else s.warnings.push_back(d.dist_info + ": no readable RECORD (it " + record.error().message + ")");
    if (d.name.empty()) {
      // METADATA missing: fall back on the folder name "<name>-<version>.dist-info".
      std::string stem = name.substr(0, name.size() - 10);
      auto dash = stem.rfind('-');
      d.name = stem.substr(0, dash);
      if (dash != std::string::npos) d.version = stem.substr(dash + 1);
    }
    s.distributions.push_back(std::move(d));
  }
}

void read_conda_meta(const fs::path& prefix, inventory::EnvSnapshot& s) {
  std::error_code ec;
  std::vector<fs::path> records;
  for (const auto& entry : fs::directory_iterator(prefix / "conda-meta", ec))
    if (entry.path().extension() == ".json") records.push_back(entry.path());
  std::sort(records.begin(), records.end());
  for (const auto& path : records) {
    auto text = read_text_file(path.string(), read_cap::conda_record);
    if (!text) {
      s.warnings.push_back(text.error().describe());
      continue;
    }
    auto pkg = inventory::parse_conda_record(*text);
    if (!pkg) {
      s.warnings.push_back(relative_to(path, prefix) + ": " + pkg.error().message);
      continue;
    }
    pkg->record = relative_to(path, prefix);
    s.conda_packages.push_back(std::move(*pkg));
  }
}

void find_site_packages(const fs::path& prefix, inventory::EnvSnapshot& s) {
  std::error_code ec;
  for (const char* lib : {"lib", "lib64"}) {
    std::vector<std::string> found;
    for (const auto& entry : fs::directory_iterator(prefix / lib, ec)) {
      std::string name = entry.path().filename().string();
      if (name.rfind("python3", 0) != 0 || !entry.is_directory(ec)) continue;
      if (fs::is_directory(entry.path() / "site-packages", ec)) found.push_back(std::string(lib) + "/" + name + "/site-packages");
    }
    std::sort(found.begin(), found.end());
    for (auto& f : found)
      if (std::find(s.site_packages.begin(), s.site_packages.end(), f) == s.site_packages.end())
        s.site_packages.push_back(f);
  }
}
} // namespace

Result<inventory::EnvSnapshot> scan_env(const std::string& prefix_text, DistInfoCache* dist_info,
                                        const ScannedFileHandler& on_file) {
  inventory::EnvSnapshot s;
  fs::path prefix = fs::absolute(prefix_text).lexically_normal();
  if (prefix.has_relative_path() && prefix.filename().empty()) prefix = prefix.parent_path();
  s.prefix = prefix.string();
  std::error_code ec;
  if (!fs::is_directory(prefix, ec)) return make_error(ErrorCode::not_found, "not a directory", s.prefix);
  fs::path canonical_prefix = fs::canonical(prefix, ec);
  find_site_packages(prefix, s);
  for (const auto& site : s.site_packages) read_distributions(prefix, site, s, dist_info);
  read_conda_meta(prefix, s);
  for (const char* py : {"bin/python3", "bin/python"})
    if (fs::exists(prefix / py, ec)) {
      s.python = py;
      break;
    }
  fs::recursive_directory_iterator it(prefix, fs::directory_options::skip_permission_denied, ec);
  if (ec) return make_error(ErrorCode::io, "cannot read: " + ec.message(), s.prefix);
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) {
      s.warnings.push_back("cannot read part of the env: " + ec.message());
      ec.clear();
      continue;
    }
    const fs::directory_entry& entry = *it;
    bool symlink = entry.is_symlink(ec);
    if (!symlink && entry.is_directory(ec)) {
      if (skipped_dir(entry.path().lexically_relative(prefix))) it.disable_recursion_pending();
      continue;
    }
    const std::string name = entry.path().filename().string();
    if (!inventory::looks_like_shared_library(name)) continue;
    // What a killed condacuda left (a pinned library being written): never
    // part of the env; the next repair or undo removes it.
    if (name.find(temporary_marker) != std::string::npos) continue;
    if (symlink && fs::is_directory(entry.path(), ec)) continue;
    s.shared_objects.push_back(scan_file(entry.path(), prefix, canonical_prefix, symlink, s.warnings));
    if (on_file) on_file(s.prefix + "/" + s.shared_objects.back().path, s.shared_objects.back());
  }
  std::sort(s.shared_objects.begin(), s.shared_objects.end(),
            [](const auto& a, const auto& b) { return a.path < b.path; });
  return s;
}

std::optional<std::string> env_python(const std::string& prefix) {
  for (const char* name : {"bin/python3", "bin/python"}) {
    std::error_code ec;
    fs::path real = fs::canonical(fs::path(prefix) / name, ec);
    if (ec) continue;
    auto bytes = map_file(real.string());
    if (bytes && bytes->data.size() >= 4 && std::memcmp(bytes->data.data(), "\x7f" "ELF", 4) == 0) return real.string();
  }
  return std::nullopt;
}

std::optional<std::string> env_python_command(const std::string& prefix) {
  if (!env_python(prefix)) return std::nullopt;
  std::error_code ec;
  std::string python = prefix + "/bin/python3";
  return fs::exists(python, ec) ? python : prefix + "/bin/python";
}

} // namespace condacuda::sys
