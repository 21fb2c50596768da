#include "elf/load_checks.hpp"

#include <array>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "elf/byte_reader.hpp"
#include "elf/elf_constants.hpp"
#include "elf/elf_object.hpp"
#include "elf/load_image.hpp"

namespace condacuda::elf {

namespace {
constexpr std::uint32_t pf_x = LoadImage::pf_x, pf_w = LoadImage::pf_w;
// check_match's ALLOWED_STT (elf/dl-lookup.c): the symbol types a lookup takes.
constexpr unsigned allowed_stt = (1u << stt_notype) | (1u << stt_object) | (1u << stt_func) | (1u << stt_common) |
                                 (1u << stt_tls) | (1u << stt_gnu_ifunc);
bool lookup_takes(std::uint8_t type) { return type < 16 && ((1u << type) & allowed_stt) != 0; }
// A mapping past the user address space of x86-64 (47 bits) cannot be made.
constexpr std::uint64_t max_mapping = 1ull << 47;
// The largest mapping without MAP_FIXED (the reservation _dl_map_segments
// asks for) that the kernel surely places: the largest free gap of a PIE
// process's address space lies below the executable, which load_elf_binary
// puts at ELF_ET_DYN_BASE (2/3 of the 47-bit space, 0x555555554aaa) plus a
// random offset; above mmap_min_addr (64 KiB) that leaves 0x555555544000
// bytes. A larger one fails or not by where the executable landed (E10: on
// Debian 12 a PROT_NONE mmap of 0x500000000000 bytes succeeds, one of
// 0x600000000000 fails); the model calls it a refusal.
constexpr std::uint64_t max_reservation = 0x555555544000ull;
// Bounds the work a hostile file can ask for: dynamic entries, relocations,
// version records, string bytes. The loader would fault long before.
constexpr std::uint64_t max_steps = 1u << 22;
// A relocation table is walked in pieces of this many entries (192 KiB): a
// buffer that stays in the cache and is filled again, not a new map's pages.
constexpr std::uint64_t table_piece_entries = 8192;
// The most a far piece of the file (section headers, their names) is copied
// for; a larger one (a hostile count) is read in place.
constexpr std::uint64_t max_far_piece = 1u << 20;

using Outcome = LoadCheck::Outcome;
LoadCheck refuse(std::string why) { return {Outcome::refuses, std::move(why)}; }
LoadCheck crash(const std::string& why) { return {Outcome::crashes, "ld.so would crash: " + why}; }

struct LoadCommand {
  std::uint64_t mapstart, mapend, dataend, allocend, mapoff;
  std::uint32_t flags;
};

using Image = LoadImage;

const char* fault_words(Image::Fault f) {
  switch (f) {
  case Image::Fault::unmapped: return "outside the mapped image (SIGSEGV)";
  case Image::Fault::past_file: return "in a page past the end of the file (SIGBUS)";
  case Image::Fault::read_only: return "in a page that is not writable (SIGSEGV)";
  case Image::Fault::none: break;
  }
  return "";
}

std::uint64_t down(std::uint64_t v, std::uint64_t page) { return v & ~(page - 1); }
std::uint64_t up(std::uint64_t v, std::uint64_t page) { return (v + page - 1) & ~(page - 1); }

// The dynamic section as elf_get_dynamic_info (elf/get-dynamic-info.h) reads
// it: entries in memory up to DT_NULL, the last of a tag winning.
struct Dynamic {
  std::map<std::int64_t, std::uint64_t> value;
  std::map<std::int64_t, std::uint64_t> entry_at; // address of the entry that won
  std::vector<std::uint64_t> needed;
  bool has(std::int64_t tag) const { return value.count(tag) != 0; }
  std::uint64_t get(std::int64_t tag) const { return value.at(tag); }
};

class Checker {
public:
  Checker(const ByteReader& file, std::uint16_t machine, std::uint64_t page, std::uint64_t commit_limit,
          int glibc_minor, const TableSource* tables)
      : file_(file), machine_(machine), page_(page), commit_limit_(commit_limit), image_(file_, page),
        glibc_minor_(glibc_minor), tables_(tables) {}

  LoadCheck run() {
    for (auto step : {&Checker::load_commands, &Checker::map_segments, &Checker::dynamic_info, &Checker::hash_table,
                      &Checker::dependency_names, &Checker::version_records, &Checker::relocations,
                      &Checker::relro, &Checker::initialisers}) {
      LoadCheck c = (this->*step)();
      if (!c.ok()) return c;
    }
    return {};
  }

private:
  // _dl_map_object_from_fd (elf/dl-load.c): the program headers' refusals.
  LoadCheck load_commands() {
    std::uint64_t phoff = *file_.u64(32);
    std::uint16_t phnum = *file_.u16(56);
    if (!file_.has(phoff, 56ull * phnum)) return refuse("cannot read file data");
    bool empty_dynamic = false;
    for (std::uint16_t i = 0; i < phnum; ++i) {
      std::uint64_t p = phoff + 56ull * i;
      std::uint32_t type = *file_.u32(p), flags = *file_.u32(p + 4);
      std::uint64_t offset = *file_.u64(p + 8), vaddr = *file_.u64(p + 16), filesz = *file_.u64(p + 32),
                    memsz = *file_.u64(p + 40);
      if (type == pt_dynamic) {
        if (filesz == 0) empty_dynamic = true; // separate debuginfo
        else {
          dynamic_ = vaddr;
          dynamic_flags_ = flags;
        }
      } else if (type == pt_load) {
        std::uint64_t align = *file_.u64(p + 48);
        if (glibc_minor_ <= 34) {
          // [<= 2.34] p_align a page multiple, p_vaddr - p_offset a multiple of
          // it (a p_align of 0 only with p_vaddr == p_offset); glibc commit
          // 163f625cf9 (2.35, BZ #28688) dropped both for the page test below.
          if ((align & (page_ - 1)) != 0) return refuse("ELF load command alignment not page-aligned");
          if (((vaddr - offset) & (align - 1)) != 0)
            return refuse("ELF load command address/offset not properly aligned");
        } else if (((vaddr - offset) & (page_ - 1)) != 0) {
          return refuse("ELF load command address/offset not page-aligned");
        }
        // p_align_max: the largest power-of-two p_align (powerof2 (0) holds, and is no maximum).
        if ((align & (align - 1)) == 0 && align > p_align_max_) p_align_max_ = align;
        LoadCommand c{down(vaddr, page_), up(vaddr + filesz, page_), vaddr + filesz, vaddr + memsz, down(offset, page_), flags};
        if (!loads_.empty() && loads_.back().mapend != c.mapstart) has_holes_ = true;
        // The gABI orders load commands by address; ld.so relies on it
        // (maplength spans first to last) without checking: one that reaches
        // into the next has its memory mapped over.
        if (!loads_.empty() && loads_.back().allocend > vaddr)
          overlap_ = true;
        loads_.push_back(c);
      } else if (type == pt_phdr) {
        phdr_ = vaddr;
      } else if (type == pt_gnu_relro) {
        relro_ = std::make_pair(vaddr, memsz);
      }
    }
    if (loads_.empty()) return refuse("object file has no loadable segments");
    if (*file_.u16(16) != et_dyn) return refuse("cannot dynamically load executable");
    // l_ld is the last non-empty PT_DYNAMIC's p_vaddr; 0 reads as none.
    if (!dynamic_ || *dynamic_ == 0 || empty_dynamic) return refuse("object file has no dynamic section");
    if (overlap_) return crash("load commands out of order or overlapping: one maps over another's memory");
    return {};
  }

  // Whether the kernel maps `len` bytes of the file from the page-aligned
  // `offset` (do_mmap, mm/mmap.c): the length is rounded up to pages, and
  // file_mmap_ok refuses (EOVERFLOW) an end past MAX_LFS_FILESIZE (2^63 - 1
  // on 64-bit) in whole pages. An offset past the end of the file is no
  // error: the pages are mapped and fault when touched (the image's
  // past_file), so a huge p_offset below that limit loads if nothing reads it.
  bool file_mmap_ok(std::uint64_t offset, std::uint64_t len) const {
    constexpr std::uint64_t max_lfs_filesize = 0x7fffffffffffffffull;
    len = up(len, page_);
    if (len == 0 || len > max_lfs_filesize) return false;
    return offset / page_ <= (max_lfs_filesize - len) / page_;
  }

  // _dl_map_segments (elf/dl-map-segments.h), ET_DYN.
  LoadCheck map_segments() {
    const LoadCommand& first = loads_.front();
    const LoadCommand& last = loads_.back();
    std::uint64_t maplength = last.allocend - first.mapstart;
    if (last.allocend <= first.mapstart || maplength > max_reservation || ((first.flags & pf_w) && maplength > commit_limit_))
      return refuse("failed to map segment from shared object");
    if (glibc_minor_ >= 35 && p_align_max_ > page_) {
      // [2.35+] _dl_map_segment: with a p_align above the page size, first an
      // anonymous PROT_NONE reservation of maplength + p_align (2 * p_align
      // when that is more), in which the file is then mapped aligned. Its
      // size wraps or exceeds the address space: mmap fails.
      std::uint64_t maplen = maplength >= p_align_max_ ? maplength + p_align_max_ : 2 * p_align_max_;
      if (maplen == 0 || maplen > max_reservation)
        return refuse("failed to map segment from shared object");
    }
    if (!file_mmap_ok(first.mapoff, maplength)) return refuse("failed to map segment from shared object");
    if (has_holes_ && last.mapstart < first.mapend) return refuse("ELF load command address/offset not page-aligned");
    image_.map(first.mapstart, first.mapstart + maplength, first.flags, true, first.mapoff);
    phnum_ = *file_.u16(56);
    if (has_holes_) image_.map(first.mapend, last.mapstart, 0, false, 0);
    for (std::size_t i = 0; i < loads_.size(); ++i) {
      const LoadCommand& c = loads_[i];
      if (i > 0 && c.mapend > c.mapstart) {
        if (c.mapend - c.mapstart > max_mapping || !file_mmap_ok(c.mapoff, c.mapend - c.mapstart))
          return refuse("failed to map segment from shared object");
        if (c.mapstart < first.mapstart || c.mapend > up(first.mapstart + maplength, page_))
          return crash("a load command maps over memory outside the object's reservation");
        image_.map(c.mapstart, c.mapend, c.flags, true, c.mapoff);
      }
      if (c.allocend <= c.dataend) continue;
      std::uint64_t zero = c.dataend, zeropage = std::min(up(c.dataend, page_), c.allocend);
      if (zeropage > zero) {
        // memset of the last file page's tail (made writable first when it is not).
        auto f = image_.touch(down(zero, page_), 1, false);
        if (f != Image::Fault::none)
          return crash(std::string("zeroing the tail of a segment's last file page ") + fault_words(f));
        image_.zero(zero, zeropage);
      }
      if (c.allocend > zeropage) {
        // A writable anonymous mapping is charged to the commit limit.
        if (c.allocend - zeropage > max_mapping || ((c.flags & pf_w) && c.allocend - zeropage > commit_limit_))
          return refuse("cannot map zero-fill pages");
        image_.map(zeropage, c.allocend, c.flags, false, 0);
      }
    }
    image_.seal();
    // A writable command whose file pages reach past the end of the file
    // (p_filesz raised over what was its bss): the mapping succeeds, and the
    // first touch of those pages, by ld.so or by the object's constructors
    // zeroing or filling their data through libc, dies of SIGBUS. Not every
    // such file is touched there before dlopen returns; the model calls it a
    // crash rather than risk a "loads" (E10).
    std::uint64_t file_end = up(file_.size(), page_);
    for (const LoadCommand& c : loads_)
      if ((c.flags & pf_w) && c.mapend > c.mapstart && c.mapoff + (c.mapend - c.mapstart) > file_end)
        return crash("a writable segment maps pages past the end of the file: touching its data faults (SIGBUS)");
    // l_phdr: PT_PHDR's address, else where a load command maps e_phoff
    // (_dl_postprocess_loadcmd), else a copy. _dl_map_object_from_fd reads
    // the program headers there once the segments are mapped (PT_NOTE,
    // PT_GNU_PROPERTY), and _dl_find_object again.
    std::optional<std::uint64_t> l_phdr = phdr_;
    std::uint64_t phoff = *file_.u64(32);
    for (const LoadCommand& c : loads_)
      if (!l_phdr && c.mapoff <= phoff && c.mapend - c.mapstart + c.mapoff >= phoff + 56ull * phnum_)
        l_phdr = c.mapstart + phoff - c.mapoff;
    if (l_phdr && phnum_ > 0 && (!image_.read(*l_phdr, 1) || !image_.read(*l_phdr + 56ull * phnum_ - 1, 1)))
      return crash("the program headers, where ld.so reads them in the image, are not readable");
    return {};
  }

  // elf_get_dynamic_info (elf/get-dynamic-info.h): read up to DT_NULL, then
  // the in-place relocation of its pointers and the assertions.
  LoadCheck dynamic_info() {
    // Its first entries copied in one read where the file holds them as the
    // map shows them (a page nothing else reads through the map: a fault
    // saved); the rest, if any, read in the image.
    std::array<std::byte, 64 * 16> copied;
    std::uint64_t in_copy = 0;
    if (tables_) {
      std::uint64_t n = copied.size();
      while (n >= 16 && !image_.file_offset(*dynamic_, n)) n /= 2;
      if (n >= 16 && tables_->copy(*image_.file_offset(*dynamic_, n), std::span(copied).first(n))) in_copy = n;
    }
    std::uint64_t steps = 0;
    for (std::uint64_t at = *dynamic_;; at += 16) {
      if (++steps > max_steps) return crash("the dynamic section has no DT_NULL");
      std::optional<std::uint64_t> tag, val;
      if (const std::uint64_t i = at - *dynamic_; i + 16 <= in_copy) {
        tag = ByteReader(copied.data(), in_copy).u64(i);
        val = ByteReader(copied.data(), in_copy).u64(i + 8);
      } else {
        tag = image_.read(at, 8);
        val = image_.read(at + 8, 8);
      }
      if (!tag || !val)
        return crash(std::string("the dynamic section, read up to its DT_NULL, runs ") +
                     fault_words(image_.touch(at, 16, false)));
      auto t = static_cast<std::int64_t>(*tag);
      if (t == dt_null) break;
      dyn_.value[t] = *val;
      dyn_.entry_at[t] = at;
      if (t == dt_needed) dyn_.needed.push_back(*val);
    }
    if (dynamic_flags_ & pf_w) {
      // dl_relocate_ld: a writable dynamic section has its pointers relocated in place.
      for (std::int64_t t : {dt_hash, dt_pltgot, dt_strtab, dt_symtab, dt_relr, dt_jmprel, dt_versym, dt_gnu_hash,
                             dt_rela, dt_rel}) {
        if (!dyn_.has(t) || ((t == dt_rela || t == dt_rel) && dyn_.get(t) == 0)) continue;
        if (auto f = image_.touch(dyn_.entry_at[t] + 8, 8, true); f != Image::Fault::none)
          return crash(std::string("relocating the dynamic section in place: it lies ") + fault_words(f));
      }
    }
    // ELF_MACHINE_NO_REL: x86-64 and AArch64 have only RELA relocations.
    if (dyn_.has(dt_pltrel) && dyn_.get(dt_pltrel) != static_cast<std::uint64_t>(dt_rela))
      return crash("Assertion `info[DT_PLTREL]->d_un.d_val == DT_RELA' failed");
    if (dyn_.has(dt_rela) && (!dyn_.has(dt_relaent) || dyn_.get(dt_relaent) != 24))
      return crash(dyn_.has(dt_relaent) ? "Assertion `info[DT_RELAENT]->d_un.d_val == sizeof (ElfW(Rela))' failed"
                                        : "DT_RELA without DT_RELAENT (a null pointer read)");
    if (dyn_.has(dt_relr) && (!dyn_.has(dt_relrent) || dyn_.get(dt_relrent) != 8))
      return crash(dyn_.has(dt_relrent) ? "Assertion `info[DT_RELRENT]->d_un.d_val == sizeof (ElfW(Relr))' failed"
                                        : "DT_RELR without DT_RELRENT (a null pointer read)");
    if (dyn_.has(dt_textrel) || (dyn_.has(dt_flags) && (dyn_.get(dt_flags) & df_textrel))) textrel_ = true;
    if (dyn_.has(dt_symtab)) symtab_ = dyn_.get(dt_symtab);
    if (dyn_.has(dt_strtab)) strtab_ = dyn_.get(dt_strtab);
    return {};
  }

  // _dl_setup_hash (elf/dl-setup_hash.c) reads the header of DT_GNU_HASH,
  // else of DT_HASH, and asserts the bloom filter's size is a power of two.
  // Every lookup in the object (do_lookup_x, elf/dl-lookup.c) then walks a
  // bucket's chain and compares the names of its symbols: each chain must end
  // inside the image, its symbols and names readable.
  LoadCheck hash_table() {
    if (dyn_.has(dt_gnu_hash)) {
      std::uint64_t at = dyn_.get(dt_gnu_hash);
      auto nbuckets = image_.read(at, 4), symbias = image_.read(at + 4, 4), nwords = image_.read(at + 8, 4),
           shift = image_.read(at + 12, 4);
      if (!nbuckets || !symbias || !nwords || !shift) return crash("DT_GNU_HASH points outside the mapped image");
      if ((*nwords & (*nwords - 1)) != 0)
        return crash("Assertion `(bitmask_nwords & (bitmask_nwords - 1)) == 0' failed");
      gnu_ = GnuTable{*nbuckets, *symbias, *nwords, *shift, at + 16, at + 16 + 8 * *nwords,
                      at + 16 + 8 * *nwords + 4 * *nbuckets - 4 * *symbias};
      return gnu_chains();
    }
    if (!dyn_.has(dt_hash)) return {};
    std::uint64_t at = dyn_.get(dt_hash);
    auto nbucket = image_.read(at, 4);
    if (!nbucket || !image_.read(at + 4, 4)) return crash("DT_HASH points outside the mapped image");
    sysv_ = SysvTable{*nbucket, at + 8, at + 8 + 4 * *nbucket};
    return sysv_chains();
  }

  struct Sym {
    std::uint32_t name;
    std::uint8_t info, other;
    std::uint16_t shndx;
    std::uint64_t value;
  };

  // Symbol `index` of DT_SYMTAB as the image holds it (read in place when
  // its 24 bytes are the file's), or nullopt when it is not readable.
  std::optional<Sym> sym_at(std::uint64_t index) const {
    std::uint64_t s = *symtab_ + 24 * index;
    if (auto b = image_.file_span(s, 24)) {
      Sym out;
      std::memcpy(&out.name, b->data(), 4);
      std::memcpy(&out.info, b->data() + 4, 1);
      std::memcpy(&out.other, b->data() + 5, 1);
      std::memcpy(&out.shndx, b->data() + 6, 2);
      std::memcpy(&out.value, b->data() + 8, 8);
      return out;
    }
    auto name = image_.read(s, 4), info = image_.read(s + 4, 1), other = image_.read(s + 5, 1),
         shndx = image_.read(s + 6, 2), value = image_.read(s + 8, 8);
    if (!name || !info || !other || !shndx || !value || !image_.read(s + 16, 8)) return std::nullopt;
    return Sym{static_cast<std::uint32_t>(*name), static_cast<std::uint8_t>(*info), static_cast<std::uint8_t>(*other),
               static_cast<std::uint16_t>(*shndx), *value};
  }

  // A symbol a chain leads to: its entry and, when it can match, its name.
  bool symbol_readable(std::uint64_t index) const {
    if (!symtab_) return true; // relocation faults first (relocations())
    auto sym = sym_at(index);
    if (!sym) return false;
    // check_match compares the name unless the value is 0 (and the symbol
    // neither absolute nor TLS) or the type is not one it takes.
    auto type = static_cast<std::uint8_t>(sym->info & 0xf);
    bool compared = (sym->value != 0 || sym->shndx == shn_abs || type == stt_tls) && lookup_takes(type);
    return !compared || string_at(sym->name);
  }

  // Whether a symbol a lookup can return (check_match takes a non-zero value,
  // even of an undefined symbol, for a non-PLT reference) lies in the object:
  // whatever binds to it reads or jumps there.
  bool symbol_inside(std::uint64_t index) const {
    if (!symtab_) return true;
    auto sym = sym_at(index);
    if (!sym) return false;
    return sym->value == 0 || sym->shndx == shn_abs || (sym->info & 0xf) == stt_tls || image_.mapped(sym->value);
  }

  LoadCheck gnu_chains() {
    if (gnu_->nbuckets == 0) return {}; // the object is skipped by every lookup
    if (gnu_->nwords == 0) return crash("an empty DT_GNU_HASH bloom filter is indexed past its end");
    if (!image_.read(gnu_->bitmask, 8) || !image_.read(gnu_->bitmask + 8 * (gnu_->nwords - 1), 8))
      return crash("the DT_GNU_HASH bloom filter lies outside the mapped image");
    // GNU chains are runs of consecutive entries: walked from each distinct
    // bucket start in order, every entry is read once.
    std::vector<std::uint64_t> starts;
    for (std::uint64_t b = 0; b < gnu_->nbuckets; ++b) {
      if (b > max_steps) return crash("DT_GNU_HASH has more buckets than the mapped image holds");
      auto first = image_.read(gnu_->buckets + 4 * b, 4);
      if (!first) return crash("the DT_GNU_HASH buckets lie outside the mapped image");
      if (*first != 0) starts.push_back(*first);
    }
    std::sort(starts.begin(), starts.end());
    std::uint64_t walked_to = 0, steps = 0; // entries below walked_to are done
    for (std::uint64_t i : starts) {
      for (i = std::max(i, walked_to); i != 0; ++i) {
        if (++steps > max_steps) return crash("a DT_GNU_HASH chain does not end");
        auto word = image_.read(gnu_->chain_zero + 4 * i, 4);
        if (!word) return crash("a DT_GNU_HASH chain runs outside the mapped image");
        if (!symbol_readable(i)) return crash("a DT_GNU_HASH chain leads to a symbol outside the mapped image");
        if (!symbol_inside(i)) return crash("a symbol lookups can bind to has an address outside the object");
        walked_to = i + 1;
        if (*word & 1) break;
      }
    }
    return {};
  }

  LoadCheck sysv_chains() {
    if (sysv_->nbucket == 0) return {};
    std::unordered_set<std::uint64_t> walked;
    for (std::uint64_t b = 0; b < sysv_->nbucket; ++b) {
      if (b > max_steps) return crash("DT_HASH has more buckets than the mapped image holds");
      auto i = image_.read(sysv_->buckets + 4 * b, 4);
      if (!i) return crash("the DT_HASH buckets lie outside the mapped image");
      std::unordered_set<std::uint64_t> chain;
      while (*i != 0) {
        // A chain that comes back to an entry loops for ever on a name it lacks.
        if (!chain.insert(*i).second) return crash("a DT_HASH chain loops: a lookup never ends");
        if (!walked.insert(*i).second && chain.size() > 1) break;
        if (!symbol_readable(*i)) return crash("a DT_HASH chain leads to a symbol outside the mapped image");
        if (!symbol_inside(*i)) return crash("a symbol lookups can bind to has an address outside the object");
        i = image_.read(sysv_->chains + 4 * *i, 4);
        if (!i) return crash("a DT_HASH chain runs outside the mapped image");
      }
    }
    return {};
  }

  std::optional<std::string> name_at(std::uint64_t offset) const {
    if (!strtab_) return std::nullopt;
    return image_.string_at(*strtab_ + offset);
  }

  // Whether the name at `offset` is `name`: compared in place where the
  // file's bytes hold it (no copy), else as the image reads it.
  bool name_is(std::uint64_t offset, std::string_view name) const {
    if (!strtab_) return false;
    if (auto text = image_.string_in_file(*strtab_ + offset)) return *text == name;
    return name_at(offset) == name;
  }

  // Whether do_lookup_x finds `name` among this object's own definitions
  // (bloom filter, bucket, chain; check_match's value and name tests).
  bool finds_own(std::string_view name) const {
    auto matches = [&](std::uint64_t index) {
      std::uint64_t s = dyn_.get(dt_symtab) + 24 * index;
      auto off = image_.read(s, 4), info = image_.read(s + 4, 1), shndx = image_.read(s + 6, 2),
           value = image_.read(s + 8, 8);
      if (!off || !info || !shndx || !value) return false;
      if ((*value == 0 && *shndx != shn_abs && (*info & 0xf) != stt_tls) || *shndx == shn_undef) return false;
      // check_match's ALLOWED_STT, then do_lookup_x takes global, weak and unique bindings only.
      auto type = static_cast<std::uint8_t>(*info & 0xf), bind = static_cast<std::uint8_t>(*info >> 4);
      if (!lookup_takes(type)) return false;
      if (bind != stb_global && bind != stb_weak && bind != stb_gnu_unique) return false;
      return name_is(*off, name);
    };
    if (gnu_) {
      if (gnu_->nbuckets == 0) return false;
      std::uint32_t h = gnu_hash(name);
      auto word = image_.read(gnu_->bitmask + 8 * ((h / 64) & (gnu_->nwords - 1)), 8);
      // new_hash is a 32-bit unsigned int: x86-64 takes the shift count modulo 32.
      if (!word || !(((*word >> (h % 64)) & (*word >> ((h >> (gnu_->shift & 31)) % 64))) & 1)) return false;
      auto bucket = image_.read(gnu_->buckets + 4 * (h % gnu_->nbuckets), 4);
      if (!bucket || *bucket == 0) return false;
      for (std::uint64_t i = *bucket, steps = 0; steps < max_steps; ++i, ++steps) {
        auto hv = image_.read(gnu_->chain_zero + 4 * i, 4);
        if (!hv) return false;
        if (((*hv ^ h) >> 1) == 0 && matches(i)) return true;
        if (*hv & 1) return false;
      }
      return false;
    }
    if (!sysv_ || sysv_->nbucket == 0) return false;
    auto i = image_.read(sysv_->buckets + 4 * (sysv_hash(name) % sysv_->nbucket), 4);
    for (std::uint64_t steps = 0; i && *i != 0 && steps < max_steps; ++steps) {
      if (matches(*i)) return true;
      i = image_.read(sysv_->chains + 4 * *i, 4);
    }
    return false;
  }

  bool string_at(std::uint64_t offset) const { return strtab_ && image_.string_readable(*strtab_ + offset); }

  // _dl_map_object_deps (elf/dl-deps.c) reads every DT_NEEDED name, and
  // matching names reads DT_SONAME; a search reads DT_RUNPATH/DT_RPATH.
  LoadCheck dependency_names() {
    for (auto off : dyn_.needed)
      if (!string_at(off)) return crash("a DT_NEEDED name lies outside the mapped image");
    for (std::int64_t t : {dt_soname, dt_runpath, dt_rpath})
      if (!dyn_.needed.empty() && dyn_.has(t) && !string_at(dyn_.get(t)))
        return crash("a DT_SONAME, DT_RUNPATH or DT_RPATH string lies outside the mapped image");
    return {};
  }

  // _dl_check_map_versions (elf/dl-version.c): the chains are followed by
  // their next links (the counts are not used); the highest index sizes the
  // version table relocations index.
  LoadCheck version_records() {
    if (!dyn_.has(dt_strtab)) return {};
    if (dyn_.has(dt_verneed)) {
      std::uint64_t ent = dyn_.get(dt_verneed);
      auto version = image_.read(ent, 2);
      if (!version) return crash("DT_VERNEED points outside the mapped image");
      if (*version != 1) return refuse("unsupported version " + std::to_string(*version) + " of Verneed record");
      for (std::uint64_t steps = 0;; ++steps) {
        auto file = image_.read(ent + 4, 4), aux_off = image_.read(ent + 8, 4), next = image_.read(ent + 12, 4);
        if (steps > max_steps || !file || !aux_off || !next || !string_at(*file))
          return crash("a version requirement lies outside the mapped image");
        for (std::uint64_t aux = ent + *aux_off;; ++steps) {
          auto name = image_.read(aux + 8, 4), other = image_.read(aux + 6, 2), anext = image_.read(aux + 12, 4);
          if (steps > max_steps || !name || !other || !anext || !string_at(*name))
            return crash("a version requirement entry lies outside the mapped image");
          versions_ = std::max<std::uint64_t>(versions_, (*other & 0x7fff) + 1);
          if (*anext == 0) break;
          aux += *anext;
        }
        if (*next == 0) break;
        ent += *next;
      }
    }
    if (dyn_.has(dt_verdef)) {
      std::uint64_t ent = dyn_.get(dt_verdef);
      for (std::uint64_t steps = 0;; ++steps) {
        auto ndx = image_.read(ent + 4, 2), aux = image_.read(ent + 12, 4), next = image_.read(ent + 16, 4);
        if (steps > max_steps || !ndx || !aux || !next || !image_.read(ent + *aux, 4))
          return crash("a version definition lies outside the mapped image");
        versions_ = std::max<std::uint64_t>(versions_, (*ndx & 0x7fff) + 1);
        if (*next == 0) break;
        ent += *next;
      }
    }
    if (versions_ == 1) versions_ = 0; // ndx_high 0: no table
    // With a table, l_versyms = D_PTR (map, l_info[DT_VERSYM]) is read unchecked.
    if (versions_ > 0 && !dyn_.has(dt_versym)) return crash("version records without DT_VERSYM (a null pointer read)");
    return {};
  }

  bool known_type(std::uint32_t type) const {
    if (machine_ != em_x86_64) return true;
    // elf_machine_rela (sysdeps/x86_64/dl-machine.h): the types it handles.
    constexpr std::uint64_t known = [] {
      std::uint64_t bits = 0;
      for (unsigned t : {0, 1, 2, 5, 6, 7, 8, 10, 16, 17, 18, 32, 33, 36, 37, 38}) bits |= std::uint64_t{1} << t;
      return bits;
    }();
    return type < 64 && ((known >> type) & 1) != 0;
  }

  // Keeps what relocation writes into the slots of DT_INIT_ARRAY and
  // DT_FINI_ARRAY (the only ones read back here).
  void note_slot(std::uint64_t slot, std::optional<std::uint64_t> value) {
    for (const auto& [start, end] : slot_ranges_)
      if (slot >= start && slot < end) {
        keep_write(slot, value);
        return;
      }
  }
  // Out of line: the test above runs for every relative relocation that lands
  // between the arrays and the PLT's slots (a library's .data.rel.ro and .got),
  // and stays small enough to inline into that loop.
  [[gnu::noinline]] void keep_write(std::uint64_t slot, std::optional<std::uint64_t> value) {
    writes_.push_back({slot, value});
  }

  // The writes noted in the order relocation made them, as a table by slot
  // where the last write to a slot is what it holds. Once, after the last
  // relocation: a library's thousands of PLT slots cost no node each.
  void settle_slots() {
    std::stable_sort(writes_.begin(), writes_.end(), [](const SlotWrite& a, const SlotWrite& b) { return a.slot < b.slot; });
    std::size_t kept = 0; // the last write of each slot, moved down in place
    for (std::size_t i = 0; i < writes_.size(); ++i)
      if (i + 1 == writes_.size() || writes_[i + 1].slot != writes_[i].slot) writes_[kept++] = writes_[i];
    writes_.resize(kept);
  }

  // What relocation left in `slot`: nullptr when no relocation wrote it.
  const std::optional<std::uint64_t>* relocated(std::uint64_t slot) const {
    auto it = std::lower_bound(writes_.begin(), writes_.end(), slot,
                               [](const SlotWrite& w, std::uint64_t s) { return w.slot < s; });
    return it != writes_.end() && it->slot == slot ? &it->value : nullptr;
  }

  LoadCheck write_at(std::uint64_t addr, const char* what) {
    if (addr >= writable_.first && addr + 8 <= writable_.second && addr + 8 > addr) return {};
    if (auto f = image_.touch(addr, 8, true); f != Image::Fault::none)
      return crash(std::string(what) + " writes " + fault_words(f));
    writable_ = image_.writable_run(addr);
    return {};
  }

  // One RELA entry as elf_dynamic_do_Rela (elf/do-rel.h) and elf_machine_rela apply it.
  LoadCheck relocate(std::uint64_t entry, bool relative_only, const std::byte* bytes = nullptr) {
    std::optional<std::uint64_t> offset, info, addend;
    if (bytes) {
      std::uint64_t v[3];
      std::memcpy(v, bytes, sizeof v);
      offset = v[0], info = v[1], addend = v[2];
    } else {
      offset = image_.read(entry, 8), info = image_.read(entry + 8, 8), addend = image_.read(entry + 16, 8);
    }
    if (!offset || !info || !addend) return crash("a relocation entry lies outside the mapped image");
    auto type = static_cast<std::uint32_t>(*info & 0xffffffffu);
    auto sym = static_cast<std::uint32_t>(*info >> 32);
    if (relative_only) {
      // DT_RELACOUNT's entries: elf_machine_rela_relative asserts their type.
      if (type != 8) return crash("Assertion `ELFW(R_TYPE) (reloc->r_info) == R_X86_64_RELATIVE' failed");
      note_slot(*offset, *addend);
      return write_at(*offset, "a relative relocation");
    }
    // The symbol's version index is read for every entry of this loop.
    std::optional<std::uint64_t> ndx;
    if (versym_) {
      ndx = image_.read(*versym_ + 2ull * sym, 2);
      if (!ndx) return crash("a relocation's symbol version lies outside the mapped image");
    }
    if (type == 8 || type == 38) {
      note_slot(*offset, *addend);
      return write_at(*offset, "a relative relocation");
    }
    if (type == 0) return {};
    auto symbol = sym_at(sym);
    if (!symbol) return crash("a relocation's symbol lies outside the mapped image");
    const bool global = (symbol->info >> 4) != stb_local && (symbol->other & 3) == stv_default;
    // An undefined symbol that binds locally is not looked up: its value is
    // the object's base, and whatever calls or reads it goes there.
    if (symbol->shndx == shn_undef && sym != 0 && !global)
      return crash("a relocation binds an undefined local symbol to the object's base");
    // A name past DT_STRSZ is read all the same: whatever lies there is
    // looked up, and is not defined (a weak reference stays 0).
    if (symbol->shndx == shn_undef && global && (symbol->info >> 4) != stb_weak && dyn_.has(dt_strsz) && symbol->name >= dyn_.get(dt_strsz))
      return refuse("undefined symbol: a name outside the string table");
    // RESOLVE_MAP (elf/dl-reloc.c): a symbol that binds locally is not looked up.
    if (global) {
      if (!string_at(symbol->name)) return crash("a relocation's symbol name lies outside the mapped image");
      // An empty name is looked up like any other, and nothing defines it.
      if (symbol->shndx == shn_undef && (symbol->info >> 4) != stb_weak && image_.read(*strtab_ + symbol->name, 1) == std::optional<std::uint64_t>(0))
        return refuse("undefined symbol: (an empty name)");
      // &l_versions[ndx]->hash: no table (ndx_high 0), or an index past it.
      if (ndx && (*ndx & 0x7fff) >= versions_) return crash("a relocation's symbol version index lies past the version table");
      // A definition of its own is looked up like any other: the object's
      // hash table must lead to it (a damaged one hides it).
      if (symbol->shndx != shn_undef && !own_found_.count(sym)) {
        const auto in_file = image_.string_in_file(*strtab_ + symbol->name);
        const std::string text = in_file ? std::string() : name_at(symbol->name).value_or("");
        const std::string_view name = in_file ? *in_file : std::string_view(text);
        if (!finds_own(name)) return refuse("undefined symbol: " + std::string(name));
        own_found_.insert(sym);
      }
    }
    // A definition bound to an address outside the object's image: whatever
    // uses it (a constructor, a caller) jumps or reads there.
    if (symbol->shndx != shn_undef && symbol->shndx != shn_abs && (symbol->info & 0xf) != stt_tls && symbol->value != 0 && !image_.mapped(symbol->value))
      return crash("a relocation binds a symbol whose address lies outside the object");
    if (!known_type(type)) {
      char hex[16];
      std::snprintf(hex, sizeof hex, "%x", type);
      return refuse(std::string("unexpected reloc type 0x") + hex);
    }
    note_slot(*offset, std::nullopt); // a symbol's address: not known here
    return write_at(*offset, "a relocation");
  }

  // One table as elf_dynamic_do_Rela (elf/do-rel.h) walks it: its first
  // `relative` entries relative, then every entry up to the end (a last entry
  // cut short included).
  LoadCheck relocate_range(std::uint64_t start, std::uint64_t size, std::uint64_t relative) {
    // A table inside the file's bytes is read straight from them.
    if (relative <= size / 24 && size % 24 == 0)
      if (auto table = image_.file_span(start, size); table && image_.file_offset(start, size)) {
        // In pieces copied from the table source where there is one (see
        // TableSource), else straight from the map; the same bytes either way.
        const std::uint64_t count = size / 24;
        const std::uint64_t at = *image_.file_offset(start, size);
        for (std::uint64_t first = 0; first < count; first += table_piece_entries) {
          const std::uint64_t n = std::min(table_piece_entries, count - first);
          const std::byte* entries = table->data() + 24 * first;
          if (tables_ && count >= table_piece_entries / 4) {
            if (!piece_) piece_.reset(new std::byte[24 * table_piece_entries]); // not zeroed: copied over
            if (tables_->copy(at + 24 * first, std::span<std::byte>(piece_.get(), 24 * n))) entries = piece_.get();
          }
          if (auto c = relocate_piece(start, first, n, relative, entries); !c.ok()) return c;
        }
        return {};
      }
    for (std::uint64_t i = 0; i < relative; ++i) {
      if (i > max_steps) return crash("DT_RELACOUNT larger than the mapped image");
      if (auto c = relocate(start + 24 * i, true); !c.ok()) return c;
    }
    std::uint64_t count = size / 24 + (size % 24 != 0);
    for (std::uint64_t i = relative; i < count; ++i) {
      if (i > max_steps) return crash("a relocation table larger than the mapped image");
      if (auto c = relocate(start + 24 * i, false); !c.ok()) return c;
    }
    return {};
  }

  // Entries first .. first + n of the table at `start`, their bytes at `entries`.
  LoadCheck relocate_piece(std::uint64_t start, std::uint64_t first, std::uint64_t n, std::uint64_t relative,
                           const std::byte* entries) {
    // The writable run known, in locals (write_at moves it): nothing else in
    // the loop changes it.
    std::uint64_t low = writable_.first, high = writable_.second;
    const std::uint64_t slots_low = slots_low_, slots_high = slots_high_;
    for (std::uint64_t k = 0; k < n; ++k) {
      const std::uint64_t i = first + k;
      const std::byte* e = entries + 24 * k;
      if (i < relative) {
        // The hot loop of a large library: relative entries by the
        // hundred thousand, checked in place (type, writable target).
        std::uint64_t v[3];
        std::memcpy(v, e, sizeof v);
        if ((v[1] & 0xffffffffu) != 8) {
          if (auto c = relocate(start + 24 * i, true, e); !c.ok()) return c;
          continue;
        }
        if (v[0] >= slots_low && v[0] < slots_high) note_slot(v[0], v[2]);
        if (v[0] >= low && v[0] + 8 <= high && v[0] + 8 > v[0]) continue;
        if (auto c = write_at(v[0], "a relative relocation"); !c.ok()) return c;
        low = writable_.first, high = writable_.second;
        continue;
      }
      if (auto c = relocate(start + 24 * i, false, e); !c.ok()) return c;
      low = writable_.first, high = writable_.second;
    }
    return {};
  }

  LoadCheck relr() {
    if (!dyn_.has(dt_relr)) return {};
    if (!dyn_.has(dt_relrsz)) return crash("DT_RELR without DT_RELRSZ (a null pointer read)");
    std::uint64_t base = 0;
    for (std::uint64_t i = 0; i < dyn_.get(dt_relrsz) / 8 + (dyn_.get(dt_relrsz) % 8 != 0); ++i) {
      if (i > max_steps) return crash("DT_RELRSZ larger than the mapped image");
      auto e = image_.read(dyn_.get(dt_relr) + 8 * i, 8);
      if (!e) return crash("a DT_RELR entry lies outside the mapped image");
      if ((*e & 1) == 0) {
        if (auto c = write_at(*e, "a DT_RELR relocation"); !c.ok()) return c;
        note_slot(*e, image_.read(*e, 8));
        base = *e + 8;
        continue;
      }
      for (std::uint64_t bits = *e >> 1, w = base; bits; bits >>= 1, w += 8)
        if (bits & 1) {
          if (auto c = write_at(w, "a DT_RELR relocation"); !c.ok()) return c;
          note_slot(w, image_.read(w, 8));
        }
      base += 63 * 8;
    }
    return {};
  }

  // _dl_relocate_object (elf/dl-reloc.c), RTLD_NOW: ELF_DYNAMIC_RELOCATE
  // (elf/dynamic-link.h) applies DT_RELR, then DT_RELA and DT_JMPREL as one
  // or two ranges; every range reads DT_SYMTAB first, even an empty one.
  LoadCheck relocations() {
    if (textrel_) image_.make_loads_writable();
    for (auto [array, size] : {std::pair{dt_init_array, dt_init_arraysz}, std::pair{dt_fini_array, dt_fini_arraysz}})
      if (dyn_.has(array)) {
        std::uint64_t n = dyn_.has(size) ? std::min<std::uint64_t>(dyn_.get(size), 8 * max_steps) : 0;
        slot_ranges_.emplace_back(dyn_.get(array), dyn_.get(array) + n);
      }
    if (dyn_.has(dt_versym)) versym_ = dyn_.get(dt_versym);
    // The PLT's GOT slots (x86-64: .got.plt from its fourth word, where the
    // section headers name it at DT_PLTGOT): each must be set by a relocation.
    if (auto at = section_address(".got.plt"); at && dyn_.has(dt_pltgot) && *at == dyn_.get(dt_pltgot))
      if (auto size = section_size(".got.plt"); size && *size > 24 && *size < 8 * max_steps)
        plt_slots_ = std::make_pair(*at + 24, *at + *size);
    if (plt_slots_) slot_ranges_.push_back(*plt_slots_);
    std::uint64_t slots = 0;
    for (const auto& [low, high] : slot_ranges_) {
      slots_low_ = std::min(slots_low_, low);
      slots_high_ = std::max(slots_high_, high);
      slots += (high - low) / 8;
    }
    writes_.reserve(std::min<std::uint64_t>(slots, 1u << 16)); // a slot is written once, as a rule
    if (!dyn_.has(dt_symtab)) return crash("relocation reads DT_SYMTAB, which is missing (a null pointer read)");
    if (auto c = relr(); !c.ok()) return c;
    struct Range {
      std::uint64_t start = 0, size = 0, relative = 0;
    } ranges[2];
    if (dyn_.has(dt_rela) && dyn_.get(dt_rela) != 0) {
      if (!dyn_.has(dt_relasz)) return crash("DT_RELA without DT_RELASZ (a null pointer read)");
      ranges[0] = {dyn_.get(dt_rela), dyn_.get(dt_relasz), dyn_.has(dt_relacount) ? dyn_.get(dt_relacount) : 0};
      // The relative ones are applied by count, the rest up to DT_RELASZ: a
      // size that ends among the relative ones skips every symbol relocation.
      if (ranges[0].relative > ranges[0].size / 24)
        return crash("DT_RELASZ ends before DT_RELACOUNT's relative relocations: the symbol relocations are never applied");
    }
    // Without DT_PLTREL, or with a DT_PLTRELSZ of 0, the PLT's relocations
    // are skipped: its GOT slots keep link-time addresses, and the first call
    // through the PLT jumps there.
    if (dyn_.has(dt_jmprel) && (!dyn_.has(dt_pltrel) || (dyn_.has(dt_pltrelsz) && dyn_.get(dt_pltrelsz) == 0)))
      return crash("DT_JMPREL's relocations are never applied (no DT_PLTREL, or DT_PLTRELSZ 0)");
    if (dyn_.has(dt_pltrel)) {
      if (!dyn_.has(dt_jmprel) || !dyn_.has(dt_pltrelsz))
        return crash("DT_PLTREL without DT_JMPREL or DT_PLTRELSZ (a null pointer read)");
      std::uint64_t start = dyn_.get(dt_jmprel), size = dyn_.get(dt_pltrelsz);
      if (ranges[0].start == 0) ranges[0].start = start;
      if (ranges[0].start + ranges[0].size == start + size) ranges[0].size -= size;
      if (ranges[0].start + ranges[0].size == start) ranges[0].size += size; // RTLD_NOW: one range
      else ranges[1] = {start, size, 0};
    }
    for (const Range& r : ranges)
      if (auto c = relocate_range(r.start, r.size, r.relative); !c.ok()) return c;
    settle_slots();
    if (plt_slots_)
      for (std::uint64_t slot = plt_slots_->first; slot + 8 <= plt_slots_->second; slot += 8)
        if (!relocated(slot))
          return crash("a PLT slot no relocation sets: a call through it jumps to a link-time address");
    return {};
  }

  // _dl_protect_relro (elf/dl-reloc.c): mprotect of unmapped pages fails.
  LoadCheck relro() {
    if (!relro_) return {};
    std::uint64_t start = down(relro_->first, page_), end = down(relro_->first + relro_->second, page_);
    if (end < start) return refuse("cannot apply additional memory protection after relocation");
    // RELRO made read-only over the object's own writable data (where the
    // section headers say .data and .bss are): the first write to it faults.
    for (const char* section : {".data", ".bss"})
      if (auto at = section_address(section); at && *at >= start && *at < end)
        return crash(std::string("PT_GNU_RELRO makes ") + section + " read-only: the first write to it faults");
    for (std::uint64_t a = start; a < end && a - start < max_mapping; a += page_)
      if (!image_.mapped(a)) return refuse("cannot apply additional memory protection after relocation");
    return {};
  }

  // An array of functions ld.so calls, as relocation left it.
  LoadCheck calls(std::int64_t array_tag, std::int64_t size_tag, const std::string& what) {
    if (!dyn_.has(array_tag)) return {};
    if (!dyn_.has(size_tag)) return crash(what + " without its size (a null pointer read)");
    std::uint64_t n = dyn_.get(size_tag) / 8;
    for (std::uint64_t i = 0; i < n; ++i) {
      if (i > max_steps) return crash(what + "'s size is larger than the mapped image");
      std::uint64_t slot = dyn_.get(array_tag) + 8 * i;
      if (image_.touch(slot, 8, false) != Image::Fault::none) return crash(what + " lies outside the mapped image");
      const std::optional<std::uint64_t>* r = relocated(slot);
      // Not relocated: the stored value is called as an absolute address.
      if (!r) return crash("an entry of " + what + " that no relocation sets is called as it is");
      if (*r && !image_.executable(**r)) return crash("an entry of " + what + " is not code of the object");
    }
    return {};
  }

  // call_init (elf/dl-init.c): DT_INIT, then DT_INIT_ARRAY; at exit _dl_fini
  // (elf/dl-fini.c): DT_FINI_ARRAY, then DT_FINI.
  // The address of the section named `name` when the file has section
  // headers that name it. ld.so never reads them; they only tell whether the
  // dynamic section contradicts the file's own layout.
  std::optional<std::uint64_t> section_address(const std::string& name) const { return section_field(name, 16); }
  std::optional<std::uint64_t> section_size(const std::string& name) const { return section_field(name, 32); }

  // A 64-bit field (sh_addr at 16, sh_size at 32) of the section named
  // `name`. The section headers and their names lie at the far end of the
  // file: read once, with the table source where there is one.
  std::optional<std::uint64_t> section_field(const std::string& name, std::uint64_t field) const {
    std::uint64_t shoff = *file_.u64(40);
    std::uint16_t shentsize = *file_.u16(58), shnum = *file_.u16(60), shstrndx = *file_.u16(62);
    if (shoff == 0 || shentsize != 64 || shstrndx >= shnum || !file_.has(shoff, 64ull * shnum)) return std::nullopt;
    const ByteReader headers = far_piece(shoff, 64ull * shnum, section_headers_);
    std::uint64_t names = *headers.u64(64ull * shstrndx + 24), names_size = *headers.u64(64ull * shstrndx + 32);
    const std::uint64_t in_file = names < file_.size() ? std::min(names_size, file_.size() - names) : 0;
    const ByteReader table = in_file ? far_piece(names, in_file, section_names_) : ByteReader();
    for (std::uint16_t i = 0; i < shnum; ++i) {
      const std::uint64_t sh = 64ull * i, at = *headers.u32(sh);
      // A name inside the table read from the copy; any other (an offset
      // that wraps, or runs past the file) as the file has it.
      auto n = at < in_file ? table.cstring(at, in_file) : file_.cstring(names + at, names + names_size);
      if (n && *n == name) return *headers.u64(sh + field);
    }
    return std::nullopt;
  }

  // [offset, offset + n) of the file (in range): a copy read with the table
  // source into `store` the first time, then the copy; in place where the
  // source has none or cannot read it. The same bytes either way.
  struct FarCopy {
    bool tried = false;
    std::vector<std::byte> bytes; // empty: none to be had
  };
  ByteReader far_piece(std::uint64_t offset, std::uint64_t n, FarCopy& copy) const {
    if (!copy.tried && tables_ && n <= max_far_piece) {
      copy.bytes.resize(n);
      if (!tables_->copy(offset, copy.bytes)) copy.bytes.clear();
    }
    copy.tried = true;
    if (!copy.bytes.empty() && copy.bytes.size() == n) return ByteReader(copy.bytes);
    return *file_.sub(offset, n);
  }

  // DT_INIT and DT_FINI are called at their address: code of the object, and
  // the start of .init/.fini where the section headers say where those are.
  LoadCheck entry_point(std::int64_t tag, const std::string& section, const std::string& what) {
    if (!dyn_.has(tag)) return {};
    if (!image_.executable(dyn_.get(tag))) return crash(what + " is not code of the object");
    if (auto at = section_address(section); at && *at != dyn_.get(tag))
      return crash(what + " points into the middle of code, not at the start of " + section);
    return {};
  }

  LoadCheck initialisers() {
    if (auto c = entry_point(dt_init, ".init", "DT_INIT"); !c.ok()) return c;
    if (auto c = calls(dt_init_array, dt_init_arraysz, "DT_INIT_ARRAY"); !c.ok()) return c;
    if (auto c = calls(dt_fini_array, dt_fini_arraysz, "DT_FINI_ARRAY (at exit)"); !c.ok()) return c;
    return entry_point(dt_fini, ".fini", "DT_FINI (at exit)");
  }

  ByteReader file_;
  std::uint16_t machine_;
  std::uint64_t page_;
  std::uint64_t commit_limit_;
  Image image_;
  std::vector<LoadCommand> loads_;
  bool has_holes_ = false;
  bool overlap_ = false;
  std::optional<std::uint64_t> dynamic_;
  std::uint32_t dynamic_flags_ = 0;
  std::uint64_t p_align_max_ = 0;
  int glibc_minor_ = 36;
  const TableSource* tables_ = nullptr;
  std::unique_ptr<std::byte[]> piece_; // the piece of a table copied from tables_
  mutable FarCopy section_headers_, section_names_;
  std::optional<std::pair<std::uint64_t, std::uint64_t>> relro_;
  std::optional<std::uint64_t> phdr_; // PT_PHDR's address
  std::uint16_t phnum_ = 0;
  Dynamic dyn_;
  bool textrel_ = false;
  std::uint64_t versions_ = 0; // l_nversions
  struct SlotWrite {
    std::uint64_t slot;
    std::optional<std::uint64_t> value; // the value relocation wrote (a vaddr), if known
  };
  std::vector<SlotWrite> writes_; // to the slots of slot_ranges_; by slot once settle_slots() ran
  struct GnuTable {
    std::uint64_t nbuckets, symbias, nwords, shift, bitmask, buckets, chain_zero;
  };
  struct SysvTable {
    std::uint64_t nbucket, buckets, chains;
  };
  std::optional<GnuTable> gnu_;
  std::optional<SysvTable> sysv_;
  std::unordered_set<std::uint32_t> own_found_;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> slot_ranges_; // DT_INIT_ARRAY, DT_FINI_ARRAY, the PLT's slots
  std::uint64_t slots_low_ = UINT64_MAX, slots_high_ = 0; // their hull
  std::optional<std::uint64_t> versym_;
  std::optional<std::uint64_t> symtab_, strtab_; // DT_SYMTAB, DT_STRTAB once the dynamic section is read
  std::optional<std::pair<std::uint64_t, std::uint64_t>> plt_slots_;
  std::pair<std::uint64_t, std::uint64_t> writable_{0, 0}; // a page known writable // symbols whose own definition the table leads to
};
} // namespace

LoadCheck check_load(const ByteReader& file, std::uint16_t machine, std::uint64_t page_size,
                     std::uint64_t commit_limit, int glibc_minor, const TableSource* tables) {
  if (file.size() < 64) return refuse("file too short");
  return Checker(file, machine, page_size, commit_limit, glibc_minor, tables).run();
}

LoadCheck check_load(std::span<const std::byte> file, std::uint16_t machine, std::uint64_t page_size,
                     std::uint64_t commit_limit, int glibc_minor, const TableSource* tables) {
  return check_load(ByteReader(file), machine, page_size, commit_limit, glibc_minor, tables);
}

} // namespace condacuda::elf
