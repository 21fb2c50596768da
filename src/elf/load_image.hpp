#pragma once
// The process image glibc's _dl_map_segments (elf/dl-map-segments.h) makes
// of a shared object, at load bias 0, as elf/load_checks.cpp walks it: the
// first load command maps the whole reservation from the file, a hole
// between commands becomes PROT_NONE, the other commands are mapped over it,
// the tail of each command's last file page is zeroed and its bss mapped
// anonymous. File pages past the end of the file fault (SIGBUS). Every read
// of the file goes through the one bounds-checked reader.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "elf/byte_reader.hpp"

namespace condacuda::elf {

class LoadImage {
public:
  enum class Fault { none, unmapped, past_file, read_only };
  static constexpr std::uint32_t pf_x = 1, pf_w = 2, pf_rwx = 7;

  LoadImage(ByteReader file, std::uint64_t page) : file_(file), page_(page) {}

  // Building, in _dl_map_segments' order; seal() when done.
  void map(std::uint64_t start, std::uint64_t end, std::uint32_t flags, bool from_file, std::uint64_t offset) {
    regions_.push_back({start, end, flags, from_file, offset});
  }
  void zero(std::uint64_t start, std::uint64_t end) { zeroed_.emplace_back(start, end); }
  // Flattens the regions into disjoint pieces, each with the region on top,
  // for lookups by binary search.
  void seal();
  // The whole image of the file's PT_LOAD commands, mapped as above and
  // sealed: what elf/load_checks.cpp's map_segments builds, without the
  // refusals and crashes it reports on the way (check_load says those), for
  // readers of what ld.so reads in memory (ElfObject's dynamic section).
  // False, nothing mapped, when the program headers cannot be read or hold no
  // PT_LOAD.
  bool map_program_headers();
  // DT_TEXTREL: _dl_relocate_object makes every load command writable.
  void make_loads_writable() { textrel_ = true; }

  // What touching [addr, addr + n) meets (n <= 64: at most two pages).
  Fault touch(std::uint64_t addr, std::uint64_t n, bool write) const;
  // n (<= 8) bytes at addr, little-endian, or nullopt when they fault.
  std::optional<std::uint64_t> read(std::uint64_t addr, std::uint64_t n) const;
  // [addr, addr + n) in place, when one region maps them from inside the
  // file and nothing zeroed them; else nullopt (read() still may).
  std::optional<std::span<const std::byte>> file_span(std::uint64_t addr, std::uint64_t n) const;
  // Where in the file file_span(addr, n) lies, computed without reading it.
  std::optional<std::uint64_t> file_offset(std::uint64_t addr, std::uint64_t n) const;
  // Whether some byte of [addr, addr + n) (n <= 64) is mapped from the file
  // but lies past its end: inside the file's last page it reads as zero.
  bool past_end_of_file(std::uint64_t addr, std::uint64_t n) const;
  // The NUL-terminated string at addr, when it can be read whole.
  std::optional<std::string> string_at(std::uint64_t addr) const;
  // The string at addr read in place, when the file's bytes hold it whole
  // (not zeroed, NUL inside the region); else nullopt (string_at still may).
  std::optional<std::string_view> string_in_file(std::uint64_t addr) const;
  bool string_readable(std::uint64_t addr) const;

  bool mapped(std::uint64_t addr) const { return at(addr) != nullptr; }
  // Code of the object: executable, from the file, not zeroed.
  bool executable(std::uint64_t addr) const;
  // The run of addresses around addr that writes reach without a fault: a
  // cache for the writes of relocation, which come by the hundred thousand.
  std::pair<std::uint64_t, std::uint64_t> writable_run(std::uint64_t addr) const;

private:
  struct Region {
    std::uint64_t start, end;
    std::uint32_t flags;  // p_flags; none of R, W, X: PROT_NONE
    bool from_file;
    std::uint64_t offset; // file offset of `start`
  };
  struct Piece {
    std::uint64_t start, end;
    const Region* region;
  };

  const Region* at(std::uint64_t a) const;
  // Where the addresses from `a` on stop being `r`'s, the region at(a) found
  // on top: a later region mapped over it (the PROT_NONE hole after the
  // first command's pages, another command) ends what is read of r in place.
  std::uint64_t top_end(std::uint64_t a, const Region& r) const;
  const Region* top_at(std::uint64_t a) const;
  Fault touch_byte(std::uint64_t a, bool write) const;
  std::uint8_t byte(std::uint64_t a) const;
  bool zeroed(std::uint64_t a) const;
  std::uint64_t file_pages() const { return (file_.size() + page_ - 1) & ~(page_ - 1); }

  ByteReader file_;
  std::uint64_t page_;
  std::vector<Region> regions_;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> zeroed_;
  bool textrel_ = false;
  std::vector<Piece> flat_;            // after seal()
  mutable const Piece* last_ = nullptr; // reads come in runs: the last piece found
};

} // namespace condacuda::elf
