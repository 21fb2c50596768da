#pragma once
// The loader model's view of the real file system: open_verify done with
// stat + mmap, cached per path (a doctor run asks for the same files often).
#include <string>
#include <unordered_map>

#include "loader/file_view.hpp"

namespace condacuda::sys {

class DiskFileView final : public loader::FileSystemView {
public:
  explicit DiskFileView(std::uint16_t host_machine) : machine_(host_machine) {}
  const loader::FileProbe& probe(const std::string& absolute_path) override;

private:
  std::uint16_t machine_;
  std::unordered_map<std::string, loader::FileProbe> cache_;
};

} // namespace condacuda::sys
