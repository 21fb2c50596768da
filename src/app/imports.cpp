#include "app/imports.hpp"

#include <filesystem>

#include "frameworks/recipes.hpp"
#include "util/strings.hpp"

namespace condacuda::app {

namespace fs = std::filesystem;

namespace {
// The extension module file of `name` under one site-packages folder: the
// last part's "<part>.<tag>.so" or "<part>.so" in the parts' folder.
std::optional<std::string> extension_of(const std::string& name, const fs::path& site_packages) {
  std::vector<std::string> parts = util::split(name, ".");
  if (parts.empty()) return std::nullopt;
  fs::path folder = site_packages;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) folder /= parts[i];
  std::error_code ec;
  std::optional<std::string> found;
  for (const auto& entry : fs::directory_iterator(folder, ec)) {
    const std::string file = entry.path().filename().string();
    if (file.starts_with(parts.back() + ".") && file.ends_with(".so") && (!found || file < fs::path(*found).filename().string()))
      found = entry.path().string();
  }
  return found;
}

Result<std::string> file_of(const std::string& item, const std::string& prefix, const std::vector<std::string>& site_packages) {
  std::error_code ec;
  if (item.find('/') != std::string::npos) {
    for (const fs::path& candidate : {fs::path(item).is_absolute() ? fs::path(item) : fs::path(prefix) / item,
                                      fs::absolute(item, ec)})
      if (fs::is_regular_file(candidate, ec)) return candidate.lexically_normal().string();
    return make_error(ErrorCode::bad_input, "--imports: no file '" + item + "' (in the env, or here)");
  }
  for (const auto& sp : site_packages)
    if (auto file = extension_of(item, fs::path(prefix) / sp)) return *file;
  return make_error(ErrorCode::bad_input, "--imports: '" + item +
                                              "' names no extension module of the env's site-packages (a pure-Python "
                                              "package? give the extension file it imports, e.g. torch/_C.cpython-...so)");
}
} // namespace

Result<std::vector<doctor::DoctorInputs::Import>> resolve_imports(const std::vector<std::string>& items,
                                                                  const std::string& prefix,
                                                                  const std::vector<std::string>& site_packages) {
  std::vector<doctor::DoctorInputs::Import> out;
  for (std::string item : items) {
    const bool global = item.starts_with("global:");
    if (global) item = item.substr(7);
    // A framework of the recipe book: its import as its recipe runs (frameworks/program.hpp).
    if (!global && frameworks::embedded_recipes().find(item)) {
      out.push_back({"", false, item});
      continue;
    }
    auto file = file_of(item, prefix, site_packages);
    if (!file) return file.error();
    out.push_back({*file, global, ""});
  }
  return out;
}

} // namespace condacuda::app
