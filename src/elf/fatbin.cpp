#include "elf/fatbin.hpp"

#include <algorithm>
#include <set>
#include <tuple>

#include "elf/elf_constants.hpp"
#include "elf/sections.hpp"

namespace condacuda::elf {

namespace {
constexpr std::uint32_t fatbin_magic = 0xBA55ED50u;
constexpr std::uint64_t container_header_size = 16;
constexpr std::uint64_t entry_header_min = 64;
constexpr std::uint64_t flag_compressed_lz4 = 0x2000;
constexpr std::uint64_t flag_compressed = 0x8000;
constexpr std::uint64_t flag_arch_specific = 0x100000;
constexpr std::uint64_t flag_family = 0x200000;
// A bound on the work hostile input can ask for: the real CUDA 13 cuSPARSE
// has 134 containers and 1037 entries, cuBLASLt 2782 and 5737.
constexpr std::size_t max_entries = 1u << 20;

std::string hex(std::uint64_t v) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  do {
    out.insert(out.begin(), digits[v & 0xf]);
    v >>= 4;
  } while (v);
  return "0x" + out;
}

std::uint64_t align8(std::uint64_t v) { return v + ((8 - (v & 7)) & 7); }

// One entry header at `at` within a container whose entries end at `end`;
// nullopt (with a problem) when it does not fit.
std::optional<std::pair<FatbinEntry, std::uint64_t>> read_entry(const ByteReader& r, std::uint64_t at, std::uint64_t end,
                                                                 std::vector<std::string>& problems) {
  auto kind = r.u16(at);
  auto header_size = r.u32(at + 4);
  auto payload = r.u64(at + 8);
  auto compressed_size = r.u32(at + 16);
  auto minor = r.u16(at + 24);
  auto major = r.u16(at + 26);
  auto arch = r.u32(at + 28);
  auto flags = r.u64(at + 40);
  auto uncompressed = r.u64(at + 56);
  if (!kind || !header_size || !payload || !compressed_size || !minor || !major || !arch || !flags || !uncompressed ||
      at + entry_header_min > end) {
    problems.push_back("entry header at " + hex(at) + " runs past its container");
    return std::nullopt;
  }
  if (*header_size < entry_header_min || *header_size > end - at || *payload > end - at - *header_size) {
    problems.push_back("entry at " + hex(at) + " claims " + std::to_string(*header_size) + " + " +
                       std::to_string(*payload) + " bytes, past its container");
    return std::nullopt;
  }
  if (*kind != 1 && *kind != 2) {
    problems.push_back("entry at " + hex(at) + " has unknown kind " + std::to_string(*kind));
    return std::make_pair(FatbinEntry{}, at + *header_size + *payload); // skipped, the walk goes on
  }
  FatbinEntry e;
  e.kind = *kind == 1 ? FatbinCodeKind::ptx : FatbinCodeKind::sass;
  e.arch = *arch;
  e.arch_specific = (*flags & flag_arch_specific) != 0;
  e.family = (*flags & flag_family) != 0;
  e.compressed = (*flags & (flag_compressed | flag_compressed_lz4)) != 0;
  e.version_major = *major;
  e.version_minor = *minor;
  e.payload_size = *payload;
  e.uncompressed_size = e.compressed ? *uncompressed : 0;
  return std::make_pair(e, at + *header_size + *payload);
}

std::vector<std::string> targets(const std::vector<FatbinEntry>& entries, FatbinCodeKind kind) {
  std::set<std::tuple<std::uint32_t, bool, bool>> seen;
  std::vector<std::string> out;
  std::vector<const FatbinEntry*> picked;
  for (const auto& e : entries)
    if (e.kind == kind && seen.insert({e.arch, e.family, e.arch_specific}).second) picked.push_back(&e);
  std::sort(picked.begin(), picked.end(), [](const FatbinEntry* a, const FatbinEntry* b) {
    return std::tie(a->arch, a->family, a->arch_specific) < std::tie(b->arch, b->family, b->arch_specific);
  });
  for (const auto* e : picked) out.push_back(target_name(*e));
  return out;
}
} // namespace

std::string target_name(const FatbinEntry& entry) {
  std::string out = (entry.kind == FatbinCodeKind::sass ? "sm_" : "compute_") + std::to_string(entry.arch);
  if (entry.arch_specific) out += 'a';
  else if (entry.family) out += 'f';
  return out;
}

std::vector<std::string> FatbinSummary::sass_targets() const { return targets(entries, FatbinCodeKind::sass); }
std::vector<std::string> FatbinSummary::ptx_targets() const { return targets(entries, FatbinCodeKind::ptx); }

FatbinSummary read_fatbin_section(const ByteReader& r) {
  FatbinSummary out;
  out.has_section = true;
  std::uint64_t pos = 0;
  bool in_gap = false;
  while (pos < r.size() && r.size() - pos >= container_header_size) {
    auto magic = r.u32(pos);
    if (magic != fatbin_magic) {
      // Padding between containers is allowed (8-aligned); report a run of
      // other bytes once.
      const bool foreign = *magic != 0; // pos + 16 <= size: the read succeeded
      if (foreign && !in_gap) out.problems.push_back("bytes that are not a fatbin at " + hex(pos));
      in_gap = in_gap || foreign;
      pos += 8;
      continue;
    }
    in_gap = false;
    auto header_size = r.u16(pos + 6);
    auto size = r.u64(pos + 8);
    if (!header_size || !size || *header_size < container_header_size || *header_size > r.size() - pos ||
        *size > r.size() - pos - *header_size) {
      out.problems.push_back("container at " + hex(pos) + " claims more bytes than the section has");
      break;
    }
    ++out.containers;
    const std::uint64_t end = pos + *header_size + *size;
    std::uint64_t at = pos + *header_size;
    while (at < end) {
      if (out.entries.size() >= max_entries) {
        out.problems.push_back("more than " + std::to_string(max_entries) + " entries: the rest is not read");
        return out;
      }
      auto entry = read_entry(r, at, end, out.problems);
      if (!entry) break;
      if (entry->first.arch != 0 || entry->first.payload_size != 0) out.entries.push_back(entry->first);
      at = entry->second; // > at: a header is at least 64 bytes
    }
    pos = align8(end);
  }
  return out;
}

std::optional<FatbinSummary> read_fatbins(const ByteReader& file) {
  auto ident_class = file.u8(4);
  auto ident_data = file.u8(5);
  if (file.size() < 64 || file.u32(0) != 0x464c457fu || ident_class != elfclass64 || ident_data != elfdata2lsb)
    return std::nullopt;
  const FoundSection section = find_section(file, ".nv_fatbin");
  if (!section.named) return FatbinSummary{};
  if (!section.bytes) {
    FatbinSummary damaged;
    damaged.has_section = true;
    damaged.problems.push_back(".nv_fatbin section lies outside the file");
    return damaged;
  }
  return read_fatbin_section(*section.bytes);
}

} // namespace condacuda::elf
