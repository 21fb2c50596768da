#pragma once
// /etc/ld.so.cache: the parser and glibc's lookup over it, as pure functions
// (the bytes arrive as a value; reading the file is the system layer's job).
// Spec: docs/loader-model.md section 5. Sources: glibc elf/dl-cache.c,
// sysdeps/generic/dl-cache.h, sysdeps/x86/dl-isa-level.h, sysdeps/unix/sysv/linux/x86_64/dl-cache.h,
// elf/dl-hwcaps.c, elf/cache.c (the writer, ldconfig).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace condacuda::loader {

enum class CacheFormat {
  old_format, // "ld.so-1.7.0" only (libc5 / glibc 2.0-2.1 era)
  compat,     // old table, padding to 8 bytes, then a new-format header (ldconfig 2.31 and older)
  new_format, // "glibc-ld.so.cache1.1" only (ldconfig 2.32+)
};
const char* to_string(CacheFormat format);

// Entry flags (sysdeps/generic/ldconfig.h): the low byte is the ELF type, the
// second byte the required architecture flavour.
inline constexpr std::int32_t cache_flag_elf_libc6 = 0x0003;
inline constexpr std::int32_t cache_flag_x8664_lib64 = 0x0300;
inline constexpr std::int32_t cache_flag_x8664_libx32 = 0x0800;
inline constexpr std::int32_t cache_flag_aarch64_lib64 = 0x0a00;
inline constexpr std::int32_t cache_flags_x86_64 = cache_flag_elf_libc6 | cache_flag_x8664_lib64; // 0x303

// The hwcap field of a new-format entry (sysdeps/generic/dl-cache.h).
inline constexpr std::uint64_t hwcap_extension_bit = 1ULL << 62;   // glibc-hwcaps entry marker
inline constexpr std::uint64_t hwcap_tls_bit = 1ULL << 63;         // legacy "tls" subdirectory
inline constexpr std::uint64_t hwcap_platform_mask = 0xfULL << 48; // x86 legacy platforms (dl-procinfo.h)
inline constexpr std::uint32_t hwcap_isa_level_mask = 0x3ff;       // bits 32-41

struct CacheEntry {
  std::string key;   // the soname looked up ("libc.so.6")
  std::string value; // the path returned ("/lib/x86_64-linux-gnu/libc.so.6")
  std::int32_t flags = 0;
  std::uint64_t hwcap = 0;      // new table only
  std::uint32_t osversion = 0;  // new table only
  // False when the string offset points outside the file, or no NUL ends the
  // string inside it; the string is then empty. The lookup treats such an
  // entry as glibc does (an unusable key ends the search, an unusable value
  // skips the entry); the parse still succeeds.
  bool key_in_range = true;
  bool value_in_range = true;
};

struct LdSoCache {
  CacheFormat format = CacheFormat::new_format;
  std::vector<CacheEntry> entries;         // in file order; the new table whenever one exists
  std::vector<std::string> hwcaps_subdirs; // extension tag 1, in file order ("" where a name is unreadable)
  std::string generator;                   // extension tag 0 up to its first NUL, may be empty
};

// Parses old ("ld.so-1.7.0"), compat (old table + padding + new header) and
// new ("glibc-ld.so.cache1.1") files, choosing the table as _dl_load_cache_lookup
// (elf/dl-cache.c) does: the new table whenever a valid one exists.
// Every count, offset and string is checked against the buffer. Errors:
// ErrorCode::corrupt for a bad magic, a file no longer than its header, an
// entry count that does not fit, a broken extension directory (bad alignment,
// magic, or a section past the end) or an endianness byte of 1 or an unknown
// value; ErrorCode::unsupported for a big-endian cache. Entry string offsets
// outside the file are not errors (see CacheEntry). Never throws for bad input;
// the work is linear in the buffer size. Error::path is left empty for the
// caller to fill.
Result<LdSoCache> parse_ld_so_cache(std::span<const std::byte> bytes);

// glibc's _dl_cache_libcmp (elf/dl-cache.c): byte-wise like strcmp, except
// that runs of digits compare numerically ("libfoo.so.01" == "libfoo.so.1",
// "libfoo.so.10" > "libfoo.so.9") and a digit sorts after any non-digit.
// Each argument ends at its first NUL, like the C strings glibc compares.
// Returns <0, 0 or >0.
int dl_cache_libcmp(std::string_view a, std::string_view b);

struct CacheLookupConfig {
  int glibc_minor = 36;                   // 2.xx: 37+ drops legacy hwcap entries; <33 has no glibc-hwcaps
  std::vector<std::string> active_hwcaps; // active glibc-hwcaps subdirs, best first (prepend list first),
                                          // e.g. {"x86-64-v4","x86-64-v3","x86-64-v2"}
  std::uint32_t isa_level_mask = 1;       // bit n set when ISA level n is supported (bit 0 baseline)
  std::uint64_t legacy_hwcap_mask = 0;    // enabled legacy hwcap bits, dl_hwcap & hwcap_mask (<= 2.36)
  std::uint64_t platform_bits = 0;        // this platform's bits 48-51 form (<= 2.36); 0 = unknown platform
  std::int32_t required_flags = 0x303;    // FLAG_ELF_LIBC6 | FLAG_X8664_LIB64 on x86-64 (aarch64 uses 0x0a03)
  std::uint32_t kernel_version = 0;       // <= 2.35 only: GLRO(dl_osversion), 0xMMmmpp; entries whose
                                          // osversion is newer are skipped. 0 = no check (2.36 removed it)
};

// search_cache of elf/dl-cache.c: the path stored for `name`, or nullopt.
// Binary search over the descending table; in the run of equal keys (file
// order) entries whose flags differ from required_flags or whose value offset
// is out of range are skipped; glibc-hwcaps entries compete by priority
// (position in active_hwcaps, lowest wins, first seen on a tie); the first
// acceptable plain entry ends the search, unless an hwcaps candidate was
// already found, which then wins. See docs/loader-model.md section 5.
std::optional<std::string> cache_lookup(const LdSoCache& cache, std::string_view name,
                                        const CacheLookupConfig& config);

// dl_cache_hwcap_extension (sysdeps/generic/dl-cache.h): bits 63-42 are exactly bit 62.
bool is_hwcaps_entry(const CacheEntry& entry);

// For each element of hwcaps_subdirs, its priority under the active list (1 =
// best, 0 = not usable), computed as glibc_hwcaps_priorities_init does: a merge
// of the cache's array (sorted by ldconfig) with the active names sorted by name.
std::vector<std::uint32_t> hwcaps_priorities(const std::vector<std::string>& hwcaps_subdirs,
                                             const std::vector<std::string>& active_hwcaps);

} // namespace condacuda::loader
