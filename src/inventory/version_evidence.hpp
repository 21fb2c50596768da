#pragma once
// What a CUDA library file itself says about its version, for a copy no
// package record owns (an outside copy on LD_LIBRARY_PATH, a system NCCL, an
// HPC module's cuBLAS). Pure: the file's name, its soname and its bytes in,
// a version with the evidence for it out, or nothing (unknown, never
// guessed). Which evidence is trusted for which library, and how that was
// checked against NVIDIA's real files: docs/versions.md.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "elf/elf_object.hpp"

namespace condacuda::inventory {

struct VersionEvidence {
  enum class Kind {
    package,    // a package record owns the file (wheel RECORD, conda-meta)
    file_name,  // the real file's name: libcudnn.so.9.1.0
    embedded,   // a version string compiled into the library (NCCL)
    major_only, // only the soname's number: libcudnn.so.9 says "9", no more
  };

  // As precise as the evidence is: "9.1.0" from a file name may stand for the
  // package 9.1.0.70; "9" (major_only) for any 9.x. Compare with
  // version_agrees(), which looks at the components the evidence has only.
  std::string version;
  // For people: "file name libcudnn.so.9.1.0", "embedded string 'NCCL version
  // 2.21.5+cuda12.4'", "package nvidia-cudnn-cu12 9.10.2.21 (dist-info RECORD)",
  // "soname libcudnn.so.9: major only".
  std::string source;
  Kind kind = Kind::major_only;

  // True when the evidence names the major only: a requirement on a minor or
  // a patch can be neither met nor missed by it (say "unknown"), only a
  // requirement on another major is missed.
  bool is_major_only() const { return kind == Kind::major_only; }
};

// "package", "file-name", "embedded", "major-only" (JSON and text use these).
std::string_view kind_name(VersionEvidence::Kind kind);

// The evidence for a file a package owns: "package nvidia-cudnn-cu12 9.10.2.21
// (dist-info RECORD)" for ("nvidia-cudnn-cu12", "9.10.2.21", "dist-info RECORD").
VersionEvidence package_version(std::string_view package, std::string_view version, std::string_view record);

// From the file itself. `component`: condacuda's component id (cudnn, nccl,
// cublas, ...; inventory/components.hpp). `soname`: the file's DT_SONAME
// (empty: taken from `elf`). `real_name`: the basename of the file the soname
// link leads to, links followed ("libcudnn.so.9.1.0"). `elf`: the file,
// parsed (headers are enough; its bytes are scanned for an embedded string
// only for a library that has a verified one, and then only .rodata, capped).
//
// In order:
//  1. an embedded version string, for the libraries that have a verified one
//     (NCCL: "NCCL version 2.21.5+cuda12.4"); every occurrence must agree and
//     its major must be the soname's;
//  2. the file name libX.so.MAJOR.MINOR[.PATCH[.BUILD]], when it has more
//     numbers than the soname, the soname's numbers are its prefix (same
//     stem: libcudnn.so.9.1.0 with soname libcudnn.so.9), and the library
//     names its version so (not libnvvm.so.4.0.0, libnvToolsExt.so.1.0.0);
//  3. the soname's number alone (major_only, "9" for libcudnn.so.9);
//  4. nullopt: unknown (no soname number, a name that is not a library's).
std::optional<VersionEvidence> file_version(std::string_view component, std::string_view soname,
                                            std::string_view real_name, const elf::ElfObject& elf);

// True when `version` (a package's, "9.1.0.70") is consistent with the
// evidence: every number the evidence has equals the one at the same place
// ("9.1.0" agrees with "9.1.0.70" and "9.1.0"; "9" with any 9.x; "9.1.0" not
// with "9.10.2.21"). Only numbers separated by dots are compared; anything
// after the first non-digit of either ("2.21.5+cuda12.4", "9.1.0a1") ends it.
bool version_agrees(const VersionEvidence& evidence, std::string_view version);

// The bytes an embedded-string search reads: the .rodata section (section
// headers), else the read-only, non-executable PT_LOAD segments, in file
// order, at most `cap` bytes in all. Empty when the file has neither.
struct ScanRange {
  std::uint64_t offset = 0;
  std::uint64_t size = 0;
};
inline constexpr std::uint64_t embedded_scan_cap = 16u << 20; // 16 MiB (NCCL 2.28.9's .rodata: 217 KB)
std::vector<ScanRange> embedded_scan_ranges(const elf::ElfObject& elf, std::uint64_t cap = embedded_scan_cap);

// The distinct NCCL versions "NCCL version X.Y.Z+cudaA.B" strings in `text`
// name, in order of first occurrence ("2.21.5"), with the whole string each.
struct EmbeddedVersion {
  std::string version;
  std::string text; // "NCCL version 2.21.5+cuda12.4"
};
std::vector<EmbeddedVersion> nccl_version_strings(std::string_view text);

} // namespace condacuda::inventory
