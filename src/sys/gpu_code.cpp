#include "sys/gpu_code.hpp"

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

std::optional<inventory::GpuCode> read_gpu_code(const std::string& path) {
  auto bytes = map_file(path);
  if (!bytes) return std::nullopt;
  auto summary = elf::read_fatbins(elf::ByteReader(bytes->data));
  if (!summary || !summary->has_section) return std::nullopt;
  return gpu_code_of(*summary);
}

void add_gpu_code(inventory::Inventory& inv, const std::string& prefix) {
  for (auto& lib : inv.libraries) lib.gpu_code = read_gpu_code(prefix + "/" + lib.file);
  for (auto& c : inv.consumers) c.gpu_code = read_gpu_code(prefix + "/" + c.file);
}

} // namespace condacuda::sys
