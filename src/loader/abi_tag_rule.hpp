#pragma once
// What open_verify (elf/dl-load.c) does with a file's NT_GNU_ABI_TAG note up
// to glibc 2.35, and the running kernel's version it compares against
// (GLRO(dl_osversion)). glibc commit b46d250656, "Remove kernel version
// check" (2.36), removed both; docs/loader-model.md §2.4.
#include <cstdint>
#include <string_view>

#include "elf/abi_tag.hpp"
#include "loader/config.hpp"

namespace condacuda::loader {

struct AbiTagVerdict {
  enum class Kind {
    accept,     // no note, or one this kernel satisfies (or glibc >= 2.36)
    skip,       // close_and_out: ENOENT, the search goes on as for a missing file
    unreadable, // read_error: "cannot read file data" (+ strerror(error) when error != 0)
  };
  Kind kind = Kind::accept;
  int error = 0;
};

// Up to 2.35: a note whose OS is not Linux, or whose kernel version is newer
// than config.kernel_version (when known), skips the file; a PT_NOTE past the
// end of the file is a read error: ENOMEM when the buffer of p_filesz bytes
// (malloc'd from 64 KiB, __MAX_ALLOCA_CUTOFF) exceeds config.commit_limit,
// EINVAL when p_offset is a negative off64_t, else no errno (a short pread).
AbiTagVerdict judge_abi_tag(const elf::AbiTag& tag, const LoaderConfig& config);

// _dl_discover_osversion's reading of a kernel release ("6.1.0-18-amd64" is
// 0x060100): up to three dot-separated decimal parts, each taking a byte,
// stopping at the first character that does not continue the pattern.
std::uint32_t kernel_version_from_release(std::string_view release);

} // namespace condacuda::loader
