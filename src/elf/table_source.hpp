#pragma once
// Where bytes of a file are read from besides its map: a copy of
// [offset, offset + out.size()) into `out`, false when that cannot be had
// (the file changed, a read failed), and the map is read instead. The system
// layer gives pread(2) of the very file mapped, so either way the bytes are
// the same.
//
// Why: on the 2-core VM each page fault costs 25 to 35 microseconds, a read
// of the same 4 KiB about one (README "Benchmarks"). Walking 30 MB of
// relocation tables through a map faults in every page (load_checks); parsing
// a library's dynamic section and the names it gives faults in two pages far
// from the ones symbol lookups read (ElfObject::parse).
#include <cstdint>
#include <span>

namespace condacuda::elf {

class TableSource {
public:
  virtual ~TableSource() = default;
  virtual bool copy(std::uint64_t offset, std::span<std::byte> out) const = 0;
};

} // namespace condacuda::elf
