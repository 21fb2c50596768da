#include "elf/elf_object.hpp"

#include <algorithm>
#include <cstring>

#include "elf/elf_constants.hpp"
#include "elf/load_image.hpp"
#include "util/memo_text.hpp"

namespace condacuda::elf {

namespace {
constexpr std::uint64_t ehdr_size = 64;
constexpr std::uint64_t phdr_size = 56;
constexpr std::uint64_t dyn_size = 16;
constexpr std::uint64_t sym_size = 24;
constexpr std::uint64_t rela_size = 24;
constexpr std::uint64_t rel_size = 16;
constexpr std::uint64_t max_chain_steps = 1u << 24; // hostile hash chains end here
// Version records (Verdef + Vernaux) one object may hold: versym indices have
// 15 bits, so more cannot be told apart. Bounds the memory a hostile chain of
// overlapping records (vna_next = 4, vn_cnt = 65535, many Verneeds) can claim.
constexpr std::uint64_t max_version_records = 1u << 16;

Error corrupt(std::string what) { return make_error(ErrorCode::corrupt, std::move(what)); }

// A window of the file copied from a TableSource, 1 KiB at most, for the
// small reads of a parse (the dynamic entries, the names they give). After a
// copy that fails, none more is asked for: the map is read.
class CopiedWindow {
public:
  explicit CopiedWindow(const TableSource* source) : source_(source) {}
  // What the window holds from `offset` on; empty when it does not hold it.
  std::span<const std::byte> held(std::uint64_t offset) const {
    if (offset < at_ || offset - at_ >= size_) return {};
    return {bytes_ + (offset - at_), static_cast<std::size_t>(size_ - (offset - at_))};
  }
  // Copies [offset, min(offset + 1 KiB, end)) afresh; false when nothing could be.
  bool refill(std::uint64_t offset, std::uint64_t end) {
    size_ = 0;
    if (!source_ || offset >= end) return false;
    const std::uint64_t n = std::min<std::uint64_t>(sizeof bytes_, end - offset);
    if (!source_->copy(offset, std::span<std::byte>(bytes_, n))) {
      source_ = nullptr;
      return false;
    }
    at_ = offset;
    size_ = n;
    return true;
  }

private:
  const TableSource* source_;
  std::uint64_t at_ = 0, size_ = 0;
  std::byte bytes_[1024];
};

// The NUL-terminated name at the start of `bytes`, when it ends there.
std::optional<std::string_view> name_in(std::span<const std::byte> bytes) {
  const char* text = reinterpret_cast<const char*>(bytes.data());
  const void* nul = bytes.empty() ? nullptr : std::memchr(text, 0, bytes.size());
  if (!nul) return std::nullopt;
  return std::string_view(text, static_cast<std::size_t>(static_cast<const char*>(nul) - text));
}
} // namespace

// The window of the string table dynamic_string copied last, and what it
// may still keep: a hostile dynamic section can name one string millions of
// times (4 M entries of DT_NEEDED), and each copy is kept with the object;
// past the budget names are views of the map.
struct ElfObject::CopiedPiece {
  CopiedWindow window;
  std::uint64_t budget = 64 * 1024; // bytes of names kept
};

FileBytes bytes_from_vector(std::vector<std::byte> v) {
  auto owner = std::make_shared<std::vector<std::byte>>(std::move(v));
  return FileBytes{owner, std::span<const std::byte>(owner->data(), owner->size()), {}, nullptr, {}};
}

FileBytes bytes_from_string(std::string_view s) {
  std::vector<std::byte> v(s.size());
  if (!s.empty()) std::memcpy(v.data(), s.data(), s.size());
  return bytes_from_vector(std::move(v));
}

// ---------------------------------------------------------------- header check

namespace {
HeaderCheck verify_header_in(const ByteReader& r, std::uint16_t host_machine, const TableSource* copies) {
  // The checks and their order follow open_verify in glibc's elf/dl-load.c.
  auto fatal = [](const char* why) { return HeaderCheck{HeaderVerdict::fatal, why, {}}; };
  if (r.size() < ehdr_size) return fatal("file too short");
  static const unsigned char magic[4] = {0x7f, 'E', 'L', 'F'};
  if (std::memcmp(r.bytes(0, 4)->data(), magic, 4) != 0) return fatal("invalid ELF header");
  if (*r.u8(4) != elfclass64) return HeaderCheck{HeaderVerdict::wrong_class, {}, {}};
  if (*r.u8(5) != elfdata2lsb) return fatal("ELF file data encoding not little-endian");
  if (*r.u8(6) != ev_current) return fatal("ELF file version ident does not match current one");
  std::uint8_t osabi = *r.u8(7);
  if (osabi != elfosabi_sysv && osabi != elfosabi_gnu) return fatal("ELF file OS ABI invalid");
  std::uint8_t abiversion = *r.u8(8);
  // VALID_ELF_ABIVERSION: 0, or a GNU ABI version below LIBC_ABI_MAX (4 on x86-64).
  if (!(abiversion == 0 || (osabi == elfosabi_gnu && abiversion < 4))) return fatal("ELF file ABI version invalid");
  for (std::uint64_t i = 9; i < 16; ++i)
    if (*r.u8(i) != 0) return fatal("nonzero padding in e_ident");
  if (*r.u32(20) != ev_current) return fatal("ELF file version does not match current one");
  if (*r.u16(18) != host_machine) return HeaderCheck{HeaderVerdict::wrong_machine, {}, {}};
  std::uint16_t type = *r.u16(16);
  if (type != et_dyn && type != et_exec) return fatal("only ET_DYN and ET_EXEC can be loaded");
  if (*r.u16(54) != phdr_size) return fatal("ELF file's phentsize not the expected size");
  HeaderCheck ok;
  ok.abi_tag = read_abi_tag(r, *r.u64(32), *r.u16(56), copies);
  return ok;
}
} // namespace

HeaderCheck verify_header(std::span<const std::byte> data, std::uint16_t host_machine, const TableSource* copies) {
  return verify_header_in(ByteReader(data), host_machine, copies);
}

HeaderCheck verify_header(const FileBytes& bytes, std::uint16_t host_machine, const TableSource* copies) {
  return verify_header_in(bytes.reader(), host_machine, copies);
}

// ---------------------------------------------------------------- parsing

Result<std::shared_ptr<const ElfObject>> ElfObject::parse(FileBytes bytes, bool with_symbols, const TableSource* copies,
                                                          std::string_view symbol_facts) {
  std::shared_ptr<ElfObject> obj(new ElfObject());
  obj->bytes_ = std::move(bytes);
  obj->reader_ = obj->bytes_.reader();
  obj->copies_ = copies;
  if (auto s = obj->parse_headers(); !s) return s.error();
  if (obj->has_dynamic_) {
    if (auto s = obj->parse_dynamic_entries(); !s) return s.error();
    if (with_symbols) {
      if (auto s = obj->parse_symbols(symbol_facts); !s) return s.error();
    }
  }
  obj->copies_ = nullptr; // the source lives no longer than this call
  return std::shared_ptr<const ElfObject>(std::move(obj));
}

Result<std::shared_ptr<const ElfObject>> ElfObject::with_symbols(const ElfObject& parsed, std::string_view symbol_facts) {
  std::shared_ptr<ElfObject> obj(new ElfObject(parsed));
  if (obj->has_dynamic_ && !obj->symbols_loaded_)
    if (auto s = obj->parse_symbols(symbol_facts); !s) return s.error();
  return std::shared_ptr<const ElfObject>(std::move(obj));
}

Status ElfObject::parse_headers() {
  const ByteReader& r = reader_;
  if (r.size() < ehdr_size) return corrupt("file too short for an ELF header (" + std::to_string(r.size()) + " bytes)");
  static const unsigned char magic[4] = {0x7f, 'E', 'L', 'F'};
  if (std::memcmp(r.bytes(0, 4)->data(), magic, 4) != 0) return corrupt("not an ELF file (bad magic)");
  class_ = *r.u8(4);
  if (class_ == elfclass32) return make_error(ErrorCode::unsupported, "32-bit ELF (ELFCLASS32) is not supported");
  if (class_ != elfclass64) return corrupt("invalid ELF class byte " + std::to_string(class_));
  std::uint8_t data = *r.u8(5);
  if (data == elfdata2msb) return make_error(ErrorCode::unsupported, "big-endian ELF is not supported");
  if (data != elfdata2lsb) return corrupt("invalid ELF data encoding byte " + std::to_string(data));
  type_ = *r.u16(16);
  machine_ = *r.u16(18);
  std::uint64_t phoff = *r.u64(32);
  shoff_ = *r.u64(40);
  std::uint16_t phentsize = *r.u16(54);
  std::uint16_t phnum = *r.u16(56);
  shentsize_ = *r.u16(58);
  shnum_ = *r.u16(60);
  if (phnum == 0) return ok_status(); // relocatable objects and the like: no dynamic info
  if (phentsize != phdr_size) return corrupt("unexpected program header size " + std::to_string(phentsize));
  if (!r.has(phoff, static_cast<std::uint64_t>(phnum) * phdr_size))
    return corrupt("program headers extend past the end of the file");
  // PT_DYNAMIC as _dl_map_object_from_fd (elf/dl-load.c) takes it: the last
  // one with a p_filesz gives l_ld = p_vaddr; one with p_filesz 0 (separate
  // debuginfo), or an l_ld of 0, is "object file has no dynamic section".
  // p_offset is never used, and p_filesz only for that test.
  std::optional<std::uint64_t> l_ld;
  bool empty_dynamic = false;
  for (std::uint16_t i = 0; i < phnum; ++i) {
    std::uint64_t p = phoff + static_cast<std::uint64_t>(i) * phdr_size;
    std::uint32_t ptype = *r.u32(p);
    std::uint64_t offset = *r.u64(p + 8), vaddr = *r.u64(p + 16), filesz = *r.u64(p + 32);
    if (ptype == pt_load) loads_.push_back({vaddr, offset, filesz});
    if (ptype == pt_gnu_stack) gnu_stack_flags_ = *r.u32(p + 4);
    if (ptype == pt_dynamic) {
      if (filesz == 0) empty_dynamic = true;
      else l_ld = vaddr;
    }
  }
  has_dynamic_ = l_ld && *l_ld != 0 && !empty_dynamic;
  if (has_dynamic_) return read_dynamic_array(*l_ld);
  return ok_status();
}

bool ElfObject::wants_executable_stack() const {
  if (gnu_stack_flags_) return (*gnu_stack_flags_ & pf_x) != 0;
  return machine_ == em_x86_64; // sysdeps/x86/stackinfo.h: PF_R|PF_W|PF_X; sysdeps/aarch64: PF_R|PF_W
}

Status ElfObject::read_dynamic_array(std::uint64_t l_ld) {
  // elf_get_dynamic_info (elf/get-dynamic-info.h) and _dl_map_object_deps
  // (elf/dl-deps.c) walk the dynamic array in the mapped image from l_ld up to
  // DT_NULL, not to PT_DYNAMIC's p_filesz: entries past p_filesz count, and
  // zero-fill (a bss) reads as DT_NULL. The image is the one _dl_map_segments
  // makes (elf/load_image.hpp), with 4 KiB pages, x86-64's: with larger pages
  // more of the file is mapped, and an array that runs out of this image is
  // an error here (check_load says whether ld.so crashes on it).
  constexpr std::uint64_t page = 4096;
  constexpr std::uint64_t max_entries = 1u << 22; // the loader would fault long before
  LoadImage image(reader_, page);
  if (!image.map_program_headers()) return corrupt("dynamic section lies outside the loaded segments");
  CopiedWindow window(copies_);
  for (std::uint64_t at = l_ld, n = 0;; at += dyn_size, ++n) {
    if (n == max_entries) return corrupt("the dynamic section has no DT_NULL");
    // An entry the file holds whole is its bytes there: copied when there is
    // a copy source, else read in the image (which also says what an entry
    // in zero-fill or out of the image reads as).
    const std::optional<std::uint64_t> file_offset = image.file_offset(at, dyn_size);
    std::optional<std::uint64_t> tag, value;
    if (file_offset) {
      auto held = window.held(*file_offset);
      if (held.size() < dyn_size && window.refill(*file_offset, reader_.size())) held = window.held(*file_offset);
      if (held.size() >= dyn_size) {
        std::uint64_t words[2];
        std::memcpy(words, held.data(), dyn_size);
        tag = words[0], value = words[1];
      }
    }
    if (!tag) tag = image.read(at, 8), value = image.read(at + 8, 8);
    // Past the end of the file inside its last page the image reads zeros
    // (a DT_NULL ld.so would take); the reader takes no facts from a cut
    // file, and calls it damaged.
    const bool cut = tag && value && image.past_end_of_file(at, dyn_size);
    if (!tag || !value || cut) {
      if (cut || image.touch(at, dyn_size, false) == LoadImage::Fault::past_file)
        return corrupt("dynamic section extends past the end of the file");
      return corrupt(n == 0 ? "dynamic section lies outside the loaded segments"
                            : "the dynamic section, read up to its DT_NULL, runs out of the mapped image");
    }
    if (static_cast<std::int64_t>(*tag) == dt_null) break;
    dyn_entries_.push_back({static_cast<std::int64_t>(*tag), *value, file_offset});
  }
  return ok_status();
}

std::optional<std::uint64_t> ElfObject::vaddr_to_offset(std::uint64_t vaddr) const {
  // A later load command is mapped over an earlier one (_dl_map_segments).
  for (auto it = loads_.rbegin(); it != loads_.rend(); ++it) {
    const auto& seg = *it;
    if (vaddr >= seg.vaddr && vaddr - seg.vaddr < seg.filesz) {
      std::uint64_t off = seg.offset + (vaddr - seg.vaddr);
      if (off < seg.offset) return std::nullopt; // wrapped
      return off;
    }
  }
  return std::nullopt;
}

std::optional<std::string_view> ElfObject::dynstr(std::uint64_t offset) const {
  if (offset >= strtab_end_ - strtab_offset_) return std::nullopt;
  return reader_.cstring(strtab_offset_ + offset, strtab_end_);
}

std::optional<std::string_view> ElfObject::dynamic_string(std::uint64_t offset, CopiedPiece& piece) {
  if (offset >= strtab_end_ - strtab_offset_) return dynstr(offset);
  const std::uint64_t start = strtab_offset_ + offset;
  auto text = name_in(piece.window.held(start));
  if (!text && piece.window.refill(start, strtab_end_)) text = name_in(piece.window.held(start));
  // No copy, a name longer than a window, or no NUL before the table's end:
  // the map says which (cstring bounds the search by the table).
  if (!text || text->size() + 1 > piece.budget) return dynstr(offset);
  piece.budget -= text->size() + 1;
  return keep_name(*text);
}

bool ElfObject::symbol_named(std::uint32_t index, std::string_view name) const {
  if (index >= symbol_count_) return false;
  auto name_off = reader_.u32(symtab_offset_ + static_cast<std::uint64_t>(index) * sym_size);
  // cstring_equals checks the same bounds as dynstr's cstring (an offset past
  // the table is no name).
  return name_off && reader_.cstring_equals(strtab_offset_ + *name_off, strtab_end_, name);
}

std::vector<std::uint64_t> ElfObject::dynamic_entry_offsets(std::int64_t tag) const {
  std::vector<std::uint64_t> out;
  for (const DynEntry& e : dyn_entries_)
    if (e.tag == tag && e.file_offset) out.push_back(*e.file_offset);
  return out;
}

Status ElfObject::parse_dynamic_entries() {
  for (const DynEntry& e : dyn_entries_) {
    const std::int64_t tag = e.tag;
    const std::uint64_t val = e.value;
    switch (tag) {
    case dt_needed: needed_offsets_.push_back(val); break;
    case dt_filter: filter_offsets_.push_back(val); break;
    case dt_auxiliary: aux_offsets_.push_back(val); break;
    case dt_soname: soname_off_ = val; break;
    case dt_rpath: rpath_off_ = val; break;
    case dt_runpath: runpath_off_ = val; break;
    case dt_strtab: strtab_ = val; break;
    case dt_strsz: strsz_ = val; break;
    case dt_symtab: symtab_ = val; break;
    case dt_hash: hash_ = val; break;
    case dt_gnu_hash: gnu_hash_ = val; break;
    case dt_versym: versym_ = val; break;
    case dt_verdef: verdef_ = val; break;
    case dt_verdefnum: verdefnum_ = val; break;
    case dt_verneed: verneed_ = val; break;
    case dt_verneednum: verneednum_ = val; break;
    case dt_rela: rela_ = val; break;
    case dt_relasz: relasz_ = val; break;
    case dt_rel: rel_ = val; break;
    case dt_relsz: relsz_ = val; break;
    case dt_jmprel: jmprel_ = val; break;
    case dt_pltrelsz: pltrelsz_ = val; break;
    case dt_pltrel: pltrel_ = val; break;
    case dt_flags: dynamic_.flags = val; break;
    case dt_flags_1: dynamic_.flags_1 = val; break;
    case dt_symbolic: dynamic_.symbolic = true; break;
    case dt_bind_now: dynamic_.bind_now = true; break;
    case dt_relr: dynamic_.has_relr = true; break;
    default: break;
    }
  }
  if (dynamic_.flags & df_symbolic) dynamic_.symbolic = true;
  if ((dynamic_.flags & df_bind_now) || (dynamic_.flags_1 & df_1_now)) dynamic_.bind_now = true;
  return resolve_dynamic_strings();
}

Status ElfObject::resolve_dynamic_strings() {
  bool needs_strings = !needed_offsets_.empty() || soname_off_ || rpath_off_ || runpath_off_ ||
                       !filter_offsets_.empty() || !aux_offsets_.empty() || verdef_ || verneed_ || symtab_;
  if (!needs_strings) return ok_status();
  if (!strtab_) return corrupt("dynamic section has no DT_STRTAB");
  auto off = vaddr_to_offset(*strtab_);
  if (!off) return corrupt("DT_STRTAB points outside the file");
  strtab_offset_ = *off;
  std::uint64_t size = strsz_.value_or(0);
  if (!reader_.has(strtab_offset_, size)) return corrupt("string table extends past the end of the file");
  strtab_end_ = strtab_offset_ + size;

  CopiedPiece piece{CopiedWindow(copies_)};
  auto str = [&](std::uint64_t o, const char* what) -> Result<std::string_view> {
    auto s = dynamic_string(o, piece);
    if (!s) return corrupt(std::string(what) + " string offset " + std::to_string(o) + " is outside the string table");
    return *s;
  };
  // Every string the dynamic section names, checked in this order.
  struct Strings {
    const char* tag;
    const std::vector<std::uint64_t>& offsets;
    std::vector<std::string_view>& out;
  };
  for (const Strings& t : {Strings{"DT_NEEDED", needed_offsets_, dynamic_.needed},
                           Strings{"DT_FILTER", filter_offsets_, dynamic_.filters},
                           Strings{"DT_AUXILIARY", aux_offsets_, dynamic_.auxiliaries}})
    for (auto o : t.offsets) {
      auto s = str(o, t.tag);
      if (!s) return s.error();
      t.out.push_back(*s);
    }
  struct String {
    const char* tag;
    const std::optional<std::uint64_t>& offset;
    std::optional<std::string_view>& out;
  };
  for (const String& t : {String{"DT_SONAME", soname_off_, dynamic_.soname}, String{"DT_RPATH", rpath_off_, dynamic_.rpath},
                          String{"DT_RUNPATH", runpath_off_, dynamic_.runpath}})
    if (t.offset) {
      auto s = str(*t.offset, t.tag);
      if (!s) return s.error();
      t.out = *s;
    }
  return ok_status();
}

std::optional<std::uint32_t> ElfObject::count_symbols() const {
  // DT_HASH's nchain is exact; DT_GNU_HASH needs the highest chain end; the
  // section header table is the last resort (absent in some stripped files).
  // A damaged table falls through to the next source.
  if (sysv_hash_offset_) {
    auto nchain = reader_.u32(*sysv_hash_offset_ + 4);
    if (nchain) return *nchain;
  }
  if (gnu_hash_offset_)
    if (auto n = count_from_gnu_hash(*gnu_hash_offset_)) return n;
  return count_from_section_headers();
}

std::optional<std::uint32_t> ElfObject::count_from_gnu_hash(std::uint64_t gh) const {
  auto nbuckets = reader_.u32(gh), symoffset = reader_.u32(gh + 4), bloom_size = reader_.u32(gh + 8);
  if (!nbuckets || !symoffset || !bloom_size) return std::nullopt;
  std::uint64_t buckets = gh + 16 + 8ull * *bloom_size;
  std::uint64_t chain = buckets + 4ull * *nbuckets;
  std::uint32_t max_index = 0;
  bool any = false;
  for (std::uint32_t b = 0; b < *nbuckets; ++b) {
    auto v = reader_.u32(buckets + 4ull * b);
    if (!v) return std::nullopt;
    if (*v >= *symoffset) { max_index = std::max(max_index, *v); any = true; }
  }
  if (!any) return *symoffset;
  for (std::uint64_t steps = 0; steps < max_chain_steps; ++steps) {
    auto h = reader_.u32(chain + 4ull * (max_index - *symoffset));
    if (!h) return std::nullopt;
    if (*h & 1u) return max_index + 1;
    ++max_index;
  }
  return std::nullopt;
}

std::optional<std::uint32_t> ElfObject::count_from_section_headers() const {
  if (!shoff_ || shentsize_ != 64) return std::nullopt;
  for (std::uint16_t i = 0; i < shnum_; ++i) {
    std::uint64_t sh = shoff_ + 64ull * i;
    auto type = reader_.u32(sh + 4);
    auto size = reader_.u64(sh + 32);
    if (type && size && *type == sht_dynsym) return static_cast<std::uint32_t>(std::min<std::uint64_t>(*size / sym_size, 0xffffffffu));
  }
  return std::nullopt;
}

const std::vector<std::uint32_t>& ElfObject::undefined_symbols() const {
  static const std::vector<std::uint32_t> none;
  if (!lazy_) return none;
  std::call_once(lazy_->undefined_found, [this] {
    // parse_symbols checked that the table lies inside the file.
    for (std::uint32_t i = 1; i < symbol_count_; ++i) {
      std::uint64_t p = symtab_offset_ + i * sym_size;
      std::uint8_t info = *reader_.u8(p + 4);
      std::uint16_t shndx = *reader_.u16(p + 6);
      if (shndx == shn_undef && (info >> 4) != stb_local && *reader_.u32(p) != 0) lazy_->undefined.push_back(i);
    }
  });
  return lazy_->undefined;
}

Status ElfObject::parse_symbols(std::string_view symbol_facts) {
  symbols_loaded_ = true;
  if (!symtab_) return ok_status();
  auto off = vaddr_to_offset(*symtab_);
  if (!off) return corrupt("DT_SYMTAB points outside the file");
  symtab_offset_ = *off;
  if (gnu_hash_) {
    gnu_hash_offset_ = vaddr_to_offset(*gnu_hash_);
    if (!gnu_hash_offset_) return corrupt("DT_GNU_HASH points outside the file");
  }
  // _dl_setup_hash (elf/dl-setup_hash.c): with DT_GNU_HASH, DT_HASH is never read.
  if (hash_ && !gnu_hash_) {
    sysv_hash_offset_ = vaddr_to_offset(*hash_);
    if (!sysv_hash_offset_) return corrupt("DT_HASH points outside the file");
  }
  // Facts kept from an earlier parse of the same bytes passed every check
  // below that reads the tables; the checks of places and sizes run again.
  std::uint32_t kept_count = 0;
  const bool kept = !symbol_facts.empty() && take_symbol_facts(symbol_facts, kept_count);
  auto count = kept ? std::optional<std::uint32_t>(kept_count) : count_symbols();
  if (!count) return corrupt("cannot determine the number of dynamic symbols (hash table damaged or missing)");
  if (!reader_.has(symtab_offset_, static_cast<std::uint64_t>(*count) * sym_size))
    return corrupt("dynamic symbol table extends past the end of the file");
  symbol_count_ = *count;
  if (versym_) {
    auto v = vaddr_to_offset(*versym_);
    if (!v || !reader_.has(*v, 2ull * symbol_count_)) return corrupt("DT_VERSYM table extends past the end of the file");
    versym_offset_ = *v;
  }
  if (verdef_ && !kept) {
    auto v = vaddr_to_offset(*verdef_);
    if (!v) return corrupt("DT_VERDEF points outside the file");
    // ld.so follows the records' next links; DT_VERDEFNUM and DT_VERNEEDNUM
    // are not read (_dl_check_map_versions, match_symbol in elf/dl-version.c).
    if (auto s = parse_verdefs(*v, max_version_records); !s) return s;
  }
  if (verneed_ && !kept) {
    auto v = vaddr_to_offset(*verneed_);
    if (!v) return corrupt("DT_VERNEED points outside the file");
    if (auto s = parse_verneeds(*v, max_version_records); !s) return s;
  }
  lazy_ = std::make_shared<Lazy>();
  return ok_status();
}

std::string ElfObject::symbol_facts() const {
  std::string out;
  util::put_number_field(out, symbol_count_);
  util::put_number_field(out, verdefs_.size());
  for (const auto& d : verdefs_) {
    util::put_number_field(out, d.index);
    util::put_number_field(out, d.flags);
    util::put_number_field(out, d.hash);
    util::put_text_field(out, d.name);
  }
  util::put_number_field(out, verneeds_.size());
  for (const auto& need : verneeds_) {
    util::put_text_field(out, need.file);
    util::put_number_field(out, need.entries.size());
    for (const auto& e : need.entries) {
      util::put_number_field(out, e.hash);
      util::put_number_field(out, e.flags);
      util::put_number_field(out, e.other);
      util::put_text_field(out, e.name);
    }
  }
  return out;
}

std::string_view ElfObject::keep_name(std::string_view name) {
  if (!copied_strings_) copied_strings_ = std::make_shared<std::deque<std::string>>();
  return copied_strings_->emplace_back(name);
}

bool ElfObject::take_symbol_facts(std::string_view facts, std::uint32_t& count) {
  util::FieldReader in(facts);
  std::uint64_t n = 0, records = 0;
  auto number = [&](std::uint64_t limit, std::uint64_t& out) { return in.number(out) && out <= limit; };
  if (!number(UINT32_MAX, n)) return false;
  const auto symbols = static_cast<std::uint32_t>(n);
  std::vector<VersionDefinition> defs;
  std::vector<VersionNeed> needs;
  if (!number(max_version_records, records)) return false;
  for (std::uint64_t i = 0; i < records; ++i) {
    std::uint64_t index = 0, flags = 0, hash = 0;
    std::string_view name;
    if (!number(UINT16_MAX, index) || !number(UINT16_MAX, flags) || !number(UINT32_MAX, hash) || !in.text(name))
      return false;
    defs.push_back({static_cast<std::uint16_t>(index), static_cast<std::uint16_t>(flags), static_cast<std::uint32_t>(hash), name});
  }
  if (!number(max_version_records, records)) return false;
  std::uint64_t entries_in_all = 0;
  for (std::uint64_t i = 0; i < records; ++i) {
    VersionNeed need;
    std::uint64_t entries = 0;
    if (!in.text(need.file) || !number(max_version_records, entries) || (entries_in_all += entries) > max_version_records)
      return false;
    for (std::uint64_t k = 0; k < entries; ++k) {
      std::uint64_t hash = 0, flags = 0, other = 0;
      VersionNeedEntry e;
      if (!number(UINT32_MAX, hash) || !number(UINT16_MAX, flags) || !number(UINT16_MAX, other) || !in.text(e.name))
        return false;
      e.hash = static_cast<std::uint32_t>(hash);
      e.flags = static_cast<std::uint16_t>(flags);
      e.other = static_cast<std::uint16_t>(other);
      need.entries.push_back(e);
    }
    needs.push_back(std::move(need));
  }
  if (!in.done()) return false;
  // The names live with the object, not in the memo's text.
  for (auto& d : defs) d.name = keep_name(d.name);
  for (auto& need : needs) {
    need.file = keep_name(need.file);
    for (auto& e : need.entries) e.name = keep_name(e.name);
  }
  verdefs_ = std::move(defs);
  verneeds_ = std::move(needs);
  count = symbols;
  return true;
}

Status ElfObject::check_verdaux_chain(std::uint64_t aux, std::uint16_t count) const {
  for (std::uint16_t k = 0; k < std::max<std::uint16_t>(count, 1); ++k) {
    if (!reader_.has(aux, 8)) return corrupt("version definition name record outside the file");
    std::uint32_t next = *reader_.u32(aux + 4);
    if (next == 0) break;
    aux += next;
  }
  return ok_status();
}

Status ElfObject::parse_verdefs(std::uint64_t offset, std::uint64_t count) {
  std::uint64_t entry = offset;
  for (std::uint64_t n = 0; n < count; ++n) {
    if (n >= max_version_records) return corrupt("more version definitions than symbol versions can index");
    if (!reader_.has(entry, 20)) return corrupt("version definition record outside the file");
    VersionDefinition def;
    std::uint16_t version = *reader_.u16(entry);
    if (version != 1) return corrupt("unsupported version " + std::to_string(version) + " of Verdef record");
    def.flags = *reader_.u16(entry + 2);
    def.index = *reader_.u16(entry + 4);
    def.hash = *reader_.u32(entry + 8);
    std::uint32_t aux = *reader_.u32(entry + 12), next = *reader_.u32(entry + 16);
    // Every Verdaux record (the name, then the parents) must be whole in the
    // file, though only the first is used: a record cut short is a damaged table.
    if (auto s = check_verdaux_chain(entry + aux, *reader_.u16(entry + 6)); !s) return s;
    auto name_off = reader_.u32(entry + aux);
    auto name = dynstr(*name_off);
    if (!name) return corrupt("version definition name outside the string table");
    def.name = *name;
    verdefs_.push_back(def);
    if (next == 0) break;
    entry += next;
  }
  return ok_status();
}

Status ElfObject::parse_verneeds(std::uint64_t offset, std::uint64_t count) {
  std::uint64_t entry = offset;
  std::uint64_t steps = 0;
  for (std::uint64_t n = 0; n < count; ++n) {
    if (n >= max_version_records) return corrupt("more version requirements than symbol versions can index");
    if (!reader_.has(entry, 16)) return corrupt("version requirement record outside the file");
    std::uint16_t version = *reader_.u16(entry);
    if (version != 1) return corrupt("unsupported version " + std::to_string(version) + " of Verneed record");
    std::uint16_t cnt = *reader_.u16(entry + 2);
    std::uint32_t file = *reader_.u32(entry + 4), aux = *reader_.u32(entry + 8), next = *reader_.u32(entry + 12);
    VersionNeed need;
    auto fname = dynstr(file);
    if (!fname) return corrupt("version requirement file name outside the string table");
    need.file = *fname;
    std::uint64_t a = entry + aux;
    (void)cnt; // vn_cnt is not read either: the entries end at vna_next == 0
    for (;;) {
      if (++steps > max_version_records) return corrupt("more version requirements than symbol versions can index");
      if (!reader_.has(a, 16)) return corrupt("version requirement entry outside the file");
      VersionNeedEntry e;
      e.hash = *reader_.u32(a);
      e.flags = *reader_.u16(a + 4);
      e.other = *reader_.u16(a + 6);
      auto name = dynstr(*reader_.u32(a + 8));
      if (!name) return corrupt("version requirement name outside the string table");
      e.name = *name;
      need.entries.push_back(e);
      std::uint32_t anext = *reader_.u32(a + 12);
      if (anext == 0) break;
      a += anext;
    }
    verneeds_.push_back(std::move(need));
    if (next == 0) break;
    entry += next;
  }
  return ok_status();
}

std::optional<Symbol> ElfObject::symbol(std::uint32_t index) const {
  if (index >= symbol_count_) return std::nullopt;
  std::uint64_t p = symtab_offset_ + static_cast<std::uint64_t>(index) * sym_size;
  auto name_off = reader_.u32(p);
  auto info = reader_.u8(p + 4), other = reader_.u8(p + 5);
  auto shndx = reader_.u16(p + 6);
  auto value = reader_.u64(p + 8);
  if (!name_off || !info || !other || !shndx || !value) return std::nullopt;
  auto name = dynstr(*name_off);
  if (!name) return std::nullopt;
  Symbol s;
  s.name = *name;
  s.value = *value;
  s.shndx = *shndx;
  s.type = *info & 0xf;
  s.bind = *info >> 4;
  s.visibility = *other & 0x3;
  if (versym_offset_) {
    std::uint16_t v = *reader_.u16(*versym_offset_ + 2ull * index);
    s.version = v & 0x7fff;
    s.hidden_version = (v & versym_hidden) != 0;
  }
  return s;
}

std::vector<ElfObject::RelocationRef> ElfObject::relocation_order() const {
  std::vector<RelocationRef> out;
  auto table = [&](std::optional<std::uint64_t> addr, std::optional<std::uint64_t> size, bool rela, bool plt,
                   std::optional<std::pair<std::uint64_t, std::uint64_t>> skip) {
    if (!addr || !size) return;
    auto off = vaddr_to_offset(*addr);
    if (!off || !reader_.has(*off, *size)) return;
    std::uint64_t entsize = rela ? rela_size : rel_size;
    for (std::uint64_t p = *off; p + entsize <= *off + *size; p += entsize) {
      if (skip && p >= skip->first && p < skip->second) continue;
      std::uint64_t info = *reader_.u64(p + 8);
      auto sym = static_cast<std::uint32_t>(info >> 32);
      if (sym != 0) out.push_back({sym, plt});
    }
  };
  std::optional<std::pair<std::uint64_t, std::uint64_t>> plt_range;
  if (jmprel_ && pltrelsz_) {
    if (auto o = vaddr_to_offset(*jmprel_)) plt_range = std::make_pair(*o, *o + *pltrelsz_);
  }
  // ld.so relocates DT_RELA (or DT_REL), then DT_JMPREL; some linkers count
  // .rela.plt inside DT_RELASZ, so skip those entries in the first pass.
  table(rela_, relasz_, true, false, plt_range);
  table(rel_, relsz_, false, false, plt_range);
  table(jmprel_, pltrelsz_, pltrel_.value_or(dt_rela) == dt_rela, true, std::nullopt);
  return out;
}

} // namespace condacuda::elf
