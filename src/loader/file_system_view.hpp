#pragma once
// What the loader model sees of the file system. The core never opens files
// itself: the system layer implements this interface (sys/disk_file_view.cpp) with
// stat + mmap and caching; tests can implement it in memory.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "elf/elf_object.hpp"
#include "elf/load_checks.hpp"
#include "elf/pin.hpp"
#include "loader/file_stamp.hpp"

namespace condacuda::loader {

// Results computed from files and kept across runs (by the system layer, in
// a cache file), under a key made of everything a result depends on: the
// stamps of the files it read, and the parameters. A hit stands for the
// computation. A value is text; whoever reads it checks it against the files
// it names, and one that does not fit is a miss, computed again.
class ResultMemo {
public:
  virtual ~ResultMemo() = default;
  // `inputs`: the key's material (any bytes); the memo digests it.
  virtual std::optional<std::string> find(std::string_view inputs) = 0;
  virtual void remember(std::string_view inputs, std::string_view value) = 0;
};

// What opening one path gave: glibc's open_verify (elf/dl-load.c) opens a
// candidate and checks its ELF header before the loader maps it.
struct OpenedFile {
  int open_errno = 0;     // non-zero: open() failed with this errno (ENOENT, EACCES, ...)
  bool is_directory = false; // open() succeeds on a directory, the header read fails (EISDIR)
  bool blocks = false;       // a FIFO: ld.so's open() (no O_NONBLOCK) waits for a writer, forever
  std::uint64_t dev = 0, ino = 0; // the file's identity: ld.so never maps one file twice
  FileStamp stamp;                // the identity a later run can check (regular files the system layer opened)
  elf::HeaderCheck header;        // valid when opened and not a directory
  std::shared_ptr<const elf::ElfObject> elf; // when the header is acceptable and parsing worked
  std::string parse_error;        // header acceptable but condacuda could not parse the tables
  // What mapping, relocating and initialising it would meet: computed by the
  // simulator the first time it maps the file (only a load needs it: `lock`
  // and `info` never walk relocation tables), kept with the file.
  mutable std::optional<elf::LoadCheck> load;

  bool opened() const { return open_errno == 0; }
};

class FileSystemView {
public:
  virtual ~FileSystemView() = default;
  // open_verify of an absolute path, cached by the implementation. The model
  // makes relative paths absolute against its configured cwd first.
  virtual const OpenedFile& open_verify(const std::string& absolute_path) = 0;
  // Whether a directory exists (ld.so marks missing search directories
  // "nonexisting" and skips them; the model uses this to avoid probing every
  // candidate under them). Default: through open_verify().
  virtual bool directory_exists(const std::string& absolute_path) { return open_verify(absolute_path).is_directory; }
  // The file a path names once every symlink is followed (realpath): its
  // file name is version evidence for a library no package owns
  // (libcudnn.so.9 -> libcudnn.so.9.1.0, inventory/version_evidence.hpp).
  // Asked only for the few outside copies a requirement concerns. Default:
  // the path itself.
  virtual std::string real_path(const std::string& absolute_path) { return absolute_path; }
  // Where results keyed by file stamps are kept between runs; none by
  // default (and with --no-cache).
  virtual ResultMemo* result_memo() { return nullptr; }
  // The load check of `file` when the view has it computed elsewhere (the
  // system layer runs them on other threads while the model simulates:
  // computed on the caller's thread when not yet begun, else waited for,
  // the caller checking other files meanwhile); nullopt: the caller computes
  // it. Default: none.
  virtual std::optional<elf::LoadCheck> prepared_load_check(const OpenedFile& file) {
    (void)file;
    return std::nullopt;
  }
  // The bytes of `file` (what open_verify gave for `absolute_path`) with
  // `patches` written over them: a library as it will be once pinned.
  // nullopt when a patch is out of range, or the file on disk is no longer
  // `file`. Default: a patched copy of the whole. The system layer maps the
  // file again copy-on-write, so that only the patched pages cost memory.
  virtual std::optional<elf::FileBytes> patched_bytes(const std::string& absolute_path, const OpenedFile& file,
                                                      const std::vector<elf::BytePatch>& patches) {
    (void)absolute_path;
    if (!file.elf) return std::nullopt;
    const auto& data = file.elf->bytes().data;
    auto copy = elf::apply_patches(std::string_view(reinterpret_cast<const char*>(data.data()), data.size()), patches);
    if (!copy) return std::nullopt;
    return elf::bytes_from_string(*copy);
  }
};

} // namespace condacuda::loader
