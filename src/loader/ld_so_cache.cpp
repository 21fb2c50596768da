#include "loader/ld_so_cache.hpp"

#include <algorithm>
#include <cstring>

#include "elf/byte_reader.hpp"

namespace condacuda::loader {

namespace {

using elf::ByteReader;

constexpr std::string_view old_magic = "ld.so-1.7.0";           // CACHEMAGIC
constexpr std::string_view new_magic = "glibc-ld.so.cache1.1";  // CACHEMAGIC_VERSION_NEW
constexpr std::uint64_t old_header_size = 16;                   // sizeof (struct cache_file)
constexpr std::uint64_t old_entry_size = 12;                    // sizeof (struct file_entry)
constexpr std::uint64_t new_header_size = 48;                   // sizeof (struct cache_file_new)
constexpr std::uint64_t new_entry_size = 24;                    // sizeof (struct file_entry_new)
constexpr std::uint32_t extension_magic = 0xEAA42174;           // cache_extension_magic
constexpr std::uint64_t extension_header_size = 8;
constexpr std::uint64_t extension_section_size = 16;
constexpr std::uint32_t tag_generator = 0;
constexpr std::uint32_t tag_glibc_hwcaps = 1;

Error corrupt(std::string what) { return make_error(ErrorCode::corrupt, std::move(what)); }

bool has_magic(const ByteReader& r, std::uint64_t offset, std::string_view magic) {
  auto b = r.bytes(offset, magic.size());
  return b && std::memcmp(b->data(), magic.data(), magic.size()) == 0;
}

// Reads NUL-terminated strings for entries and hwcaps names. A string must end
// inside the file (glibc only checks the start and trusts the page padding of
// its mapping). The bytes scanned are budgeted so that hostile offsets (many
// entries pointing into one huge string) cannot make parsing quadratic in time
// or memory; ldconfig's files scan each string about once.
class StringReader {
public:
  explicit StringReader(const ByteReader& r) : r_(r), budget_(16 * r.size() + (1u << 20)) {}

  // The string at absolute file offset `at`, or nullopt when unusable. Once
  // the budget is spent every further string is unusable and exhausted() says so.
  std::optional<std::string> at(std::uint64_t at) {
    if (exhausted_ || at >= r_.size()) return std::nullopt;
    std::uint64_t available = r_.size() - at;
    std::uint64_t limit = available <= budget_ ? r_.size() : at + budget_;
    auto s = r_.cstring(at, limit);
    if (!s && limit < r_.size()) {
      exhausted_ = true;
      return std::nullopt;
    }
    budget_ -= s ? s->size() + 1 : available;
    if (!s) return std::nullopt;
    return std::string(*s);
  }

  bool exhausted() const { return exhausted_; }

private:
  const ByteReader& r_;
  std::uint64_t budget_;
  bool exhausted_ = false;
};

// Fills key/value of `e` from string-table offsets relative to `base`.
void resolve_strings(StringReader& strings, std::uint64_t base, std::uint32_t key, std::uint32_t value,
                     CacheEntry& e) {
  auto k = strings.at(base + key);
  auto v = strings.at(base + value);
  e.key_in_range = k.has_value();
  e.value_in_range = v.has_value();
  if (k) e.key = std::move(*k);
  if (v) e.value = std::move(*v);
}

// Old table: string offsets are relative to the end of the entry array
// (elf/dl-cache.c _dl_load_cache_lookup, the `cache_new == NULL` branch).
std::vector<CacheEntry> read_old_entries(const ByteReader& r, std::uint32_t nlibs, StringReader& strings) {
  std::vector<CacheEntry> entries(nlibs);
  std::uint64_t string_base = old_header_size + std::uint64_t{nlibs} * old_entry_size;
  for (std::uint32_t i = 0; i < nlibs; ++i) {
    std::uint64_t at = old_header_size + std::uint64_t{i} * old_entry_size;
    entries[i].flags = *r.i32(at);
    resolve_strings(strings, string_base, *r.u32(at + 4), *r.u32(at + 8), entries[i]);
  }
  return entries;
}

// New table at header offset `h`: string offsets are relative to the new
// header (search_cache is called with string_table = cache_new).
std::vector<CacheEntry> read_new_entries(const ByteReader& r, std::uint64_t h, std::uint32_t nlibs,
                                         StringReader& strings) {
  std::vector<CacheEntry> entries(nlibs);
  for (std::uint32_t i = 0; i < nlibs; ++i) {
    std::uint64_t at = h + new_header_size + std::uint64_t{i} * new_entry_size;
    CacheEntry& e = entries[i];
    e.flags = *r.i32(at);
    e.osversion = *r.u32(at + 12);
    e.hwcap = *r.u64(at + 16);
    resolve_strings(strings, h, *r.u32(at + 4), *r.u32(at + 8), e);
  }
  return entries;
}

// cache_file_new_matches_endian (sysdeps/generic/dl-cache.h): 0 means an old
// ldconfig wrote no endianness; otherwise the low two bits must say "little".
Status check_endianness(std::uint8_t flags) {
  if (flags == 0 || (flags & 3) == 2) return ok_status();
  if ((flags & 3) == 3) return make_error(ErrorCode::unsupported, "ld.so.cache is big-endian");
  return corrupt("ld.so.cache endianness byte " + std::to_string(flags) + " marks the cache invalid");
}

// The glibc-hwcaps section: u32 string offsets relative to the start of the
// file (glibc_hwcaps_compare reads `cache + index`). cache_extension_verify
// drops a section that is empty, misaligned or not a multiple of 4 long.
std::vector<std::string> read_hwcaps_section(const ByteReader& r, std::uint32_t offset, std::uint32_t size,
                                             StringReader& strings) {
  std::vector<std::string> names;
  if (size == 0 || offset % 4 != 0 || size % 4 != 0) return names;
  names.reserve(size / 4);
  for (std::uint64_t at = offset; at < std::uint64_t{offset} + size; at += 4)
    names.push_back(strings.at(*r.u32(at)).value_or(std::string()));
  return names;
}

struct Section {
  std::uint32_t offset = 0;
  std::uint32_t size = 0;
  bool present = false;
};

// cache_extension_load (sysdeps/generic/dl-cache.h): the directory and every
// section must lie inside the file; unknown tags are ignored; a later section
// with the same tag replaces an earlier one. Offsets count from the file start.
Status read_extensions(const ByteReader& r, std::uint32_t ext_offset, StringReader& strings, LdSoCache& out) {
  if (ext_offset == 0) return ok_status(); // no extensions: not a format error
  if (ext_offset % 4 != 0) return corrupt("ld.so.cache extension offset is misaligned");
  if (!r.has(ext_offset, extension_header_size)) return corrupt("ld.so.cache extension directory is past the end");
  if (*r.u32(ext_offset) != extension_magic) return corrupt("ld.so.cache extension directory has a bad magic");
  std::uint32_t count = *r.u32(ext_offset + 4);
  std::uint64_t table = std::uint64_t{ext_offset} + extension_header_size;
  if (!r.has(table, std::uint64_t{count} * extension_section_size))
    return corrupt("ld.so.cache extension count " + std::to_string(count) + " does not fit in the file");
  Section sections[2];
  for (std::uint32_t i = 0; i < count; ++i) {
    std::uint64_t at = table + std::uint64_t{i} * extension_section_size;
    std::uint32_t tag = *r.u32(at);
    std::uint32_t offset = *r.u32(at + 8);
    std::uint32_t size = *r.u32(at + 12);
    if (!r.has(offset, size)) return corrupt("ld.so.cache extension section " + std::to_string(i) + " is past the end");
    if (tag <= tag_glibc_hwcaps) sections[tag] = Section{offset, size, true};
  }
  if (sections[tag_generator].present) {
    auto b = *r.bytes(sections[tag_generator].offset, sections[tag_generator].size);
    std::string_view text(reinterpret_cast<const char*>(b.data()), b.size());
    out.generator = std::string(text.substr(0, text.find('\0')));
  }
  if (sections[tag_glibc_hwcaps].present)
    out.hwcaps_subdirs = read_hwcaps_section(r, sections[tag_glibc_hwcaps].offset,
                                             sections[tag_glibc_hwcaps].size, strings);
  return ok_status();
}

// A new header at offset `h` whose magic is already checked: its table and
// extensions. For the new-only layout glibc also insists on the file being
// longer than the header; in a compat file it checks only that the header fits.
Result<LdSoCache> read_new_cache(const ByteReader& r, std::uint64_t h, CacheFormat format) {
  if (format == CacheFormat::new_format && r.size() <= new_header_size)
    return corrupt("ld.so.cache is no longer than its header");
  if (!r.has(h, new_header_size)) return corrupt("ld.so.cache new header is truncated");
  std::uint32_t nlibs = *r.u32(h + 20);
  // Checked by division, as glibc does, so that the product cannot overflow.
  if ((r.size() - h - new_header_size) / new_entry_size < nlibs)
    return corrupt("ld.so.cache entry count " + std::to_string(nlibs) + " does not fit in the file");
  if (auto st = check_endianness(*r.u8(h + 28)); !st) return st.error();
  LdSoCache cache;
  cache.format = format;
  StringReader strings(r);
  cache.entries = read_new_entries(r, h, nlibs, strings);
  if (auto st = read_extensions(r, *r.u32(h + 32), strings, cache); !st) return st.error();
  if (strings.exhausted()) return corrupt("ld.so.cache string offsets overlap beyond any real cache");
  return cache;
}

// "ld.so-1.7.0": the old table, possibly followed (after padding to 8 bytes,
// ALIGN_CACHE) by a complete new-format cache that then takes precedence.
Result<LdSoCache> read_old_or_compat(const ByteReader& r) {
  if (r.size() <= old_header_size) return corrupt("ld.so.cache is no longer than its header");
  std::uint32_t nlibs = *r.u32(12);
  if ((r.size() - old_header_size) / old_entry_size < nlibs)
    return corrupt("ld.so.cache entry count " + std::to_string(nlibs) + " does not fit in the file");
  std::uint64_t end_of_table = old_header_size + std::uint64_t{nlibs} * old_entry_size;
  std::uint64_t h = (end_of_table + 7) & ~std::uint64_t{7};
  if (r.has(h, new_header_size) && has_magic(r, h, new_magic)) return read_new_cache(r, h, CacheFormat::compat);
  LdSoCache cache;
  cache.format = CacheFormat::old_format;
  StringReader strings(r);
  cache.entries = read_old_entries(r, nlibs, strings);
  if (strings.exhausted()) return corrupt("ld.so.cache string offsets overlap beyond any real cache");
  return cache;
}

// Character access with C-string semantics: the end reads as NUL. char is
// signed on x86-64, so bytes >= 0x80 compare as negative, as in glibc.
int c_at(std::string_view s, std::size_t i) {
  return i < s.size() ? static_cast<signed char>(s[i]) : 0;
}

bool is_digit(int c) { return c >= '0' && c <= '9'; }

// Accumulates a digit run starting at i the way glibc's int arithmetic does
// on x86-64 (wrapping), and leaves i after the run.
std::uint32_t digit_run(std::string_view s, std::size_t& i) {
  std::uint32_t value = 0;
  while (is_digit(c_at(s, i))) value = value * 10u + static_cast<std::uint32_t>(c_at(s, i++) - '0');
  return value;
}

// Position of the run of entries whose key equals `name`, found by the same
// binary search as search_cache (elf/dl-cache.c), so that unsorted or hostile
// tables give glibc's answer: an unusable key at a probe ends the search, and
// the run is widened from the hit while neighbours compare equal.
struct Run {
  std::size_t first = 0;
  std::size_t last = 0; // inclusive
};

std::optional<Run> find_run(const std::vector<CacheEntry>& entries, std::string_view name) {
  std::int64_t left = 0;
  std::int64_t right = static_cast<std::int64_t>(entries.size()) - 1;
  auto matches = [&](std::int64_t i) {
    const CacheEntry& e = entries[static_cast<std::size_t>(i)];
    return e.key_in_range && dl_cache_libcmp(name, e.key) == 0;
  };
  while (left <= right) {
    std::int64_t middle = (left + right) / 2;
    const CacheEntry& probe = entries[static_cast<std::size_t>(middle)];
    if (!probe.key_in_range) return std::nullopt;
    int cmp = dl_cache_libcmp(name, probe.key);
    if (cmp == 0) {
      std::int64_t first = middle;
      while (first > 0 && matches(first - 1)) --first;
      std::int64_t last = middle;
      while (last + 1 <= right && matches(last + 1)) ++last;
      return Run{static_cast<std::size_t>(first), static_cast<std::size_t>(last)};
    }
    // The table is sorted in descending order: a smaller name lies further on.
    if (cmp < 0) left = middle + 1;
    else right = middle - 1;
  }
  return std::nullopt;
}

// dl_cache_hwcap_isa_level_compatible (sysdeps/x86/dl-isa-level.h): the level n
// in bits 32-41 needs bit n of the CPU's ISA mask. Levels >= 32 cannot be in
// a 32-bit mask (glibc's shift would be undefined); they never match.
bool isa_level_compatible(const CacheEntry& e, std::uint32_t isa_level_mask) {
  std::uint32_t level = static_cast<std::uint32_t>(e.hwcap >> 32) & hwcap_isa_level_mask;
  return level < 32 && (isa_level_mask & (1u << level)) != 0;
}

// A plain entry with legacy hwcap bits. 2.37 removed the legacy mechanism and
// skips every such entry (elf/dl-cache.c, "removed with glibc 2.37"). Up to
// 2.36 the bits must lie within the enabled hwcaps, the platform field and the
// TLS bit (hwcap_exclude), and a platform, if named, must be this platform.
bool legacy_entry_acceptable(const CacheEntry& e, const CacheLookupConfig& config) {
  if (config.glibc_minor >= 37) return e.hwcap == 0;
  std::uint64_t exclude = ~(config.legacy_hwcap_mask | hwcap_platform_mask | hwcap_tls_bit);
  if ((e.hwcap & exclude) != 0) return false;
  std::uint64_t platform = e.hwcap & hwcap_platform_mask;
  return platform == 0 || platform == config.platform_bits;
}

// GLRO(dl_osversion): up to 2.35 an entry needing a newer kernel than the
// running one is skipped, hwcaps entries included. 2.36 removed the check.
bool kernel_acceptable(const CacheEntry& e, const CacheLookupConfig& config) {
  if (config.glibc_minor >= 36 || config.kernel_version == 0) return true;
  return e.osversion <= config.kernel_version;
}

} // namespace

const char* to_string(CacheFormat format) {
  switch (format) {
  case CacheFormat::old_format: return "old";
  case CacheFormat::compat: return "compat";
  case CacheFormat::new_format: return "new";
  }
  return "unknown";
}

Result<LdSoCache> parse_ld_so_cache(std::span<const std::byte> bytes) {
  ByteReader r(bytes);
  // _dl_load_cache_lookup tries the new-only layout first, then the old
  // table (which may carry a new table after it).
  if (has_magic(r, 0, new_magic)) return read_new_cache(r, 0, CacheFormat::new_format);
  if (has_magic(r, 0, old_magic)) return read_old_or_compat(r);
  return corrupt("not an ld.so.cache file (bad magic)");
}

int dl_cache_libcmp(std::string_view a, std::string_view b) {
  std::size_t i = 0;
  std::size_t j = 0;
  while (c_at(a, i) != 0) {
    int ca = c_at(a, i);
    int cb = c_at(b, j);
    if (is_digit(ca)) {
      if (!is_digit(cb)) return 1; // a digit sorts after anything else
      std::uint32_t va = digit_run(a, i);
      std::uint32_t vb = digit_run(b, j);
      if (va != vb) return static_cast<std::int32_t>(va - vb);
    } else if (is_digit(cb)) {
      return -1;
    } else if (ca != cb) {
      return ca - cb;
    } else {
      ++i;
      ++j;
    }
  }
  return -c_at(b, j);
}

bool is_hwcaps_entry(const CacheEntry& entry) {
  // Ignore the subdirectory index (low 32 bits) and the ISA level (bits 32-41).
  std::uint64_t high = (entry.hwcap >> 32) & ~std::uint64_t{hwcap_isa_level_mask};
  return high == (hwcap_extension_bit >> 32);
}

std::vector<std::uint32_t> hwcaps_priorities(const std::vector<std::string>& hwcaps_subdirs,
                                             const std::vector<std::string>& active_hwcaps) {
  // compute_priorities + sort_priorities_by_name (elf/dl-hwcaps.c): priority
  // i+1 for the i-th non-empty name, then a stable sort by name.
  struct Named {
    std::string_view name;
    std::uint32_t priority;
  };
  std::vector<Named> right;
  for (const std::string& name : active_hwcaps)
    if (!name.empty()) right.push_back({name, static_cast<std::uint32_t>(right.size() + 1)});
  std::stable_sort(right.begin(), right.end(), [](const Named& x, const Named& y) { return x.name < y.name; });
  // glibc_hwcaps_priorities_init (elf/dl-cache.c): a merge that assumes the
  // cache's names are sorted, as ldconfig writes them; a name out of order
  // gets 0 (unusable), exactly as in ld.so.
  std::vector<std::uint32_t> result(hwcaps_subdirs.size(), 0);
  std::size_t l = 0;
  std::size_t r = 0;
  while (l < hwcaps_subdirs.size() && r < right.size()) {
    int cmp = std::string_view(hwcaps_subdirs[l]).compare(right[r].name);
    if (cmp == 0) result[l++] = right[r++].priority;
    else if (cmp < 0) ++l;
    else ++r;
  }
  return result;
}

std::optional<std::string> cache_lookup(const LdSoCache& cache, std::string_view name,
                                        const CacheLookupConfig& config) {
  auto run = find_run(cache.entries, name);
  if (!run) return std::nullopt;
  // Old-format entries carry no hwcap field: the first usable one wins.
  bool has_hwcap_field = cache.format != CacheFormat::old_format;
  // glibc-hwcaps entries exist from 2.33; older loaders see bit 62 as an
  // unknown legacy bit and exclude the entry.
  bool named_hwcaps = has_hwcap_field && config.glibc_minor >= 33;
  std::vector<std::uint32_t> priorities;
  if (named_hwcaps) priorities = hwcaps_priorities(cache.hwcaps_subdirs, config.active_hwcaps);
  const CacheEntry* best = nullptr;
  std::uint32_t best_priority = 0;
  for (std::size_t i = run->first; i <= run->last; ++i) {
    const CacheEntry& e = cache.entries[i];
    // _dl_cache_check_flags (sysdeps/unix/sysv/linux/x86_64/dl-cache.h) is an exact match,
    // and _dl_cache_verify_ptr guards the value offset.
    if (e.flags != config.required_flags || !e.value_in_range) continue;
    if (!has_hwcap_field) return e.value;
    bool named = named_hwcaps && is_hwcaps_entry(e);
    if (named && !isa_level_compatible(e, config.isa_level_mask)) continue;
    // ldconfig sorts hwcaps entries before plain ones (elf/cache.c compare),
    // so the first plain entry means the hwcaps candidates are exhausted.
    if (!named && best != nullptr) break;
    if (!named && !legacy_entry_acceptable(e, config)) continue;
    if (!kernel_acceptable(e, config)) continue;
    if (!named) return e.value;
    std::uint32_t index = static_cast<std::uint32_t>(e.hwcap); // glibc_hwcaps_priority (libnew->hwcap)
    std::uint32_t priority = index < priorities.size() ? priorities[index] : 0;
    if (priority == 0) continue; // inactive or unknown subdirectory
    if (best == nullptr || priority < best_priority) {
      best = &e;
      best_priority = priority;
    }
  }
  if (best == nullptr) return std::nullopt;
  return best->value;
}

} // namespace condacuda::loader
