#include "inventory/package_requirements.hpp"

#include <algorithm>
#include <cctype>

#include "inventory/components.hpp"
#include "inventory/inventory.hpp"
#include "inventory/records.hpp"

namespace condacuda::inventory {

namespace {
// conda's package names for NVIDIA's components (conda-forge and nvidia
// channels), where no library of the env says it.
struct CondaName {
  std::string_view package, component;
};
constexpr CondaName conda_names[] = {
    {"cudnn", "cudnn"},           {"nccl", "nccl"},                 {"libcublas", "cublas"},
    {"libcusparse", "cusparse"},  {"libnvjitlink", "nvjitlink"},    {"cuda-cudart", "cudart"},
    {"libcufft", "cufft"},        {"libcurand", "curand"},          {"libcusolver", "cusolver"},
    {"cuda-nvrtc", "nvrtc"},      {"cuda-cupti", "cupti"},          {"libcusparselt", "cusparselt"},
    {"libnvshmem", "nvshmem"},    {"libcufile", "cufile"},          {"libnvjpeg", "nvjpeg"},
};
constexpr std::string_view wheel_components[] = {"cudart", "nvrtc", "nvjitlink", "cublas", "cusparse", "cusolver",
                                                 "cufft", "curand", "cupti", "nvtx", "nvfatbin", "npp", "nvjpeg",
                                                 "cufile", "cudnn", "nccl", "cusparselt", "nvshmem"};

std::optional<ComponentRequirement> resolve(Requirement r, const std::string& package, const std::string& version,
                                            const std::string& manager, const std::vector<Library>& libraries,
                                            const MarkerEnvironment& here) {
  if (r.specifiers.empty()) return std::nullopt; // any version: nothing to check
  auto component = component_of_package(r.name, libraries);
  if (!component) return std::nullopt;
  // A marker that is false here, or that cannot be judged, leaves the requirement out (never claimed).
  if (applies(r, here) != true) return std::nullopt;
  return ComponentRequirement{package, version, manager, *component, std::move(r)};
}
} // namespace

std::optional<std::string> component_of_package(std::string_view normalized_name, const std::vector<Library>& libraries) {
  for (const auto& lib : libraries)
    if (!lib.package.empty() && normalize_package_name(lib.package) == normalized_name) return lib.component;
  for (auto component : wheel_components)
    for (int major : {11, 12, 13})
      if (normalize_package_name(wheel_for_component(component, major)) == normalized_name) return std::string(component);
  for (const auto& c : conda_names)
    if (c.package == normalized_name) return std::string(c.component);
  return std::nullopt;
}

std::string python_version_of(const std::vector<std::string>& site_packages) {
  for (const auto& sp : site_packages) {
    auto at = sp.find("python");
    if (at == std::string::npos) continue;
    std::string v;
    for (std::size_t i = at + 6; i < sp.size() && (std::isdigit(static_cast<unsigned char>(sp[i])) || sp[i] == '.'); ++i)
      v += sp[i];
    if (v.find('.') != std::string::npos) return v;
  }
  return "";
}

std::vector<ComponentRequirement> component_requirements(const EnvSnapshot& s, const std::vector<Library>& libraries,
                                                         std::vector<std::string>& warnings) {
  MarkerEnvironment here;
  here.python_version = python_version_of(s.site_packages);
  std::vector<ComponentRequirement> out;
  for (const auto& d : s.distributions)
    for (const auto& line : d.requires_dist) {
      auto r = parse_requires_dist(line);
      if (!r) {
        warnings.push_back(d.dist_info + "/METADATA: Requires-Dist '" + line + "' cannot be read: " + r.error().message);
        continue;
      }
      if (auto c = resolve(std::move(*r), d.name, d.version, "pip", libraries, here)) out.push_back(std::move(*c));
    }
  for (const auto& p : s.conda_packages)
    for (const auto& spec : p.depends) {
      auto r = parse_conda_match_spec(spec);
      if (!r) {
        warnings.push_back(p.record + ": depends '" + spec + "' cannot be read: " + r.error().message);
        continue;
      }
      if (auto c = resolve(std::move(*r), p.name, p.version, "conda", libraries, here)) out.push_back(std::move(*c));
    }
  return out;
}

} // namespace condacuda::inventory
