#include "sys/disk_file_view.hpp"

#include <filesystem>

#include <cerrno>
#include <sys/stat.h>

#include "sys/machine.hpp"
#include "sys/mapped_file.hpp"

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
  if (::stat(absolute_path.c_str(), &st) != 0) {
    p.open_errno = errno;
  } else {
    p.dev = static_cast<std::uint64_t>(st.st_dev);
    p.ino = static_cast<std::uint64_t>(st.st_ino);
    if (S_ISDIR(st.st_mode)) {
      p.is_directory = true;
    } else if (S_ISFIFO(st.st_mode)) {
      p.blocks = true; // never opened here: the model says what the loader would do
    } else {
      int err = 0;
      auto adopted = adopted_.find(absolute_path);
      Result<elf::FileBytes> bytes = adopted != adopted_.end() ? Result<elf::FileBytes>(adopted->second)
                                                                : map_file(absolute_path, &err);
      if (!bytes) {
        p.open_errno = err ? err : EIO;
      } else {
        p.header = elf::verify_header(bytes->data, machine_);
        if (p.header.verdict == elf::HeaderVerdict::ok) {
          auto parsed = elf::ElfObject::parse(*bytes, true);
          if (parsed) p.elf = *parsed;
          else p.parse_error = parsed.error().message;
        }
      }
    }
  }
  return cache_.emplace(absolute_path, std::move(p)).first->second;
}

void DiskFileView::adopt(const std::string& absolute_path, const elf::FileBytes& bytes) {
  adopted_.emplace(absolute_path, bytes);
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
