#pragma once
// What glibc's ld.so does with a shared object after open_verify accepted its
// header and before its constructors run, as far as the bytes decide whether
// the load ends in a refusal or a crash: the load commands
// (_dl_map_object_from_fd), the image _dl_map_segments makes of them, the
// dynamic section read in that image up to DT_NULL with elf_get_dynamic_info's
// assertions, the hash table header (_dl_setup_hash), the version records
// (_dl_check_map_versions), the relocation tables (elf_dynamic_do_Rela, x86-64)
// and the initialisers (call_init). Symbol binding, versions against other
// objects and the search for dependencies are the simulator's.
//
// Modelled on glibc 2.36 (Debian 12), with the rules that differ before 2.35
// (measured on 2.31), for 64-bit little-endian objects. The rules and their
// sources: docs/loader-model.md, "File validity".
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "elf/byte_reader.hpp"
#include "elf/table_source.hpp"

namespace condacuda::elf {

struct LoadCheck {
  enum class Outcome {
    ok,       // nothing here stops the load
    refuses,  // dlopen fails with `reason` (glibc's words)
    crashes,  // ld.so faults or fails an assertion: `reason` says where
  };
  Outcome outcome = Outcome::ok;
  std::string reason;
  bool ok() const { return outcome == Outcome::ok; }
};

// `file` passed verify_header. `machine` selects the relocation types known
// (x86-64 only; others skip that check). `page_size` is GLRO(dl_pagesize).
// `commit_limit`: the largest private writable mapping the kernel grants
// (sys::commit_limit); a larger bss cannot be mapped. `glibc_minor`: the
// release whose checks apply (2.<minor>; the load commands' alignment rules
// changed in 2.35).
// `tables`: where the large relocation tables are read from besides `file`
// (elf/table_source.hpp; nullptr: the map only).
LoadCheck check_load(std::span<const std::byte> file, std::uint16_t machine, std::uint64_t page_size = 4096,
                     std::uint64_t commit_limit = UINT64_MAX, int glibc_minor = 36, const TableSource* tables = nullptr);
// The same over a reader of the file (FileBytes::reader(): its first page
// read from the copy made when it was opened, not faulted in through the map).
LoadCheck check_load(const ByteReader& file, std::uint16_t machine, std::uint64_t page_size = 4096,
                     std::uint64_t commit_limit = UINT64_MAX, int glibc_minor = 36, const TableSource* tables = nullptr);

} // namespace condacuda::elf
