// What a CUDA library file says about its version (inventory/version_evidence):
// small fixture libraries compiled here, and the real NVIDIA libraries under
// /usr/local/cuda when the machine has them (docs/versions.md).
#include <doctest/doctest.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "elf/elf_object.hpp"
#include "inventory/version_evidence.hpp"
#include "support/fixture.hpp"
#include "sys/mapped_file.hpp"

using namespace condacuda;
using inventory::VersionEvidence;
using Kind = VersionEvidence::Kind;

namespace {

std::shared_ptr<const elf::ElfObject> parse_path(const std::string& path) {
  auto bytes = sys::map_file(path);
  REQUIRE_MESSAGE(bytes.ok(), bytes.error().describe());
  auto parsed = elf::ElfObject::parse(*bytes, false);
  REQUIRE_MESSAGE(parsed.ok(), parsed.error().describe());
  return *parsed;
}

// A library whose .rodata holds `text` (kept: used), with soname `soname` (none when empty).
std::string build_library(const fixture::TempDir& dir, const std::string& file, const std::string& soname,
                          const std::string& text = "") {
  std::string source = "int library_entry(void) { return 1; }\n";
  if (!text.empty())
    source += "__attribute__((used)) static const char embedded[] = \"" + text +
              "\";\nconst char* library_text(void) { return embedded; }\n";
  std::vector<std::string> extra;
  if (!soname.empty()) extra.push_back("-Wl,-soname," + soname);
  std::string out = dir / file;
  fixture::shared_library(out, source, extra);
  return out;
}

// file_version with the soname read from the file (as the inventory calls it).
std::optional<VersionEvidence> version_of(std::string_view component, const std::string& path) {
  auto elf = parse_path(path);
  return inventory::file_version(component, "", std::filesystem::path(path).filename().string(), *elf);
}

// The version of the wheel whose dist-info directory starts with `prefix`
// ("nvidia_nccl" -> "2.28.9"), "" when absent.
std::string dist_info_version(const std::string& root, const std::string& prefix) {
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(root, ec)) {
    std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) != 0) continue;
    auto dash = name.find('-'); // nvidia_nccl_cu13-2.28.9.dist-info
    auto suffix = name.rfind(".dist-info");
    if (dash == std::string::npos || suffix == std::string::npos || suffix < dash) continue;
    return name.substr(dash + 1, suffix - dash - 1);
  }
  return "";
}

} // namespace

TEST_CASE("version evidence: NCCL's embedded version string") {
  fixture::TempDir dir("ver");
  SUBCASE("the string names the version; the soname's major agrees") {
    auto lib = build_library(dir, "libnccl.so.2", "libnccl.so.2", "NCCL version 2.21.5+cuda12.4");
    auto v = version_of("nccl", lib);
    REQUIRE(v);
    CHECK(v->version == "2.21.5");
    CHECK(v->kind == Kind::embedded);
    CHECK(v->source == "embedded string 'NCCL version 2.21.5+cuda12.4'");
    CHECK_FALSE(v->is_major_only());
  }
  SUBCASE("the string wins over a file name that disagrees, and the source says so") {
    auto lib = build_library(dir, "libnccl.so.2.21.5", "libnccl.so.2", "NCCL version 2.28.9+cuda13.0");
    auto v = version_of("nccl", lib);
    REQUIRE(v);
    CHECK(v->version == "2.28.9");
    CHECK(v->kind == Kind::embedded);
    CHECK(v->source == "embedded string 'NCCL version 2.28.9+cuda13.0' (the file name libnccl.so.2.21.5 says 2.21.5)");
  }
  SUBCASE("a string whose major is not the soname's is not evidence") {
    auto lib = build_library(dir, "libnccl.so.2", "libnccl.so.2", "NCCL version 3.0.1+cuda12.4");
    auto v = version_of("nccl", lib);
    REQUIRE(v);
    CHECK(v->kind == Kind::major_only);
    CHECK(v->version == "2");
  }
  SUBCASE("a pre-release suffix, or no +cuda part, is not the verified shape") {
    auto lib = build_library(dir, "libnccl.so.2", "libnccl.so.2", "NCCL version 2.21.5a0+cuda12.4");
    CHECK(version_of("nccl", lib)->kind == Kind::major_only);
    auto lib2 = build_library(dir, "libnccl.so.2.21.5", "libnccl.so.2", "NCCL version 2.19.3");
    auto v = version_of("nccl", lib2);
    REQUIRE(v);
    CHECK(v->kind == Kind::file_name); // the name still counts
    CHECK(v->version == "2.21.5");
  }
  SUBCASE("the string counts for NCCL only") {
    auto lib = build_library(dir, "libcublas.so.12", "libcublas.so.12", "NCCL version 2.21.5+cuda12.4");
    auto v = version_of("cublas", lib);
    REQUIRE(v);
    CHECK(v->kind == Kind::major_only);
    CHECK(v->version == "12");
  }
  SUBCASE("two different versions in one file are ambiguous: not evidence") {
    std::string out = dir / "libnccl.so.2";
    fixture::shared_library(out,
                            "__attribute__((used)) static const char a[] = \"NCCL version 2.21.5+cuda12.4\";\n"
                            "__attribute__((used)) static const char b[] = \"NCCL version 2.18.1+cuda12.1\";\n"
                            "const char* pick(int i) { return i ? a : b; }\n",
                            {"-Wl,-soname,libnccl.so.2"});
    auto v = version_of("nccl", out);
    REQUIRE(v);
    CHECK(v->kind == Kind::major_only);
  }
  SUBCASE("the same version twice is one version") {
    std::string out = dir / "libnccl.so.2";
    fixture::shared_library(out,
                            "__attribute__((used)) static const char a[] = \"NCCL version 2.21.5+cuda12.4\";\n"
                            "__attribute__((used)) static const char b[] = \"x NCCL version 2.21.5+cuda12.4\";\n"
                            "const char* pick(int i) { return i ? a : b; }\n",
                            {"-Wl,-soname,libnccl.so.2"});
    auto v = version_of("nccl", out);
    REQUIRE(v);
    CHECK(v->kind == Kind::embedded);
    CHECK(v->version == "2.21.5");
  }
  SUBCASE("without section headers the read-only segments are scanned") {
    auto lib = build_library(dir, "libnccl.so.2", "libnccl.so.2", "NCCL version 2.21.5+cuda12.4");
    std::string bytes = fixture::read_file(lib);
    REQUIRE(bytes.size() > 64);
    std::memset(bytes.data() + 0x28, 0, 8); // e_shoff
    std::memset(bytes.data() + 0x3c, 0, 4); // e_shnum, e_shstrndx
    auto elf = elf::ElfObject::parse(elf::bytes_from_string(bytes), false);
    REQUIRE(elf.ok());
    auto ranges = inventory::embedded_scan_ranges(**elf);
    REQUIRE_FALSE(ranges.empty());
    auto v = inventory::file_version("nccl", "libnccl.so.2", "libnccl.so.2", **elf);
    REQUIRE(v);
    CHECK(v->kind == Kind::embedded);
    CHECK(v->version == "2.21.5");
  }
  SUBCASE("the scan is capped") {
    auto lib = build_library(dir, "libnccl.so.2", "libnccl.so.2", "NCCL version 2.21.5+cuda12.4");
    auto elf = parse_path(lib);
    std::uint64_t total = 0;
    for (const auto& r : inventory::embedded_scan_ranges(*elf, 16)) total += r.size;
    CHECK(total == 16);
    for (const auto& r : inventory::embedded_scan_ranges(*elf)) CHECK(r.offset + r.size <= elf->bytes().data.size());
  }
}

TEST_CASE("version evidence: the NCCL string's shape") {
  using inventory::nccl_version_strings;
  using namespace std::string_view_literals;
  auto one = nccl_version_strings("junk\0NCCL version 2.21.5+cuda12.4\0more"sv);
  REQUIRE(one.size() == 1);
  CHECK(one[0].version == "2.21.5");
  CHECK(one[0].text == "NCCL version 2.21.5+cuda12.4");
  CHECK(nccl_version_strings("NCCL version 2.21.5+cuda12.4"sv).empty());        // no NUL: cut by the range end
  CHECK(nccl_version_strings("NCCL version 2.21.5+cuda12.4x\0"sv).empty());     // more after it
  CHECK(nccl_version_strings("NCCL version %d.%d.%d+cuda%d.%d\0"sv).empty());    // a format, not a version
  CHECK(nccl_version_strings("NCCL version 2.21+cuda12.4\0"sv).empty());         // no patch
  CHECK(nccl_version_strings("NCCL version 2.21.5 compiled with CUDA 12.4\0"sv).empty());
  CHECK(nccl_version_strings("NCCL version 2.1234567890.5+cuda12.4\0"sv).empty()); // absurd number
  auto two = nccl_version_strings("NCCL version 2.21.5+cuda12.4\0NCCL version 2.18.1+cuda12.1\0NCCL version 2.21.5+cuda12.4\0"sv);
  REQUIRE(two.size() == 2);
  CHECK(two[1].version == "2.18.1");
}

TEST_CASE("version evidence: the file name behind the soname link") {
  fixture::TempDir dir("ver");
  SUBCASE("libcudnn.so.9.1.0 with soname libcudnn.so.9: 9.1.0") {
    auto lib = build_library(dir, "libcudnn.so.9.1.0", "libcudnn.so.9");
    auto v = version_of("cudnn", lib);
    REQUIRE(v);
    CHECK(v->version == "9.1.0");
    CHECK(v->kind == Kind::file_name);
    CHECK(v->source == "file name libcudnn.so.9.1.0");
    CHECK(inventory::version_agrees(*v, "9.1.0.70")); // the deb/conda package 9.1.0.70
    CHECK_FALSE(inventory::version_agrees(*v, "9.10.2.21"));
  }
  SUBCASE("libcudnn.so.9.1.0 whose soname is libcudnn.so.8: the name is not evidence") {
    auto lib = build_library(dir, "libcudnn.so.9.1.0", "libcudnn.so.8");
    auto v = version_of("cudnn", lib);
    REQUIRE(v);
    CHECK(v->kind == Kind::major_only);
    CHECK(v->version == "8");
    CHECK(v->source == "soname libcudnn.so.8: major only; the file name libcudnn.so.9.1.0 does not agree with it");
    CHECK_FALSE(inventory::version_agrees(*v, "9.10.2.21"));
  }
  SUBCASE("libcudnn.so.9 alone names the major only") {
    auto lib = build_library(dir, "libcudnn.so.9", "libcudnn.so.9");
    auto v = version_of("cudnn", lib);
    REQUIRE(v);
    CHECK(v->kind == Kind::major_only);
    CHECK(v->is_major_only());
    CHECK(v->version == "9");
    CHECK(v->source == "soname libcudnn.so.9: major only");
    // A requirement ==9.10.2.21 is not missed by a major-only copy; ==8.9.7.29 is.
    CHECK(inventory::version_agrees(*v, "9.10.2.21"));
    CHECK_FALSE(inventory::version_agrees(*v, "8.9.7.29"));
  }
  SUBCASE("no evidence at all: unknown") {
    auto lib = build_library(dir, "libcudnn.so", "libcudnn.so");
    CHECK_FALSE(version_of("cudnn", lib));
    auto no_soname = build_library(dir, "libcublas.so.12.4.5.8", "");
    CHECK_FALSE(version_of("cublas", no_soname)); // a name with nothing to check it against
  }
  SUBCASE("the soname given wins over the file's (the caller read it already)") {
    auto lib = build_library(dir, "libcudnn.so.9.1.0", "libcudnn.so.9");
    auto elf = parse_path(lib);
    auto v = inventory::file_version("cudnn", "libcudnn.so.8", "libcudnn.so.9.1.0", *elf);
    REQUIRE(v);
    CHECK(v->kind == Kind::major_only);
    CHECK(v->version == "8");
  }
  SUBCASE("NVIDIA's names, one library each") {
    auto lib = build_library(dir, "libany.so.1", "libany.so.1");
    auto elf = parse_path(lib);
    auto name = [&](std::string_view component, std::string_view soname, std::string_view real) {
      return inventory::file_version(component, soname, real, *elf);
    };
    auto cublas = name("cublas", "libcublas.so.12", "libcublas.so.12.4.5.8");
    REQUIRE(cublas);
    CHECK(cublas->version == "12.4.5.8");
    CHECK(cublas->kind == Kind::file_name);
    CHECK(inventory::version_agrees(*cublas, "12.4.5.8"));
    CHECK(name("cublaslt", "libcublasLt.so.12", "libcublasLt.so.12.4.5.8")->version == "12.4.5.8");
    CHECK(name("nccl", "libnccl.so.2", "libnccl.so.2.21.5")->version == "2.21.5"); // no string in this file: the name
    CHECK(name("cudart", "libcudart.so.12", "libcudart.so.12.4.127")->version == "12.4.127");
    CHECK(name("cufft", "libcufft.so.11", "libcufft.so.11.2.1.3")->version == "11.2.1.3");
    CHECK(name("nvrtc", "libnvrtc-builtins.so.12.4", "libnvrtc-builtins.so.12.4.127")->version == "12.4.127");
    // More than MAJOR.MINOR.PATCH.BUILD, a suffix, another stem: not evidence.
    CHECK(name("cublas", "libcublas.so.12", "libcublas.so.12.4.5.8.1")->kind == Kind::major_only);
    CHECK(name("cudnn", "libcudnn.so.9", "libcudnn.so.9.1.0.bak")->kind == Kind::major_only);
    CHECK(name("cudnn", "libcudnn.so.9", "libcudnn_ops.so.9.1.0")->kind == Kind::major_only);
    // CUPTI's toolkit file is named by year; its soname by CUDA major.
    auto cupti = name("cupti", "libcupti.so.12", "libcupti.so.2024.1.1");
    REQUIRE(cupti);
    CHECK(cupti->kind == Kind::major_only);
    CHECK(cupti->version == "12");
    // NVVM's and NVTX's file names carry their own numbers, not the package's.
    auto nvvm = name("nvvm", "libnvvm.so.4", "libnvvm.so.4.0.0");
    REQUIRE(nvvm);
    CHECK(nvvm->kind == Kind::major_only);
    CHECK(nvvm->source == "soname libnvvm.so.4: major only; the file name libnvvm.so.4.0.0 is not this library's version");
    CHECK(name("nvtx", "libnvToolsExt.so.1", "libnvToolsExt.so.1.0.0")->kind == Kind::major_only);
    // Not an NVIDIA library: the naming rule is NVIDIA's.
    CHECK(name("", "libz.so.1", "libz.so.1.2.13")->kind == Kind::major_only);
    // An empty real name is the soname itself.
    CHECK(name("cudnn", "libcudnn.so.9", "")->version == "9");
  }
}

TEST_CASE("version evidence: comparing with a package version, kinds, package records") {
  VersionEvidence v{"9.1.0", "file name libcudnn.so.9.1.0", Kind::file_name};
  CHECK(inventory::version_agrees(v, "9.1.0"));
  CHECK(inventory::version_agrees(v, "9.1.0.70"));
  CHECK(inventory::version_agrees(v, "9.1"));  // 9.1 is 9.1.0
  CHECK(inventory::version_agrees(v, "09.1.0"));
  CHECK_FALSE(inventory::version_agrees(v, "9.1.1"));
  CHECK_FALSE(inventory::version_agrees(v, "9.10.2.21"));
  CHECK_FALSE(inventory::version_agrees(v, "9"));  // 9 is 9.0.0
  CHECK_FALSE(inventory::version_agrees(v, ""));
  CHECK_FALSE(inventory::version_agrees(v, "abc"));
  VersionEvidence nccl{"2.21.5", "embedded string 'NCCL version 2.21.5+cuda12.4'", Kind::embedded};
  CHECK(inventory::version_agrees(nccl, "2.21.5"));
  CHECK(inventory::version_agrees(nccl, "2.21.5.1")); // conda-forge's nccl 2.21.5.1
  CHECK_FALSE(inventory::version_agrees(nccl, "2.28.9"));
  CHECK(inventory::kind_name(Kind::package) == "package");
  CHECK(inventory::kind_name(Kind::file_name) == "file-name");
  CHECK(inventory::kind_name(Kind::embedded) == "embedded");
  CHECK(inventory::kind_name(Kind::major_only) == "major-only");
  auto p = inventory::package_version("nvidia-cudnn-cu12", "9.10.2.21", "dist-info RECORD");
  CHECK(p.kind == Kind::package);
  CHECK(p.version == "9.10.2.21");
  CHECK(p.source == "package nvidia-cudnn-cu12 9.10.2.21 (dist-info RECORD)");
}

TEST_CASE("version evidence: NVIDIA's real libraries (/usr/local/cuda)") {
  const std::string lib = "/usr/local/cuda/lib";
  const std::string dist = "/usr/local/cuda/dist-info";
  if (!std::filesystem::exists(lib + "/libnccl.so.2") || !std::filesystem::is_directory(dist)) {
    MESSAGE("no /usr/local/cuda/lib/libnccl.so.2 with dist-info: real-library checks skipped");
    return;
  }
  // NCCL embeds its version; it equals the wheel's.
  const std::string nccl_wheel = dist_info_version(dist, "nvidia_nccl");
  CHECK_FALSE(nccl_wheel.empty());
  auto t0 = std::chrono::steady_clock::now();
  auto nccl = version_of("nccl", lib + "/libnccl.so.2");
  auto nccl_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  REQUIRE(nccl);
  CHECK(nccl->kind == Kind::embedded);
  if (!nccl_wheel.empty()) CHECK(nccl->version == nccl_wheel);
  MESSAGE("libnccl.so.2: " << nccl->version << " from " << nccl->source << " (wheel " << nccl_wheel << "), "
                           << nccl_ms << " ms");

  // The others embed none the scan trusts: named by soname only, major-only.
  struct Case {
    const char* file;
    const char* component;
    const char* wheel; // dist-info prefix
  };
  int agreed_with_wheel = 0;
  for (const Case& c : {Case{"libcudnn.so.9", "cudnn", "nvidia_cudnn"}, Case{"libcublas.so.13", "cublas", "nvidia_cublas"},
                        Case{"libcublasLt.so.13", "cublaslt", "nvidia_cublas"},
                        Case{"libcusparse.so.12", "cusparse", "nvidia_cusparse"},
                        Case{"libnvJitLink.so.13", "nvjitlink", "nvidia_nvjitlink"},
                        Case{"libcudart.so.13", "cudart", "nvidia_cuda_runtime"}, Case{"libcufft.so.12", "cufft", "nvidia_cufft"},
                        Case{"libcusolver.so.12", "cusolver", "nvidia_cusolver"},
                        Case{"libnvrtc.so.13", "nvrtc", "nvidia_cuda_nvrtc"}}) {
    std::string path = lib + "/" + c.file;
    if (!std::filesystem::exists(path)) continue;
    CAPTURE(path);
    auto v = version_of(c.component, path);
    REQUIRE(v);
    CHECK(v->kind == Kind::major_only);
    std::string wheel = dist_info_version(dist, c.wheel);
    if (wheel.empty()) continue;
    CHECK(inventory::version_agrees(*v, wheel));
    ++agreed_with_wheel;
  }
  CHECK(agreed_with_wheel > 0);

  // The scan's cost on the biggest library: cuBLASLt's .rodata, capped.
  const std::string big = lib + "/libcublasLt.so.13";
  if (std::filesystem::exists(big)) {
    auto elf = parse_path(big);
    auto t2 = std::chrono::steady_clock::now();
    auto v = inventory::file_version("cublaslt", "", "libcublasLt.so.13", *elf); // no string to look for: no scan
    auto version_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t2).count();
    REQUIRE(v);
    CHECK(v->kind == Kind::major_only);
    auto t1 = std::chrono::steady_clock::now();
    std::uint64_t scanned = 0;
    std::size_t found = 0;
    for (const auto& r : inventory::embedded_scan_ranges(*elf)) {
      auto span = elf->bytes().data.subspan(r.offset, r.size);
      found += inventory::nccl_version_strings(
                   std::string_view(reinterpret_cast<const char*>(span.data()), span.size()))
                   .size();
      scanned += r.size;
    }
    auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count();
    CHECK(scanned <= inventory::embedded_scan_cap);
    CHECK(found == 0);
    MESSAGE("libcublasLt.so.13 (" << elf->bytes().data.size() << " bytes): scanned " << scanned << " bytes of .rodata in "
                                  << ms << " ms; file_version (no scan) " << version_ms << " ms");
  }
}
