#include "sys/disk_file_view.hpp"

#include <filesystem>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "sys/machine.hpp"
#include "sys/mapped_file.hpp"
#include "sys/posix.hpp"

namespace condacuda::sys {

std::string DiskFileView::real_path(const std::string& absolute_path) {
  auto it = real_paths_.find(absolute_path);
  if (it != real_paths_.end()) return it->second;
  std::error_code ec;
  auto real = std::filesystem::canonical(absolute_path, ec);
  return real_paths_[absolute_path] = ec ? absolute_path : real.string();
}

const loader::OpenedFile& DiskFileView::open_verify(const std::string& absolute_path) {
  auto it = cache_.find(absolute_path);
  if (it != cache_.end()) return it->second;
  loader::OpenedFile p;
  struct stat st {};
  bool replaced = false;
  if (::stat(absolute_path.c_str(), &st) != 0) {
    p.open_errno = errno;
  } else {
    p.dev = static_cast<std::uint64_t>(st.st_dev);
    p.ino = static_cast<std::uint64_t>(st.st_ino);
    if (S_ISDIR(st.st_mode)) {
      p.is_directory = true;
    } else if (S_ISFIFO(st.st_mode)) {
      p.blocks = true; // never opened here: the model says what the loader would do
    } else if (auto same = by_inode_.find({p.dev, p.ino}); same != by_inode_.end() && same->second->elf &&
                                                           same->second->elf->bytes().data.size() ==
                                                               static_cast<std::uint64_t>(st.st_size)) {
      // Another name of a file already opened (a soname link, a folder
      // link): the same bytes, parsed and checked once.
      p.header = same->second->header;
      p.elf = same->second->elf;
      p.load = same->second->load;
    } else {
      int err = 0;
      auto adopted = adopted_.find(absolute_path);
      Result<OpenMap> opened = adopted != adopted_.end() ? Result<OpenMap>(OpenMap{adopted->second->bytes(), Fd()})
                                                          : map_file_open(absolute_path, &err);
      const elf::FileBytes* bytes = opened ? &opened->bytes : nullptr;
      if (!opened) {
        p.open_errno = err ? err : EIO;
      } else {
        if (bytes->source.known() && bytes->source != elf::FileIdentity{p.dev, p.ino}) {
          // Replaced between the stat and the map (or since the scan mapped
          // it): these bytes are another file's, so they are described by its
          // identity, and neither looked up in nor stored to the cache under
          // the stat's key.
          p.dev = bytes->source.dev;
          p.ino = bytes->source.ino;
          replaced = true;
        }
        // Pieces far from the header (a note, the dynamic section) read with
        // pread (elf/table_source.hpp): through the descriptor mapped, or,
        // for a file the scan parsed and closed, the path opened again.
        const DescriptorCopies copies(opened->fd.get());
        const ReopenedCopies reopened(absolute_path, *bytes);
        const elf::TableSource* far_pieces = opened->fd.valid() ? static_cast<const elf::TableSource*>(&copies) : &reopened;
        p.header = elf::verify_header(*bytes, machine_, far_pieces);
        if (p.header.verdict == elf::HeaderVerdict::ok) {
          // What the symbol tables said of this very file before (its stamp
          // unchanged): their far pages are not read again.
          const std::string facts_key = replaced ? std::string() : symbol_facts_key(stamp_of(st));
          const std::optional<std::string> facts = facts_key.empty() ? std::nullopt : result_memo_->find(facts_key);
          const std::string_view kept = facts ? std::string_view(*facts) : std::string_view();
          auto parsed = adopted != adopted_.end() ? elf::ElfObject::with_symbols(*adopted->second, kept)
                                                  : elf::ElfObject::parse(*bytes, true, far_pieces, kept);
          if (parsed) p.elf = *parsed;
          else p.parse_error = parsed.error().message;
          if (parsed && !facts_key.empty()) result_memo_->remember(facts_key, (*parsed)->symbol_facts());
        }
      }
    }
  }
  if (S_ISREG(st.st_mode) && p.opened() && !replaced) {
    const FileKey key = key_of(st);
    keys_.emplace(absolute_path, key);
    if (p.elf && !p.load && load_checks_) p.load = load_checks_->find(absolute_path, key);
    p.stamp = stamp_of(st);
  }
  const loader::OpenedFile& stored = cache_.emplace(absolute_path, std::move(p)).first->second;
  if (stored.elf) by_inode_.emplace(std::pair{stored.dev, stored.ino}, &stored);
  return stored;
}

std::optional<elf::FileBytes> DiskFileView::patched_bytes(const std::string& absolute_path,
                                                          const loader::OpenedFile& file,
                                                          const std::vector<elf::BytePatch>& patches) {
  if (!file.elf) return std::nullopt;
  const std::size_t size = file.elf->bytes().data.size();
  for (const auto& p : patches)
    if (p.offset > size || size - p.offset < p.bytes.size()) return std::nullopt;
  const Fd f = size == 0 ? Fd() : reopen_mapped(absolute_path, file.elf->bytes());
  if (!f.valid()) return std::nullopt;
  // MAP_PRIVATE and writable: a write copies its page, never reaches the file.
  void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, f.get(), 0);
  if (p == MAP_FAILED) return std::nullopt;
  for (const auto& patch : patches) std::memcpy(static_cast<char*>(p) + patch.offset, patch.bytes.data(), patch.bytes.size());
  ::mprotect(p, size, PROT_READ);
  std::shared_ptr<const void> owner(p, [size](const void* q) { ::munmap(const_cast<void*>(q), size); });
  return elf::FileBytes{owner, std::span<const std::byte>(static_cast<const std::byte*>(p), size), file.elf->bytes().source,
                        nullptr, {}}; // no head: the patched map is read
}

void DiskFileView::adopt(const std::string& absolute_path, std::shared_ptr<const elf::ElfObject> parsed) {
  if (parsed) adopted_.emplace(absolute_path, std::move(parsed));
}

loader::FileStamp stamp_of(const struct stat& st) {
  const FileKey key = key_of(st);
  if (!has_settled(key)) return {};
  return {key.dev, key.ino, key.size, key.mtime_ns, key.ctime_ns};
}

std::string DiskFileView::symbol_facts_key(const loader::FileStamp& stamp) const {
  if (!result_memo_ || !stamp.known()) return {};
  std::string inputs = "symbol facts 1";
  loader::put_stamp(inputs, stamp);
  return inputs;
}

DiskFileView& process_file_view() {
  static DiskFileView* view = new DiskFileView(host_machine()); // never destroyed, on purpose
  return *view;
}

bool DiskFileView::directory_exists(const std::string& absolute_path) {
  auto it = directories_.find(absolute_path);
  if (it != directories_.end()) return it->second;
  struct stat st {};
  bool exists = ::stat(absolute_path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
  directories_.emplace(absolute_path, exists);
  return exists;
}

} // namespace condacuda::sys
