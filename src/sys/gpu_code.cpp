#include "sys/gpu_code.hpp"

#include <set>
#include <string_view>
#include <sys/stat.h>

#include "elf/fatbin.hpp"
#include "sys/mapped_file.hpp"
#include "util/strings.hpp"

namespace condacuda::sys {

namespace {
inventory::GpuCode gpu_code_of(const elf::FatbinSummary& s) {
  inventory::GpuCode code;
  code.sass = s.sass_targets();
  code.ptx = s.ptx_targets();
  code.problems = s.problems;
  std::string isa;
  for (const auto& e : s.entries) {
    code.compressed = code.compressed || e.compressed;
    if (e.kind != elf::FatbinCodeKind::ptx) continue;
    std::string v = std::to_string(e.version_major) + "." + std::to_string(e.version_minor);
    if (isa.empty() || util::compare_versions(v, isa) > 0) isa = v;
  }
  code.ptx_isa = isa;
  return code;
}
} // namespace

// The file's fatbin; nullopt when it cannot be mapped, is not ELF64 or has no .nv_fatbin.
std::optional<elf::FatbinSummary> read_fatbin(const std::string& path) {
  auto bytes = map_file(path);
  if (!bytes) return std::nullopt;
  auto summary = elf::read_fatbins(elf::ByteReader(bytes->data));
  if (!summary || !summary->has_section) return std::nullopt;
  return summary;
}

std::optional<inventory::GpuCode> read_gpu_code(const std::string& path) {
  auto summary = read_fatbin(path);
  if (!summary) return std::nullopt;
  return gpu_code_of(*summary);
}

void add_gpu_code(inventory::Inventory& inv, const std::string& prefix) {
  for (auto& lib : inv.libraries) lib.gpu_code = read_gpu_code(prefix + "/" + lib.file);
  for (auto& c : inv.consumers) c.gpu_code = read_gpu_code(prefix + "/" + c.file);
}

namespace {
// "-" (no fatbin section), else the distinct entries joined by ',':
// "s80", "s90a", "s100f", "p75@8.8", "p100a@9.0".
std::string serialize(const std::optional<elf::FatbinSummary>& s) {
  if (!s || !s->has_section) return "-";
  std::set<std::string> tokens;
  for (const auto& e : s->entries) {
    std::string t = (e.kind == elf::FatbinCodeKind::sass ? "s" : "p") + std::to_string(e.arch) +
                    (e.arch_specific ? "a" : e.family ? "f" : "");
    if (e.kind == elf::FatbinCodeKind::ptx) t += "@" + std::to_string(e.version_major) + "." + std::to_string(e.version_minor);
    tokens.insert(t);
  }
  std::string out = "0"; // a section, maybe empty
  for (const auto& t : tokens) out += "," + t;
  return out;
}

std::optional<elf::FatbinSummary> deserialize(std::string_view v) {
  if (v == "-") return std::nullopt;
  elf::FatbinSummary s;
  s.has_section = true;
  for (const auto& t : util::split(v, ",")) {
    if (t == "0" || t.size() < 2) continue;
    elf::FatbinEntry e;
    e.kind = t[0] == 'p' ? elf::FatbinCodeKind::ptx : elf::FatbinCodeKind::sass;
    std::string_view rest = std::string_view(t).substr(1);
    std::string_view isa;
    if (auto at = rest.find('@'); at != std::string_view::npos) isa = rest.substr(at + 1), rest = rest.substr(0, at);
    e.arch_specific = rest.ends_with("a");
    e.family = rest.ends_with("f");
    e.arch = static_cast<std::uint32_t>(util::leading_number(rest));
    if (auto dot = isa.find('.'); dot != std::string_view::npos) {
      e.version_major = static_cast<std::uint16_t>(util::leading_number(isa.substr(0, dot)));
      e.version_minor = static_cast<std::uint16_t>(util::leading_number(isa.substr(dot + 1)));
    }
    s.entries.push_back(e);
  }
  return s;
}

bool valid_value(std::string_view v) {
  return !v.empty() && v.find_first_not_of("0123456789spaf@.,-") == std::string_view::npos;
}
const CacheFormat fatbin_cache_format{"fatbin cache", "condacuda fatbin cache 1", valid_value};
} // namespace

FatbinCache::FatbinCache(std::string path) : cache_(std::move(path), fatbin_cache_format) {}

std::string FatbinCache::default_path() {
  return default_cache_path("fatbins");
}

void FatbinCache::load(std::vector<std::string>& warnings) { cache_.load(warnings); }
void FatbinCache::save(std::vector<std::string>& warnings) const { cache_.save(warnings); }

std::optional<elf::FatbinSummary> FatbinCache::summary(const std::string& path) {
  struct stat st {};
  const bool keyed = ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
  if (keyed)
    if (auto hit = cache_.find(path, key_of(st))) return deserialize(*hit);
  auto out = read_fatbin(path);
  if (keyed && (!out || out->problems.empty())) cache_.store(path, key_of(st), serialize(out));
  return out;
}

} // namespace condacuda::sys
