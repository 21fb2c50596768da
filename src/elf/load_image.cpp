#include "elf/load_image.hpp"

#include <algorithm>
#include <cstring>

namespace condacuda::elf {

namespace {
// A string longer than this is not read on (a hostile table of no NUL).
constexpr std::uint64_t max_string = 1u << 22;
constexpr std::uint32_t pt_load = 1;
} // namespace

bool LoadImage::map_program_headers() {
  // The load commands as _dl_map_object_from_fd (elf/dl-load.c) records them
  // and the mappings _dl_map_segments (elf/dl-map-segments.h) makes, ET_DYN:
  // the first command maps the whole reservation from the file, a hole
  // between commands becomes PROT_NONE, the others are mapped over it, the
  // tail of each last file page is zeroed and the bss mapped anonymous.
  struct Command {
    std::uint64_t mapstart, mapend, dataend, allocend, mapoff;
    std::uint32_t flags;
  };
  auto down = [this](std::uint64_t v) { return v & ~(page_ - 1); };
  auto up = [this](std::uint64_t v) { return (v + page_ - 1) & ~(page_ - 1); };
  auto phoff = file_.u64(32);
  auto phnum = file_.u16(56);
  if (!phoff || !phnum || !file_.has(*phoff, 56ull * *phnum)) return false;
  std::vector<Command> loads;
  bool has_holes = false;
  for (std::uint16_t i = 0; i < *phnum; ++i) {
    std::uint64_t p = *phoff + 56ull * i;
    if (*file_.u32(p) != pt_load) continue;
    std::uint64_t offset = *file_.u64(p + 8), vaddr = *file_.u64(p + 16), filesz = *file_.u64(p + 32),
                  memsz = *file_.u64(p + 40);
    Command c{down(vaddr), up(vaddr + filesz), vaddr + filesz, vaddr + memsz, down(offset), *file_.u32(p + 4)};
    if (!loads.empty() && loads.back().mapend != c.mapstart) has_holes = true;
    loads.push_back(c);
  }
  if (loads.empty()) return false;
  const Command& first = loads.front();
  const Command& last = loads.back();
  map(first.mapstart, last.allocend, first.flags, true, first.mapoff);
  if (has_holes) map(first.mapend, last.mapstart, 0, false, 0);
  for (std::size_t i = 0; i < loads.size(); ++i) {
    const Command& c = loads[i];
    if (i > 0 && c.mapend > c.mapstart) map(c.mapstart, c.mapend, c.flags, true, c.mapoff);
    if (c.allocend <= c.dataend) continue;
    std::uint64_t zeropage = std::min(up(c.dataend), c.allocend);
    if (zeropage > c.dataend) zero(c.dataend, zeropage);
    if (c.allocend > zeropage) map(zeropage, c.allocend, c.flags, false, 0);
  }
  seal();
  return true;
}

void LoadImage::seal() {
  std::vector<std::uint64_t> cuts;
  for (const auto& r : regions_) cuts.insert(cuts.end(), {r.start, r.end});
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i)
    if (const Region* r = top_at(cuts[i])) {
      if (!flat_.empty() && flat_.back().region == r && flat_.back().end == cuts[i]) flat_.back().end = cuts[i + 1];
      else flat_.push_back({cuts[i], cuts[i + 1], r});
    }
  last_ = nullptr;
}

const LoadImage::Region* LoadImage::top_at(std::uint64_t a) const {
  for (auto it = regions_.rbegin(); it != regions_.rend(); ++it)
    if (a >= it->start && a < it->end) return &*it;
  return nullptr;
}

const LoadImage::Region* LoadImage::at(std::uint64_t a) const {
  if (flat_.empty()) return top_at(a);
  if (last_ && a >= last_->start && a < last_->end) return last_->region;
  auto it = std::upper_bound(flat_.begin(), flat_.end(), a, [](std::uint64_t v, const Piece& p) { return v < p.start; });
  if (it == flat_.begin()) return nullptr;
  --it;
  if (a >= it->end) return nullptr;
  last_ = &*it;
  return it->region;
}

bool LoadImage::zeroed(std::uint64_t a) const {
  return std::any_of(zeroed_.begin(), zeroed_.end(), [a](const auto& z) { return a >= z.first && a < z.second; });
}

LoadImage::Fault LoadImage::touch_byte(std::uint64_t a, bool write) const {
  const Region* r = at(a);
  if (!r || (r->flags & pf_rwx) == 0) return Fault::unmapped;
  if (r->from_file) {
    std::uint64_t off = r->offset + (a - r->start);
    if (off < r->offset || off >= file_pages()) return Fault::past_file;
  }
  if (write && !(r->flags & pf_w) && !textrel_) return Fault::read_only;
  return Fault::none;
}

LoadImage::Fault LoadImage::touch(std::uint64_t addr, std::uint64_t n, bool write) const {
  if (n == 0) return Fault::none;
  if (addr + n < addr) return Fault::unmapped;
  if (auto f = touch_byte(addr, write); f != Fault::none) return f;
  return touch_byte(addr + n - 1, write);
}

std::uint8_t LoadImage::byte(std::uint64_t a) const {
  if (zeroed(a)) return 0;
  const Region* r = at(a);
  if (!r || !r->from_file) return 0;
  auto b = file_.u8(r->offset + (a - r->start));
  return b ? *b : 0; // past the end of the file within its last page: zeros
}

std::uint64_t LoadImage::top_end(std::uint64_t a, const Region& r) const {
  if (!flat_.empty()) {
    at(a); // leaves last_ on a's piece (r is at(a))
    return last_->end;
  }
  std::uint64_t end = r.end;
  for (auto it = regions_.rbegin(); &*it != &r; ++it)
    if (it->start > a && it->start < end) end = it->start;
  return end;
}

std::optional<std::uint64_t> LoadImage::file_offset(std::uint64_t addr, std::uint64_t n) const {
  const Region* r = at(addr);
  if (!r || (r->flags & pf_rwx) == 0 || !r->from_file || addr + n < addr || addr + n > top_end(addr, *r))
    return std::nullopt;
  for (const auto& z : zeroed_)
    if (addr < z.second && addr + n > z.first) return std::nullopt;
  std::uint64_t off = r->offset + (addr - r->start);
  if (off < r->offset || !file_.has(off, n)) return std::nullopt;
  return off;
}

std::optional<std::span<const std::byte>> LoadImage::file_span(std::uint64_t addr, std::uint64_t n) const {
  auto off = file_offset(addr, n);
  if (!off) return std::nullopt;
  return file_.bytes(*off, n);
}

bool LoadImage::past_end_of_file(std::uint64_t addr, std::uint64_t n) const {
  for (std::uint64_t a = addr; a - addr < n; ++a) {
    const Region* r = at(a);
    if (r && r->from_file && !zeroed(a)) {
      std::uint64_t off = r->offset + (a - r->start);
      if (off < r->offset || off >= file_.size()) return true;
    }
  }
  return false;
}

std::optional<std::uint64_t> LoadImage::read(std::uint64_t addr, std::uint64_t n) const {
  std::uint64_t v = 0;
  if (auto bytes = file_span(addr, n)) { // the common case: read in place
    std::memcpy(&v, bytes->data(), static_cast<std::size_t>(n));
    return v;
  }
  if (touch(addr, n, false) != Fault::none) return std::nullopt;
  for (std::uint64_t i = 0; i < n; ++i) v |= static_cast<std::uint64_t>(byte(addr + i)) << (8 * i);
  return v;
}

std::optional<std::string_view> LoadImage::string_in_file(std::uint64_t addr) const {
  if (!file_span(addr, 1)) return std::nullopt;
  const Region* r = at(addr);
  std::uint64_t off = r->offset + (addr - r->start);
  std::uint64_t end = std::min<std::uint64_t>(file_.size(), r->offset + (top_end(addr, *r) - r->start));
  for (const auto& z : zeroed_)
    if (z.first > addr) end = std::min(end, r->offset + (z.first - r->start));
  return file_.cstring(off, end);
}

std::optional<std::string> LoadImage::string_at(std::uint64_t addr) const {
  if (auto text = string_in_file(addr)) return std::string(*text);
  std::string out;
  for (std::uint64_t i = 0; i < max_string; ++i) {
    if (touch(addr + i, 1, false) != Fault::none) return std::nullopt;
    auto c = static_cast<char>(byte(addr + i));
    if (c == 0) return out;
    out.push_back(c);
  }
  return std::nullopt;
}

bool LoadImage::string_readable(std::uint64_t addr) const {
  if (string_in_file(addr)) return true;
  for (std::uint64_t i = 0; i < max_string; ++i) {
    if (touch(addr + i, 1, false) != Fault::none) return false;
    if (byte(addr + i) == 0) return true;
  }
  return false;
}

bool LoadImage::executable(std::uint64_t addr) const {
  // Zero-fill holds no code: executing zeros faults.
  const Region* r = at(addr);
  return r && (r->flags & pf_x) && r->from_file && !zeroed(addr) && touch(addr, 1, false) == Fault::none;
}

std::pair<std::uint64_t, std::uint64_t> LoadImage::writable_run(std::uint64_t addr) const {
  if (touch(addr, 1, true) != Fault::none || flat_.empty()) return {0, 0};
  at(addr); // sets last_
  const Piece& p = *last_;
  std::uint64_t start = p.start, end = p.end;
  if (p.region->from_file) {
    // Cut where the file's pages end: writes past them fault (SIGBUS).
    std::uint64_t pages = file_pages();
    end = std::min(end, p.region->start + (pages > p.region->offset ? pages - p.region->offset : 0));
  }
  return addr >= start && addr < end ? std::make_pair(start, end) : std::make_pair(addr, addr);
}

} // namespace condacuda::elf
