#pragma once
// python::PathProbe on the disk: what the sys.path model and the framework
// recipes ask of the file system, each answer kept for the run (a doctor
// run asks the same folders once per launch and per framework). An env is
// untrusted: a .pth file is read only when it is a regular file of at most
// read_cap::config bytes (a FIFO never blocks), a folder's listing stops at
// max_listed names.
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "python/sys_path.hpp"

namespace condacuda::sys {

class DiskPathProbe : public python::PathProbe {
public:
  static constexpr std::size_t max_listed = 100000;
  bool is_dir(const std::string& path) override;
  bool is_file(const std::string& path) override;
  bool exists(const std::string& path) override;
  std::vector<std::string> list(const std::string& dir) override;
  bool has(const std::string& dir, const std::string& name) override;
  std::optional<std::string> read_text(const std::string& path) override;

private:
  enum class Kind { missing, dir, file, other };
  Kind kind(const std::string& path);
  std::map<std::string, Kind> kinds_;
  std::map<std::string, std::vector<std::string>> listings_;
  std::unordered_map<std::string, bool> has_;
};

} // namespace condacuda::sys
