#include "sys/kernelspec_writer.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "jupyter/kernelspec.hpp"
#include "sys/prefix_tree.hpp"
#include "sys/mapped_file.hpp"

namespace condacuda::sys {

namespace {
namespace fs = std::filesystem;

// The nearest folder of `dir` (itself or an ancestor) that exists, and the
// path below it still to create; with `within`, that folder and the path
// below it. Its owner must be this process's user.
struct Ground {
  std::string base;
  std::string below; // relative, "" when `dir` exists
};

Result<Ground> ground_of(const std::string& dir, const std::string& within) {
  fs::path p = fs::path(dir).lexically_normal();
  if (!p.is_absolute()) return make_error(ErrorCode::bad_input, "the kernel folder is not an absolute path", dir);
  fs::path below;
  struct stat st {};
  if (!within.empty()) {
    std::string base = fs::path(within).lexically_normal().string();
    while (base.size() > 1 && base.back() == '/') base.pop_back();
    if (!p.string().starts_with(base + "/")) return make_error(ErrorCode::bad_input, "the kernel folder is not in " + base, dir);
    below = fs::path(p.string().substr(base.size() + 1));
    p = base;
    if (::stat(p.c_str(), &st) != 0) return make_error(ErrorCode::io, "no such folder", base);
  }
  while (within.empty() && ::stat(p.c_str(), &st) != 0) {
    if (!p.has_relative_path()) return make_error(ErrorCode::io, "no folder of this path exists", dir);
    below = p.filename() / below;
    p = p.parent_path();
  }
  if (!S_ISDIR(st.st_mode)) return make_error(ErrorCode::io, "not a folder", p.string());
  if (st.st_uid != ::geteuid())
    return make_error(ErrorCode::io,
                      "the folder belongs to uid " + std::to_string(st.st_uid) + ", not to the user condacuda runs as (uid " +
                          std::to_string(::geteuid()) + "): run `condacuda kernel install` as that user",
                      p.string());
  std::string rel = below.lexically_normal().generic_string();
  while (!rel.empty() && rel.back() == '/') rel.pop_back();
  return Ground{p.string(), rel == "." ? "" : rel};
}

std::string joined(const std::string& a, const std::string& b) { return a.empty() ? b : a + "/" + b; }
} // namespace

Result<std::optional<std::string>> read_kernelspec_file(const std::string& kernel_dir, const std::string& within) {
  auto ground = ground_of(kernel_dir, within);
  if (!ground) return ground.error();
  if (within.empty() && !ground->below.empty()) return std::optional<std::string>();
  auto tree = PrefixTree::open(ground->base);
  if (!tree) return tree.error();
  return tree->read_file(joined(ground->below, "kernel.json"), read_cap::config);
}

Status write_kernelspec_file(const std::string& kernel_dir, const std::string& text, const std::string& within) {
  auto ground = ground_of(kernel_dir, within);
  if (!ground) return ground.error();
  auto tree = PrefixTree::open(ground->base);
  if (!tree) return tree.error();
  std::string made;
  for (const auto& part : fs::path(ground->below)) {
    made = joined(made, part.string());
    if (auto created = tree->make_directory(made); !created) return created.error();
  }
  const std::string file = joined(ground->below, "kernel.json");
  auto existing = tree->read_file(file, read_cap::config);
  if (!existing) return existing.error();
  if (*existing && !jupyter::written_by_condacuda(**existing))
    return make_error(ErrorCode::conflict,
                      "a kernel.json condacuda did not write is there: choose another --kernel-name, or remove it "
                      "(`jupyter kernelspec remove NAME`)",
                      kernel_dir + "/kernel.json");
  if (*existing && **existing == text) return ok_status();
  return tree->write_file(file, text);
}

} // namespace condacuda::sys
