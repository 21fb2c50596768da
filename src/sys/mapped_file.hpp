#pragma once
// Read-only memory maps: the way ELF files are read, so that only the pages the
// parser touches (headers, dynamic tables) are ever read from disk.
#include <cstdint>
#include <string>

#include "elf/elf_object.hpp"
#include "sys/posix.hpp"
#include "util/result.hpp"

struct stat;

namespace condacuda::sys {

// Maps the whole file read-only. Errors carry the path and strerror text; when
// errno_out is given it receives the errno (callers that mimic ld.so need it).
Result<elf::FileBytes> map_file(const std::string& path, int* errno_out = nullptr);

// A map and the descriptor it was made from, open while this lives: pieces
// of the file can be read with pread (DescriptorCopies) while the map is
// parsed, the same bytes without faulting pages in.
struct OpenMap {
  elf::FileBytes bytes;
  Fd fd;
};
Result<OpenMap> map_file_open(const std::string& path, int* errno_out = nullptr);

// pread(2) of a descriptor as an elf::TableSource: every byte asked for, or
// false (a read error, the end of the file).
class DescriptorCopies final : public elf::TableSource {
public:
  explicit DescriptorCopies(int fd) : fd_(fd) {}
  bool copy(std::uint64_t offset, std::span<std::byte> out) const override;

private:
  int fd_;
};

// DescriptorCopies of the file `mapped` came from, opened through `path` by
// reopen_mapped on the first copy asked for (and never, when none is): the
// same bytes as the map while the path still leads to that file, else false.
class ReopenedCopies final : public elf::TableSource {
public:
  ReopenedCopies(const std::string& path, const elf::FileBytes& mapped) : path_(path), mapped_(mapped) {}
  bool copy(std::uint64_t offset, std::span<std::byte> out) const override;

private:
  const std::string& path_;
  const elf::FileBytes& mapped_;
  mutable bool opened_ = false;
  mutable Fd fd_;
};

// The file `mapped` came from, opened again through `path` (O_NONBLOCK: a
// FIFO put in its place never blocks): a valid Fd only while the path still
// leads to that very file, a regular file of the same device, inode and
// size. Bytes of unknown origin (not a map_file map) are never reopened.
Fd reopen_mapped(const std::string& path, const elf::FileBytes& mapped);

// How much condacuda reads of each kind of text file, at most (README
// "Limits"); a larger file is refused with a message saying so. An env is
// untrusted input: a 50 MB METADATA line or a RECORD linked to /dev/zero must
// cost a message, not memory.
namespace read_cap {
inline constexpr std::uint64_t metadata = 1u << 20;       // a wheel's METADATA (a few KB)
inline constexpr std::uint64_t record = 16u << 20;        // a wheel's RECORD (the largest known: a few MB)
inline constexpr std::uint64_t conda_record = 32u << 20;  // conda-meta/*.json (file lists of a package)
inline constexpr std::uint64_t lockfile = 4u << 20;       // a condacuda lock (~500 bytes a library)
inline constexpr std::uint64_t release_table = 4u << 20;
inline constexpr std::uint64_t hash_cache = 64u << 20;    // 100,000 entries
inline constexpr std::uint64_t config = 1u << 20;         // .condarc, pyvenv.cfg, ld.so.conf.d, activate.d scripts, /proc files
inline constexpr std::uint64_t environments_txt = 16u << 20;
inline constexpr std::uint64_t passwd = 16u << 20;           // /etc/passwd, for a process without HOME
inline constexpr std::uint64_t fleet_documents = 256u << 20; // fleet --from: a condacuda.fleet/1 document of thousands of nodes
} // namespace read_cap

// Reads a whole text file of at most `max_bytes`. Only a regular file is read
// (opened O_NONBLOCK: a FIFO never blocks); errors say what it is instead, or
// how large.
// `st`, when given, receives fstat's answer for the file read, taken before
// the read (a file changed while read has another key).
Result<std::string> read_text_file(const std::string& path, std::uint64_t max_bytes, struct stat* st = nullptr);

// The same through a descriptor already open (`shown` is the path errors name).
Result<std::string> read_regular_file(int fd, std::uint64_t max_bytes, const std::string& shown,
                                      struct stat* st = nullptr);

} // namespace condacuda::sys
