// libFuzzer target: what the frameworks' files say (src/frameworks/installed.hpp,
// src/inventory/records.hpp, src/inventory/requirements.hpp): dist-info
// METADATA and RECORD, torch/version.py, cupy/.data/_wheel.json, .pth files,
// a JAX plugin's folder, in a site-packages tree the input lays out.
//
// The input's sections (tests/fuzz/fuzz_sections.hpp; the generator is
// tests/fuzz/gen_hostile.py metadata): PYTHONPATH, then files, each "PATH\n"
// then its text. A PATH starting with "~/" is in the user site, with "/p/"
// in the PYTHONPATH folder, any other in the env's site-packages. Runs in
// every build through the replay driver (CTest unit.fuzz_replay, under
// ASan/UBSan) and with libFuzzer.
//
// It traps when a promise breaks: the lines the dist-info cache keeps parse
// to the same METADATA and RECORD as the whole file; a PEP 440 version
// equals itself and compares antisymmetrically; a parsed Requires-Dist has
// a name; every framework found has its module's folder and a sys.path
// entry; every NVIDIA library outside the env lies in a folder outside it.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "../unit/support/memory_probe.hpp"
#include "frameworks/installed.hpp"
#include "fuzz_sections.hpp"
#include "inventory/records.hpp"
#include "inventory/requirements.hpp"

namespace {

namespace frameworks = condacuda::frameworks;
namespace inventory = condacuda::inventory;
namespace python = condacuda::python;

constexpr const char* env_site = "/env/lib/python3.11/site-packages";
constexpr const char* user_site = "/home/u/.local/lib/python3.11/site-packages";

bool keep_nvidia(std::string_view path) { return path.starts_with("nvidia/"); }

bool same(const inventory::Metadata& a, const inventory::Metadata& b) {
  return a.name == b.name && a.version == b.version && a.requires_dist == b.requires_dist;
}

bool same(const std::vector<inventory::RecordEntry>& a, const std::vector<inventory::RecordEntry>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].path != b[i].path || a[i].hash != b[i].hash || a[i].size != b[i].size) return false;
  return true;
}

void judge_versions(const std::string& a, const std::string& b) {
  auto va = inventory::parse_pep440(a), vb = inventory::parse_pep440(b);
  if (va) FUZZ_CHECK(inventory::compare(*va, *va) == 0);
  if (va && vb) FUZZ_CHECK(inventory::compare(*va, *vb) == -inventory::compare(*vb, *va));
  (void)inventory::pep440_satisfies(a, b);
  (void)inventory::normalize_pep440_specifiers(b);
  (void)inventory::conda_compare(a, b);
  (void)inventory::conda_satisfies(a, b);
}

void judge_text(const std::string& text) {
  const auto meta = inventory::parse_metadata(text);
  FUZZ_CHECK(same(inventory::parse_metadata(inventory::kept_metadata_lines(text)), meta));
  for (const auto& requirement : meta.requires_dist) {
    auto r = inventory::parse_requires_dist(requirement);
    if (r) FUZZ_CHECK(!r->name.empty());
    if (r) (void)inventory::applies(*r, inventory::MarkerEnvironment{"3.11", "3.11.2"});
  }
  FUZZ_CHECK(same(inventory::parse_record(inventory::kept_record_lines(text, keep_nvidia), keep_nvidia),
             inventory::parse_record(text, keep_nvidia)));
  judge_versions(meta.version, text.substr(0, 64));
  (void)frameworks::torch_version_cuda(text);
  (void)frameworks::parse_cupy_wheel(text);
  (void)inventory::parse_conda_match_spec(text.substr(0, 256));
}

std::string place(const std::string& path) {
  if (path.starts_with("~/")) return std::string(user_site) + path.substr(1);
  if (path.starts_with("/p/")) return path;
  return std::string(env_site) + "/" + path;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto part = condacuda::fuzz::sections(data, size, 1);
  auto probe = std::make_shared<condacuda::test::MemoryProbe>();
  probe->dir(env_site);
  probe->dir("/p");
  for (std::size_t i = 1; i < part.size(); ++i) {
    const std::size_t newline = part[i].find('\n');
    const std::string path = part[i].substr(0, newline);
    const std::string text = newline == std::string::npos ? "" : part[i].substr(newline + 1);
    judge_text(text);
    if (!path.empty() && path.size() < 512 && path.find('\0') == std::string::npos) probe->file(place(path), text);
  }
  frameworks::PythonView view;
  view.interpreter = python::Interpreter{3, 11, "/env/bin/python3.11", "/env", "/env"};
  view.launch.pythonpath = part[0];
  view.launch.home = "/home/u";
  view.launch.cwd = "/work";
  view.probe = probe;
  view.sys_path = python::build_sys_path(view.interpreter, view.launch, *probe);
  (void)frameworks::any_framework_importable(view);
  for (const auto& f : frameworks::find_frameworks(frameworks::embedded_recipes(), view)) {
    FUZZ_CHECK(f.framework != nullptr && !f.package_dir.empty());
    (void)f.label();
  }
  for (const auto& lib : frameworks::nvidia_libraries_outside(view, "/env"))
    FUZZ_CHECK(lib.site != "/env" && !lib.site.starts_with("/env/") && !lib.file.empty());
  return 0;
}
