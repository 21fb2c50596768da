// libFuzzer target: the ELF reader (src/elf) on arbitrary bytes.
//
// README: the same target runs two ways. In every build, fuzz_elf_replay
// replays a seed corpus made at test time plus deterministic mutations of it
// (CTest unit.fuzz_replay, tests/fuzz/replay.sh). With clang and libFuzzer:
//   cmake -S . -B build-libfuzzer -G Ninja -DCONDACUDA_FUZZ=ON -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14
//   ninja -C build-libfuzzer fuzz_elf fuzz_ld_so_cache
//   tests/fuzz/make_seeds.sh /tmp/seeds      # seeds/elf and seeds/cache
//   build-libfuzzer/tests/fuzz_elf -max_total_time=120 /tmp/corpus-elf /tmp/seeds/elf
//
// Besides "no crash, no over-read, no undefined behaviour" the target checks
// the reader's own promises and traps when one breaks: errors carry a message,
// undefined-symbol indices are in range, a lookup never visits more
// symbols than the table holds (a chain walk that does not stop), the
// load checks (elf/load_checks.hpp) give a reason with every verdict but ok,
// and every fatbin entry read (elf/fatbin.hpp) fits in the input; what a
// parse, a header check and the load checks say is the same read through a
// copy source (elf/table_source.hpp, the system layer's pread) as through
// the bytes themselves.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "elf/elf_constants.hpp"
#include "elf/elf_object.hpp"
#include "elf/fatbin.hpp"
#include "elf/load_checks.hpp"
#include "../unit/support/bytes_source.hpp"

namespace {

namespace elf = condacuda::elf;

void check(bool ok) {
  if (!ok) __builtin_trap();
}

void exercise(const elf::ElfObject& o) {
  (void)o.dynamic();
  for (const auto& d : o.version_definitions()) (void)d.name.size();
  for (const auto& n : o.version_needs())
    for (const auto& e : n.entries) (void)e.name.size();
  if (!o.has_symbols()) return;
  const std::uint32_t count = o.symbol_count();
  std::vector<std::string_view> names = {"", "a", "main", "printf", "cudaMalloc", "__nvJitLinkAddData_12_1"};
  for (std::uint32_t i = 0; i < count && i < 4096; ++i) {
    auto s = o.symbol(i);
    if (s && names.size() < 256) names.push_back(s->name);
  }
  (void)o.symbol(count);
  for (std::uint32_t index : o.undefined_symbols()) {
    check(index < count);
    if (auto s = o.symbol(index); s && names.size() < 512) names.push_back(s->name);
  }
  for (std::string_view name : names) {
    std::uint64_t visits = 0;
    o.for_each_named(name, [&](std::uint32_t i, const elf::Symbol& s) {
      check(i < count && s.name == name);
      ++visits;
      return true;
    });
    check(visits <= std::uint64_t{count} + 1);
  }
  for (const auto& ref : o.relocation_order()) (void)o.symbol(ref.symbol);
}

// What a parse says of the dynamic section, or its error.
std::string dynamic_facts(const condacuda::Result<std::shared_ptr<const elf::ElfObject>>& parsed) {
  if (!parsed) return "error " + parsed.error().message;
  const elf::DynamicInfo& d = (*parsed)->dynamic();
  std::string out = d.soname ? "soname " + std::string(*d.soname) : "no soname";
  for (auto v : {d.rpath, d.runpath}) out += v ? "|" + std::string(*v) : "|-";
  for (const auto& list : {d.needed, d.filters, d.auxiliaries})
    for (auto n : list) out += "|" + std::string(n);
  return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Not owned: the buffer outlives the call's objects.
  elf::FileBytes bytes{nullptr, std::span<const std::byte>(reinterpret_cast<const std::byte*>(data), size)};
  // The load checks of a file whose header passes (as the loader model runs
  // them): an outcome, and a reason with every refusal or crash.
  const fixture::BytesSource copies(std::vector<std::byte>(bytes.data.begin(), bytes.data.end()), false);
  const elf::HeaderCheck header = elf::verify_header(bytes.data, elf::em_x86_64);
  const elf::HeaderCheck copied_header = elf::verify_header(bytes.data, elf::em_x86_64, &copies);
  check(header.verdict == copied_header.verdict && header.abi_tag.read == copied_header.abi_tag.read &&
        header.abi_tag.version == copied_header.abi_tag.version && header.abi_tag.os == copied_header.abi_tag.os);
  if (header.verdict == elf::HeaderVerdict::ok) {
    auto load = elf::check_load(bytes.data, elf::em_x86_64, 4096, std::uint64_t{1} << 34);
    check(load.ok() == load.reason.empty());
    auto copied_load = elf::check_load(bytes.data, elf::em_x86_64, 4096, std::uint64_t{1} << 34, 36, &copies);
    check(copied_load.outcome == load.outcome && copied_load.reason == load.reason);
  }
  // The fatbin reader (elf/fatbin.hpp): through the section headers, and on
  // the bytes as a .nv_fatbin section; every entry it reports fits the input.
  const elf::ByteReader whole(bytes.data);
  if (auto fat = elf::read_fatbins(whole))
    for (const auto& e : fat->entries) check(e.payload_size <= size);
  auto section = elf::read_fatbin_section(whole);
  check(section.entries.size() <= size / 64 + 1);
  for (const auto& e : section.entries) check(e.payload_size <= size && !elf::target_name(e).empty());
  for (bool with_symbols : {false, true}) {
    auto parsed = elf::ElfObject::parse(bytes, with_symbols);
    check(dynamic_facts(elf::ElfObject::parse(bytes, with_symbols, &copies)) == dynamic_facts(parsed));
    if (!parsed) {
      check(!parsed.error().message.empty());
      continue;
    }
    exercise(**parsed);
  }
  return 0;
}
