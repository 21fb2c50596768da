#pragma once
// The facts of one ELF file that the loader model needs: header, dynamic
// section (reached through program headers, so stripped files work), symbol
// versioning tables, and a symbol table with hash-table lookup. Nothing else
// is read: relocation tables only on request (to order error messages).
//
// An ElfObject keeps its bytes alive (usually an mmap owned by the system
// layer) and hands out string_views into them, or, for the names of the
// dynamic section when a parse copied them (parse's `copies`), into the
// copies it keeps.
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "elf/abi_tag.hpp"
#include "elf/byte_reader.hpp"
#include "elf/table_source.hpp"
#include "util/result.hpp"

namespace condacuda::elf {

// Bytes plus whatever keeps them alive (an mmap, a vector), and, for a map
// of a file, which file it was (device and inode as fstat(2) gave them on the
// descriptor mapped; zero when the bytes come from memory).
struct FileIdentity {
  std::uint64_t dev = 0, ino = 0;
  bool known() const { return dev != 0 || ino != 0; }
  bool operator==(const FileIdentity&) const = default;
};
// `head`, when not empty, is a copy of data's first bytes read with pread(2)
// (sys/mapped_file.cpp): the header, program headers and whatever else the
// first page holds are read there, and the map's first page is never faulted
// in (on the 2-core VM a first touch of a mapped page costs 25 to 65
// microseconds, a pread of 4 KiB a few).
struct FileBytes {
  std::shared_ptr<const void> owner;
  std::span<const std::byte> data;
  FileIdentity source{};
  std::shared_ptr<const void> head_owner;
  std::span<const std::byte> head;

  ByteReader reader() const { return ByteReader(data, head); }
};
FileBytes bytes_from_vector(std::vector<std::byte> v);
FileBytes bytes_from_string(std::string_view s);

// The outcome of checking the header the way ld.so's open_verify does.
enum class HeaderVerdict {
  ok,
  wrong_class,   // ELFCLASS32: skipped silently by the search
  wrong_machine, // another e_machine: skipped silently by the search
  fatal,         // any other problem: the load stops (see fatal_reason)
};

struct HeaderCheck {
  HeaderVerdict verdict = HeaderVerdict::ok;
  std::string fatal_reason; // glibc's words: "file too short", "invalid ELF header", ...
  AbiTag abi_tag;           // when ok: the note open_verify checks up to glibc 2.35
};

// Checks a file's first bytes as open_verify (elf/dl-load.c) does, for a host
// of the given machine, and reads its ABI note (whether that note refuses the
// file depends on the glibc release and kernel: loader/abi_tag_rule.hpp).
// `copies`: see read_abi_tag.
HeaderCheck verify_header(std::span<const std::byte> data, std::uint16_t host_machine,
                          const TableSource* copies = nullptr);
HeaderCheck verify_header(const FileBytes& bytes, std::uint16_t host_machine, const TableSource* copies = nullptr);

struct VersionDefinition {
  std::uint16_t index = 0;
  std::uint16_t flags = 0; // ver_flg_base marks the soname entry
  std::uint32_t hash = 0;
  std::string_view name;
};

struct VersionNeedEntry {
  std::uint32_t hash = 0;
  std::uint16_t flags = 0; // ver_flg_weak
  std::uint16_t other = 0; // the version index symbols use
  std::string_view name;
};

struct VersionNeed {
  std::string_view file; // the soname the versions are required from
  std::vector<VersionNeedEntry> entries;
};

struct Symbol {
  std::string_view name;
  std::uint64_t value = 0;
  std::uint16_t shndx = 0;
  std::uint8_t type = 0;
  std::uint8_t bind = 0;
  std::uint8_t visibility = 0;
  std::uint16_t version = 1;  // versym & 0x7fff; 1 (global) when there is no versym table
  bool hidden_version = false; // versym & 0x8000

  bool defined() const { return shndx != 0; }
};

struct DynamicInfo {
  std::optional<std::string_view> soname;
  std::vector<std::string_view> needed;
  std::optional<std::string_view> rpath;
  std::optional<std::string_view> runpath;
  std::vector<std::string_view> filters;     // DT_FILTER
  std::vector<std::string_view> auxiliaries; // DT_AUXILIARY
  std::uint64_t flags = 0;
  std::uint64_t flags_1 = 0;
  bool symbolic = false; // DT_SYMBOLIC or DF_SYMBOLIC
  bool bind_now = false; // DT_BIND_NOW, DF_BIND_NOW or DF_1_NOW
  bool has_relr = false;
};

// The ELF hash functions (SysV and GNU) the version tables and hash sections use.
std::uint32_t sysv_hash(std::string_view name);
std::uint32_t gnu_hash(std::string_view name);

// A symbol name with its hash, computed once per lookup and used in every
// object of the scope, as _dl_lookup_symbol_x computes new_hash once for
// do_lookup_x (elf/dl-lookup.c). The SysV hash only when an object without
// DT_GNU_HASH asks for it.
class HashedName {
public:
  explicit HashedName(std::string_view name) : name_(name), gnu_(gnu_hash(name)) {}
  std::string_view name() const { return name_; }
  std::uint32_t gnu() const { return gnu_; }
  std::uint32_t sysv() const {
    if (!sysv_) sysv_ = sysv_hash(name_);
    return *sysv_;
  }

private:
  std::string_view name_;
  std::uint32_t gnu_;
  mutable std::optional<std::uint32_t> sysv_;
};

class ElfObject {
public:
  // Parses header, program headers and dynamic section; with symbols ==
  // true also the symbol and version tables. Errors name the problem; the
  // caller adds the path. `copies` (elf/table_source.hpp), when given, is
  // where the dynamic section and the names it gives (DT_NEEDED, DT_SONAME,
  // DT_RPATH...) are read from during the parse, not the map: the same facts,
  // the names kept with the object.
  //
  // `symbol_facts`, when given, is what symbol_facts() said of these very
  // bytes (the system layer keeps it by the file's stamp): the symbol count
  // and the version records are taken from it, not read again; text that
  // does not read is ignored and the tables are read.
  static Result<std::shared_ptr<const ElfObject>> parse(FileBytes bytes, bool with_symbols = true,
                                                        const TableSource* copies = nullptr,
                                                        std::string_view symbol_facts = {});
  // `parsed` with its symbol and version tables: what it read already (the
  // headers, the dynamic section) taken as it is, not read again.
  static Result<std::shared_ptr<const ElfObject>> with_symbols(const ElfObject& parsed,
                                                               std::string_view symbol_facts = {});
  // What parsing the symbol tables read beyond their places, as text
  // (util/memo_text.hpp fields): the symbol count (a walk of the hash table)
  // and the version records with their names, pages far from the header's.
  std::string symbol_facts() const;

  // The bytes this object reads (to parse them again with symbols, say).
  const FileBytes& bytes() const { return bytes_; }

  std::uint8_t elf_class() const { return class_; }
  std::uint16_t machine() const { return machine_; }
  std::uint16_t type() const { return type_; }
  bool has_dynamic() const { return has_dynamic_; }
  bool is_pie() const { return (dynamic_.flags_1 & 0x08000000u) != 0; }
  // Whether the object asks for an executable stack, as _dl_map_object_from_fd
  // (elf/dl-load.c) reads it: the last PT_GNU_STACK's PF_X, else the ABI's
  // default, DEFAULT_STACK_PERMS (executable on x86, not on AArch64).
  bool wants_executable_stack() const;
  const DynamicInfo& dynamic() const { return dynamic_; }

  // Symbol and version tables (empty unless parsed with symbols).
  bool has_symbols() const { return symbols_loaded_; }
  std::uint32_t symbol_count() const { return symbol_count_; }
  bool has_versym() const { return versym_offset_.has_value(); }
  const std::vector<VersionDefinition>& version_definitions() const { return verdefs_; }
  const std::vector<VersionNeed>& version_needs() const { return verneeds_; }

  // Decodes symbol i (0 < i < symbol_count). nullopt when its bytes or name are out of range.
  std::optional<Symbol> symbol(std::uint32_t index) const;

  // Indices of the undefined, non-local dynamic symbols, in table order.
  // Found at the first call: the walk reads the whole table.
  const std::vector<std::uint32_t>& undefined_symbols() const;

  // Calls f(index, symbol) for each defined symbol whose name equals `name`,
  // in hash-chain order (GNU hash, else SysV hash, else a linear scan), as
  // ld.so's do_lookup_x visits them. Stops when f returns false.
  template <class F>
  void for_each_named(const HashedName& name, F&& f) const {
    auto visit = [&](std::uint32_t i) {
      if (!symbol_named(i, name.name())) return true; // most candidates differ: no string measured for them
      auto s = symbol(i);
      if (!s) return true;
      return f(i, *s);
    };
    lookup_candidates(name, FunctionRef(visit));
  }
  template <class F>
  void for_each_named(std::string_view name, F&& f) const {
    for_each_named(HashedName(name), std::forward<F>(f));
  }

  // Symbol indices in the order ld.so relocates them (DT_RELA/DT_REL, then
  // DT_JMPREL), with whether each is a PLT slot. Reads the relocation tables:
  // call only when the order matters (to tell which failure ld.so reports first).
  struct RelocationRef {
    std::uint32_t symbol;
    bool plt;
  };
  std::vector<RelocationRef> relocation_order() const;

  // File offsets of the dynamic entries with tag `tag`, up to DT_NULL, in
  // table order (where ld.so reads them: the dynamic section at p_vaddr).
  std::vector<std::uint64_t> dynamic_entry_offsets(std::int64_t tag) const;

private:
  ElfObject() = default;
  Status parse_headers();
  Status read_dynamic_array(std::uint64_t l_ld);
  Status parse_dynamic_entries();
  Status resolve_dynamic_strings(); // DT_STRTAB located, every name the section gives read from it
  Status parse_symbols(std::string_view symbol_facts);
  // The count and version records from symbol_facts() text; false (and
  // nothing taken) when it does not read.
  bool take_symbol_facts(std::string_view facts, std::uint32_t& count);
  std::string_view keep_name(std::string_view name);
  Status parse_verdefs(std::uint64_t offset, std::uint64_t count);
  Status check_verdaux_chain(std::uint64_t aux, std::uint16_t count) const;
  Status parse_verneeds(std::uint64_t offset, std::uint64_t count);
  std::optional<std::uint64_t> vaddr_to_offset(std::uint64_t vaddr) const;
  std::optional<std::string_view> dynstr(std::uint64_t offset) const;
  // dynstr(offset) as the parse reads it: copied from `copies_` when there
  // is one and the name ends inside a piece copied (`piece`, the last one),
  // else from the map.
  struct CopiedPiece;
  std::optional<std::string_view> dynamic_string(std::uint64_t offset, CopiedPiece& piece);
  // Whether symbol `index` is called `name`: what dynstr(st_name) == name
  // says, compared in place (the name's bytes, then its NUL) without
  // measuring the string first.
  bool symbol_named(std::uint32_t index, std::string_view name) const;
  std::optional<std::uint32_t> count_symbols() const;
  std::optional<std::uint32_t> count_from_gnu_hash(std::uint64_t offset) const;
  std::optional<std::uint32_t> count_from_section_headers() const;
  // A non-owning callable reference: lookups are hot, std::function allocates.
  class FunctionRef {
  public:
    template <class F>
    explicit FunctionRef(F& f) : object_(&f), call_([](void* o, std::uint32_t i) { return (*static_cast<F*>(o))(i); }) {}
    bool operator()(std::uint32_t i) const { return call_(object_, i); }

  private:
    void* object_;
    bool (*call_)(void*, std::uint32_t);
  };
  void lookup_candidates(const HashedName& name, FunctionRef visit) const;
  struct Lazy;
  struct GnuHash;
  void prepare_gnu_hash(Lazy& lazy) const;
  void prepare_sysv_hash(Lazy& lazy) const;
  void prepare_name_index(Lazy& lazy) const;
  bool gnu_bloom_passes(const GnuHash& gnu, std::uint32_t h) const;

  struct Segment {
    std::uint64_t vaddr, offset, filesz;
  };

  FileBytes bytes_;
  ByteReader reader_;
  const TableSource* copies_ = nullptr; // set during parse() only
  // The names dynamic_string copied: DynamicInfo's views point into them.
  // Shared: a copy of the object (with_symbols) keeps them alive.
  std::shared_ptr<std::deque<std::string>> copied_strings_;
  std::uint8_t class_ = 0;
  std::uint16_t machine_ = 0;
  std::uint16_t type_ = 0;
  bool has_dynamic_ = false;
  std::optional<std::uint32_t> gnu_stack_flags_; // the last PT_GNU_STACK's p_flags
  std::vector<Segment> loads_;
  // The dynamic array as ld.so reads it (read_dynamic_array), DT_NULL left out.
  struct DynEntry {
    std::int64_t tag;
    std::uint64_t value;
    std::optional<std::uint64_t> file_offset; // where the file holds it, when it does
  };
  std::vector<DynEntry> dyn_entries_;
  std::uint64_t shoff_ = 0;
  std::uint16_t shnum_ = 0, shentsize_ = 0;

  // Raw dynamic values (virtual addresses unless noted).
  std::optional<std::uint64_t> strtab_, strsz_, symtab_, hash_, gnu_hash_, versym_, verdef_,
      verdefnum_, verneed_, verneednum_, rela_, relasz_, rel_, relsz_, jmprel_, pltrelsz_, pltrel_;
  std::vector<std::uint64_t> needed_offsets_, filter_offsets_, aux_offsets_;
  std::optional<std::uint64_t> soname_off_, rpath_off_, runpath_off_;

  DynamicInfo dynamic_;
  std::uint64_t strtab_offset_ = 0, strtab_end_ = 0;
  bool symbols_loaded_ = false;
  std::uint64_t symtab_offset_ = 0;
  std::uint32_t symbol_count_ = 0;
  std::optional<std::uint64_t> versym_offset_;
  std::optional<std::uint64_t> gnu_hash_offset_, sysv_hash_offset_;
  // DT_GNU_HASH header, validated once (valid == false: use the fallbacks).
  struct GnuHash {
    bool valid = false;
    std::uint32_t nbuckets = 0, symoffset = 0, bloom_size = 0, shift = 0;
    std::uint64_t bloom = 0, buckets = 0, chain = 0; // file offsets
  };
  // DT_HASH header, validated once.
  struct SysvHash {
    bool valid = false;
    std::uint32_t nbucket = 0, nchain = 0;
    std::uint64_t buckets = 0, chains = 0; // file offsets
  };
  // What lookups and the list of undefined symbols need is found at first
  // use, from any thread, not at parse: a repeated doctor run, whose
  // bindings and symbol rule are kept between runs, looks up no symbol, lists
  // no undefined one, and reads none of those tables.
  struct Lazy {
    std::once_flag undefined_found, index_decided;
    std::vector<std::uint32_t> undefined;
    GnuHash gnu;
    SysvHash sysv;
    // Set only when the table lookups would use is degenerate (a chain
    // longer than any linker makes, chains that share entries or loop, or no
    // hash table on a large symbol table): each name's candidates in the
    // order the chain walk meets them, so that a hostile file cannot make
    // every lookup walk the whole table (quadratic work over all undefined
    // symbols).
    bool use_name_index = false;
    std::unordered_map<std::string_view, std::vector<std::uint32_t>> name_index;
  };
  std::shared_ptr<Lazy> lazy_; // made by parse_symbols: each parse has its own
  std::vector<VersionDefinition> verdefs_;
  std::vector<VersionNeed> verneeds_;
};

} // namespace condacuda::elf
