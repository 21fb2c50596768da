#pragma once
// The env's CUDA inventory: every NVIDIA library with its component, package
// and CUDA major, the folders that hold them, and the consumers (ELF files
// that need a CUDA library). Pure: built from an EnvSnapshot.
#include <optional>
#include <string>
#include <vector>

#include "inventory/package_requirements.hpp"
#include "inventory/snapshot.hpp"

namespace condacuda::inventory {

// The GPU code a file carries (elf/fatbin.hpp), for `info`: filled from the
// file's bytes by the system layer (sys/gpu_code.hpp), never by build_inventory.
struct GpuCode {
  std::vector<std::string> sass; // "sm_75", "sm_90a", "sm_100f", sorted by architecture
  std::vector<std::string> ptx;  // "compute_90"
  std::string ptx_isa;           // the highest PTX ISA of its PTX ("9.0"), "" without PTX
  bool compressed = false;       // some entry is compressed
  std::vector<std::string> problems; // a damaged fatbin: what and where
};

struct Library {
  std::string file;               // the real file, relative to the prefix
  std::vector<std::string> names; // symlinks in the env that point at it
  std::string component;          // component id ("cusparse")
  bool toolkit = false;
  std::string soname;             // DT_SONAME, else the file name
  std::string folder;             // directory of `file`
  std::string manager;            // "pip", "conda" or "" (no package owns it)
  std::string package, version, build;
  int cuda_major = -1;            // -1: unknown
  std::string cuda_major_source;  // how it was decided: "wheel name", "cu13 folder", ...
  std::vector<std::string> needed;
  bool links_out = false;         // `file` is a symlink that leads out of the env (uv's symlink mode)
  std::optional<GpuCode> gpu_code; // nullopt: no fatbin, or not read
};

struct Consumer {
  std::string file;               // relative to the prefix
  std::vector<std::string> needs; // the CUDA libraries it needs (DT_NEEDED)
  std::string manager, package, version, build; // build: a conda record's build string
  std::optional<GpuCode> gpu_code; // nullopt: no fatbin, or not read
};

struct LibraryFolder {
  std::string path;   // relative to the prefix
  std::string layout; // "wheel-cu13", "wheel", "conda-lib", "conda-targets", "other"
  std::vector<std::string> packages; // "name version" of the owners of its libraries
};

// A file named like a CUDA library that is not a usable shared object (not
// ELF, no dynamic section, tables condacuda cannot read, not a regular file):
// doctor still opens it as the loader would, so that it is never left out.
struct UnusableLibrary {
  std::string file;      // relative to the prefix
  std::string component; // from the file name
};

struct Inventory {
  std::string prefix;
  std::vector<std::string> site_packages;
  std::vector<LibraryFolder> folders;
  std::vector<Library> libraries; // sorted by component, then file
  std::vector<Consumer> consumers;
  std::vector<UnusableLibrary> unusable; // sorted by file
  std::vector<int> cuda_majors;   // distinct majors of the toolkit libraries, ascending
  std::vector<std::string> warnings;
  // Files `condacuda repair --pin` changed (DT_RUNPATH -> DT_RPATH), from its
  // manifest, sorted; filled by the system layer, empty in a bare scan.
  std::vector<std::string> pinned;
  // What the env's packages require of its components (Requires-Dist, depends).
  std::vector<ComponentRequirement> requirements;

  // "none", "12", "13" or "mixed".
  std::string cuda_summary() const;
  const Library* find_by_soname(const std::string& soname) const;
};

Inventory build_inventory(const EnvSnapshot& snapshot);

// Whether build_inventory lists this file (not a symlink of the env) as a
// library or a consumer: the files a doctor run maps and checks, known as
// soon as the scan has parsed the file.
bool lists_as_library_or_consumer(const ScannedFile& file);

} // namespace condacuda::inventory
