#include "inventory/version_evidence.hpp"

#include <algorithm>
#include <array>

#include "elf/byte_reader.hpp"
#include "elf/elf_constants.hpp"
#include "inventory/components.hpp"

namespace condacuda::inventory {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// "libcudnn.so.9.1.0" -> stem "libcudnn.so", numbers {"9","1","0"}. `numeric`
// is false when anything after ".so." is not dot-separated digits
// ("libcudnn.so.9.1.0.bak", "libfoo.so.9-1"); a bare "libfoo.so" has no numbers.
struct SharedName {
  std::string_view stem;
  std::vector<std::string_view> numbers;
  bool numeric = false;
};

// Each number at most this many digits: NVIDIA's largest is a year (2024).
constexpr std::size_t max_digits = 9;

SharedName split_shared_name(std::string_view name) {
  SharedName out;
  auto so = name.find(".so");
  if (so == std::string_view::npos || so == 0) return out;
  std::string_view rest = name.substr(so + 3);
  if (!rest.empty() && rest[0] != '.') return out; // "libfoo.something"
  out.stem = name.substr(0, so + 3);
  if (rest.empty()) {
    out.numeric = true;
    return out;
  }
  rest.remove_prefix(1);
  while (true) {
    auto dot = rest.find('.');
    std::string_view part = rest.substr(0, dot);
    if (part.empty() || part.size() > max_digits || !std::all_of(part.begin(), part.end(), is_digit)) {
      out.numbers.clear();
      return out;
    }
    out.numbers.push_back(part);
    if (dot == std::string_view::npos) break;
    rest.remove_prefix(dot + 1);
  }
  out.numeric = true;
  return out;
}

std::string join(const std::vector<std::string_view>& parts, std::size_t count) {
  std::string out;
  for (std::size_t i = 0; i < count && i < parts.size(); ++i) {
    if (i) out += '.';
    out += parts[i];
  }
  return out;
}

// Numbers compared as numbers ("09" == "9"), without overflow: leading zeros off.
std::string_view without_leading_zeros(std::string_view s) {
  while (s.size() > 1 && s[0] == '0') s.remove_prefix(1);
  return s;
}
bool same_number(std::string_view a, std::string_view b) { return without_leading_zeros(a) == without_leading_zeros(b); }

// The leading dot-separated numbers of a version ("2.21.5+cuda12.4" -> 2, 21, 5).
std::vector<std::string_view> leading_numbers(std::string_view v) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < v.size()) {
    std::size_t start = i;
    while (i < v.size() && is_digit(v[i])) ++i;
    if (i == start) break;
    out.push_back(v.substr(start, i - start));
    if (i + 1 < v.size() && v[i] == '.' && is_digit(v[i + 1])) {
      ++i;
      continue;
    }
    break;
  }
  return out;
}

// The soname's numbers are a prefix of `version`'s.
bool extends(const std::vector<std::string_view>& soname_numbers, const std::vector<std::string_view>& version) {
  if (version.size() < soname_numbers.size()) return false;
  for (std::size_t i = 0; i < soname_numbers.size(); ++i)
    if (!same_number(soname_numbers[i], version[i])) return false;
  return true;
}

// Components whose file names do not carry the package's version: libnvvm.so.4.0.0
// (NVVM's own number, package nvidia-cuda-nvcc / nvidia-nvvm 13.0.88),
// libnvToolsExt.so.1.0.0 (nvtx's API number, package nvidia-nvtx 13.0.85).
// CUPTI's toolkit file libcupti.so.2024.1.1 (soname libcupti.so.12) fails the
// soname check on its own.
constexpr std::array no_file_name_rule{std::string_view("nvvm"), std::string_view("nvtx")};

bool file_name_rule_applies(std::string_view component, std::string_view soname) {
  auto kind = classify_library(soname);
  if (!kind) return false;
  for (auto id : no_file_name_rule)
    if (component == id || kind->id == id) return false;
  return true;
}

// ---- section and segment access (ElfObject exposes neither) ----

struct Header {
  bool is64 = false;
  std::uint64_t phoff = 0, shoff = 0;
  std::uint16_t phentsize = 0, phnum = 0, shentsize = 0;
  std::uint32_t shnum = 0, shstrndx = 0;
};

std::optional<Header> read_header(const elf::ByteReader& r, std::uint8_t elf_class) {
  Header h;
  h.is64 = elf_class == elf::elfclass64;
  if (h.is64) {
    auto phoff = r.u64(0x20), shoff = r.u64(0x28);
    auto phentsize = r.u16(0x36), phnum = r.u16(0x38), shentsize = r.u16(0x3a), shnum = r.u16(0x3c),
         shstrndx = r.u16(0x3e);
    if (!phoff || !shoff || !phentsize || !phnum || !shentsize || !shnum || !shstrndx) return std::nullopt;
    h.phoff = *phoff, h.shoff = *shoff, h.phentsize = *phentsize, h.phnum = *phnum, h.shentsize = *shentsize,
    h.shnum = *shnum, h.shstrndx = *shstrndx;
  } else {
    auto phoff = r.u32(0x1c), shoff = r.u32(0x20);
    auto phentsize = r.u16(0x2a), phnum = r.u16(0x2c), shentsize = r.u16(0x2e), shnum = r.u16(0x30),
         shstrndx = r.u16(0x32);
    if (!phoff || !shoff || !phentsize || !phnum || !shentsize || !shnum || !shstrndx) return std::nullopt;
    h.phoff = *phoff, h.shoff = *shoff, h.phentsize = *phentsize, h.phnum = *phnum, h.shentsize = *shentsize,
    h.shnum = *shnum, h.shstrndx = *shstrndx;
  }
  return h;
}

struct Section {
  std::uint32_t name = 0, type = 0;
  std::uint64_t flags = 0, offset = 0, size = 0;
  std::uint32_t link = 0;
};

std::optional<Section> read_section(const elf::ByteReader& r, const Header& h, std::uint64_t index) {
  const std::uint64_t need = h.is64 ? 64 : 40;
  if (h.shentsize < need) return std::nullopt;
  if (index > (r.size() / h.shentsize)) return std::nullopt; // no overflow below
  std::uint64_t at = h.shoff + index * h.shentsize;
  if (at < h.shoff || !r.has(at, need)) return std::nullopt;
  Section s;
  s.name = *r.u32(at);
  s.type = *r.u32(at + 4);
  if (h.is64) {
    s.flags = *r.u64(at + 8);
    s.offset = *r.u64(at + 24);
    s.size = *r.u64(at + 32);
    s.link = *r.u32(at + 40);
  } else {
    s.flags = *r.u32(at + 8);
    s.offset = *r.u32(at + 16);
    s.size = *r.u32(at + 20);
    s.link = *r.u32(at + 24);
  }
  return s;
}

constexpr std::uint32_t sht_progbits = 1;
constexpr std::uint64_t shf_write = 0x1, shf_alloc = 0x2, shf_execinstr = 0x4;
constexpr std::uint32_t shn_xindex = 0xffff;
constexpr std::uint32_t pf_x = 0x1, pf_w = 0x2, pf_r = 0x4;

// The .rodata section's file range, clipped to the file.
std::optional<ScanRange> rodata_section(const elf::ByteReader& r, const Header& h) {
  if (h.shoff == 0) return std::nullopt;
  std::uint64_t shnum = h.shnum, shstrndx = h.shstrndx;
  if (shnum == 0 || shstrndx == shn_xindex) { // extended numbering: section 0 holds the real values
    auto zero = read_section(r, h, 0);
    if (!zero) return std::nullopt;
    if (shnum == 0) shnum = zero->size;
    if (shstrndx == shn_xindex) shstrndx = zero->link;
  }
  auto names = read_section(r, h, shstrndx);
  if (!names || !r.has(names->offset, names->size)) return std::nullopt;
  const std::uint64_t names_end = names->offset + names->size;
  for (std::uint64_t i = 1; i < shnum; ++i) {
    auto s = read_section(r, h, i);
    if (!s) break; // the table runs off the file: nothing further is readable
    if (s->type != sht_progbits || !(s->flags & shf_alloc) || (s->flags & (shf_write | shf_execinstr))) continue;
    if (s->name >= names->size) continue;
    auto name = r.cstring(names->offset + s->name, names_end);
    if (!name || *name != ".rodata") continue;
    if (s->offset >= r.size()) return std::nullopt;
    return ScanRange{s->offset, std::min(s->size, r.size() - s->offset)};
  }
  return std::nullopt;
}

// The read-only, non-executable PT_LOAD segments' file ranges, clipped to the file.
std::vector<ScanRange> read_only_segments(const elf::ByteReader& r, const Header& h) {
  std::vector<ScanRange> out;
  const std::uint64_t need = h.is64 ? 56 : 32;
  if (h.phentsize < need) return out;
  for (std::uint64_t i = 0; i < h.phnum; ++i) {
    std::uint64_t at = h.phoff + i * h.phentsize;
    if (at < h.phoff || !r.has(at, need)) break;
    std::uint32_t type = *r.u32(at);
    std::uint32_t flags = h.is64 ? *r.u32(at + 4) : *r.u32(at + 24);
    std::uint64_t offset = h.is64 ? *r.u64(at + 8) : *r.u32(at + 4);
    std::uint64_t filesz = h.is64 ? *r.u64(at + 32) : *r.u32(at + 16);
    if (type != elf::pt_load || (flags & (pf_w | pf_x)) || !(flags & pf_r)) continue;
    if (offset >= r.size()) continue;
    out.push_back({offset, std::min(filesz, r.size() - offset)});
  }
  return out;
}

// ---- embedded strings ----

// Libraries with a verified embedded version string (docs/versions.md).
std::optional<VersionEvidence> embedded_version(std::string_view component, const SharedName& soname,
                                                const elf::ElfObject& elf) {
  if (component != "nccl" || soname.stem != "libnccl.so" || soname.numbers.empty()) return std::nullopt;
  elf::ByteReader reader(elf.bytes().data);
  std::vector<EmbeddedVersion> found;
  for (const auto& range : embedded_scan_ranges(elf)) {
    auto bytes = reader.bytes(range.offset, range.size);
    if (!bytes) continue;
    std::string_view text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
    for (auto& v : nccl_version_strings(text)) {
      bool seen = std::any_of(found.begin(), found.end(), [&](const auto& f) { return f.version == v.version; });
      if (!seen) found.push_back(std::move(v));
    }
  }
  // Two different versions in one file: ambiguous, not evidence.
  if (found.size() != 1) return std::nullopt;
  if (!extends(soname.numbers, leading_numbers(found[0].version))) return std::nullopt;
  return VersionEvidence{found[0].version, "embedded string '" + found[0].text + "'", VersionEvidence::Kind::embedded};
}

// The digits at `i` (1..max_digits of them); advances `i`.
std::optional<std::string_view> take_number(std::string_view text, std::size_t& i) {
  std::size_t start = i;
  while (i < text.size() && is_digit(text[i]) && i - start <= max_digits) ++i;
  if (i == start || i - start > max_digits) return std::nullopt;
  return text.substr(start, i - start);
}

bool take(std::string_view text, std::size_t& i, std::string_view what) {
  if (text.substr(i, what.size()) != what) return false;
  i += what.size();
  return true;
}

} // namespace

std::string_view kind_name(VersionEvidence::Kind kind) {
  switch (kind) {
  case VersionEvidence::Kind::package: return "package";
  case VersionEvidence::Kind::file_name: return "file-name";
  case VersionEvidence::Kind::embedded: return "embedded";
  case VersionEvidence::Kind::major_only: return "major-only";
  }
  return "unknown";
}

VersionEvidence package_version(std::string_view package, std::string_view version, std::string_view record) {
  std::string source = "package " + std::string(package) + " " + std::string(version);
  if (!record.empty()) source += " (" + std::string(record) + ")";
  return VersionEvidence{std::string(version), std::move(source), VersionEvidence::Kind::package};
}

std::vector<ScanRange> embedded_scan_ranges(const elf::ElfObject& elf, std::uint64_t cap) {
  elf::ByteReader reader(elf.bytes().data);
  std::vector<ScanRange> out;
  auto header = read_header(reader, elf.elf_class());
  if (!header) return out;
  if (auto rodata = rodata_section(reader, *header))
    out.push_back(*rodata);
  else
    out = read_only_segments(reader, *header);
  std::uint64_t left = cap;
  std::vector<ScanRange> capped;
  for (const auto& range : out) {
    if (left == 0) break;
    if (range.size == 0) continue;
    capped.push_back({range.offset, std::min(range.size, left)});
    left -= capped.back().size;
  }
  return capped;
}

std::vector<EmbeddedVersion> nccl_version_strings(std::string_view text) {
  // NCCL's src/init.cc: VERSION_STRING "NCCL version " MAJOR "." MINOR "." PATCH
  // NCCL_SUFFIX "+cuda" CUDA_MAJOR "." CUDA_MINOR, a C string (NUL after it).
  // A non-empty suffix (a pre-release build) does not match: not evidence.
  constexpr std::string_view prefix = "NCCL version ";
  std::vector<EmbeddedVersion> out;
  for (std::size_t at = text.find(prefix); at != std::string_view::npos; at = text.find(prefix, at + 1)) {
    std::size_t i = at + prefix.size();
    auto major = take_number(text, i);
    if (!major || !take(text, i, ".")) continue;
    auto minor = take_number(text, i);
    if (!minor || !take(text, i, ".")) continue;
    auto patch = take_number(text, i);
    if (!patch) continue;
    std::size_t version_end = i;
    if (!take(text, i, "+cuda") || !take_number(text, i) || !take(text, i, ".") || !take_number(text, i)) continue;
    if (i >= text.size() || text[i] != '\0') continue;
    std::string version(text.substr(at + prefix.size(), version_end - at - prefix.size()));
    if (std::none_of(out.begin(), out.end(), [&](const auto& e) { return e.version == version; }))
      out.push_back({std::move(version), std::string(text.substr(at, i - at))});
  }
  return out;
}

std::optional<VersionEvidence> file_version(std::string_view component, std::string_view soname,
                                            std::string_view real_name, const elf::ElfObject& elf) {
  if (soname.empty() && elf.dynamic().soname) soname = *elf.dynamic().soname;
  if (real_name.empty()) real_name = soname;
  const SharedName so = split_shared_name(soname);
  const SharedName real = split_shared_name(real_name);

  // The file name's version, when it is evidence.
  std::optional<std::string> named;
  if (!so.stem.empty() && so.numeric && !so.numbers.empty() && real.stem == so.stem && real.numeric &&
      real.numbers.size() > so.numbers.size() && real.numbers.size() <= 4 && extends(so.numbers, real.numbers) &&
      file_name_rule_applies(component, soname))
    named = join(real.numbers, real.numbers.size());

  if (auto embedded = embedded_version(component, so, elf)) {
    if (named && *named != embedded->version)
      embedded->source += " (the file name " + std::string(real_name) + " says " + *named + ")";
    return embedded;
  }
  if (named) return VersionEvidence{*named, "file name " + std::string(real_name), VersionEvidence::Kind::file_name};
  if (so.stem.empty() || !so.numeric || so.numbers.empty()) return std::nullopt;

  // Said inside parentheses by its readers: none of its own ("soname X: major only; ...").
  std::string source = "soname " + std::string(soname) + ": major only";
  if (real_name != soname && real.numeric && real.numbers.size() > so.numbers.size()) {
    if (real.stem != so.stem || !extends(so.numbers, real.numbers) || real.numbers.size() > 4)
      source += "; the file name " + std::string(real_name) + " does not agree with it";
    else
      source += "; the file name " + std::string(real_name) + " is not this library's version";
  }
  return VersionEvidence{join(so.numbers, so.numbers.size()), std::move(source), VersionEvidence::Kind::major_only};
}

bool version_agrees(const VersionEvidence& evidence, std::string_view version) {
  auto known = leading_numbers(evidence.version);
  auto other = leading_numbers(version);
  if (known.empty() || other.empty()) return false;
  for (std::size_t i = 0; i < known.size(); ++i) {
    std::string_view theirs = i < other.size() ? other[i] : std::string_view("0"); // 9.1 is 9.1.0
    if (!same_number(known[i], theirs)) return false;
  }
  return true;
}

} // namespace condacuda::inventory
