#include "inventory/cuda_builds.hpp"

#include <cctype>

namespace condacuda::inventory {

namespace {
bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// "11" -> 11; "117" -> 11 (CUDA 11.7); "118" -> 11; "12" -> 12; "130" -> 13;
// "92" -> 9 (CUDA 9.2: majors below 10 are one digit, its minor after it).
std::optional<int> major_of_digits(std::string_view d) {
  if (!all_digits(d) || d.size() < 2 || d.size() > 3) return std::nullopt;
  if (d[0] != '1') return d.size() == 2 ? std::optional<int>(d[0] - '0') : std::nullopt;
  return (d[0] - '0') * 10 + (d[1] - '0');
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (char& c : out)
    if (c == '_') c = '-'; // PEP 503: names compare normalised
  return out;
}

bool is_pytorch_package(const std::string& n) { return n == "torch" || n == "torchvision" || n == "torchaudio"; }

// The digits of "cupy-cuda12x" / "cupy-cuda117", "nvidia-cublas-cu12", "jax-cuda12-plugin".
std::optional<std::string> name_digits(const std::string& n) {
  if (n.rfind("cupy-cuda", 0) == 0) {
    std::string d = n.substr(9);
    if (!d.empty() && d.back() == 'x') d.pop_back();
    return d;
  }
  if (n.rfind("nvidia-", 0) == 0) {
    const auto at = n.rfind("-cu");
    if (at != std::string::npos && all_digits(n.substr(at + 3))) return n.substr(at + 3);
  }
  if (n.rfind("jax-cuda", 0) == 0) {
    const auto dash = n.find('-', 8);
    if (dash != std::string::npos) return n.substr(8, dash - 8);
  }
  return std::nullopt;
}
} // namespace

std::optional<int> cuda_major_of_build(std::string_view name, std::string_view version) {
  const std::string n = lower(name);
  if (auto d = name_digits(n)) return major_of_digits(*d);
  // A local version "+cu118" (PyTorch's wheels from its per-CUDA index).
  const auto plus = version.find("+cu");
  if (plus != std::string_view::npos) return major_of_digits(version.substr(plus + 3));
  return std::nullopt;
}

std::optional<int> cuda_major_of_conda_build(std::string_view build) {
  for (auto at = build.find("cuda"); at != std::string_view::npos; at = build.find("cuda", at + 4)) {
    std::size_t end = at + 4;
    while (end < build.size() && std::isdigit(static_cast<unsigned char>(build[end]))) ++end;
    const std::string_view digits = build.substr(at + 4, end - at - 4);
    // "cuda11.8", "cuda9.2.148": the digits before the dot are the major.
    if (end < build.size() && build[end] == '.' && !digits.empty() && digits.size() <= 2)
      return digits.size() == 1 ? digits[0] - '0' : (digits[0] - '0') * 10 + (digits[1] - '0');
    if (const auto major = major_of_digits(digits)) return major;
  }
  return std::nullopt;
}

std::optional<BuiltFor> built_for(std::string_view name, std::string_view version, std::string_view conda_build,
                                  const std::vector<ComponentRequirement>& requirements) {
  if (const auto major = cuda_major_of_build(name, version))
    return BuiltFor{*major, name_digits(lower(name)) ? std::string("its name")
                                                    : "its local version " + std::string(version.substr(version.find("+cu")))};
  if (const auto major = cuda_major_of_conda_build(conda_build))
    return BuiltFor{*major, "its build string " + std::string(conda_build)};
  // NVIDIA's wheels of one major among what it requires.
  std::optional<BuiltFor> found;
  for (const auto& r : requirements) {
    if (lower(r.package) != lower(name)) continue;
    const auto digits = name_digits(r.requirement.name);
    const auto major = digits ? major_of_digits(*digits) : std::nullopt;
    if (!major) continue;
    if (found && found->major != *major) return std::nullopt; // two majors: it says nothing
    if (!found) found = BuiltFor{*major, "its requirement " + r.requirement.text};
  }
  return found;
}

std::string conda_rebuild_command(std::string_view name, int major, std::string_view build) {
  const std::string n = lower(name);
  const bool pytorch_channel = (n == "pytorch" || n == "torchvision" || n == "torchaudio") && build.find("_cuda") != std::string_view::npos &&
                               build.find("_cudnn") != std::string_view::npos;
  const char* pytorch_cuda = major == 11 ? "11.8" : major == 12 ? "12.4" : nullptr;
  if (pytorch_channel && pytorch_cuda)
    return "conda install " + std::string(name) + " pytorch-cuda=" + pytorch_cuda + " -c pytorch -c nvidia";
  return "conda install " + std::string(name) + " 'cuda-version=" + std::to_string(major) + "'";
}

std::string pytorch_index_for(int major) {
  switch (major) {
  case 11: return "https://download.pytorch.org/whl/cu118";
  case 12: return "https://download.pytorch.org/whl/cu126";
  case 13: return "https://download.pytorch.org/whl/cu130";
  }
  return "";
}

std::vector<std::string> Rebuild::pip_install_args() const {
  std::vector<std::string> args{"install", install};
  if (!index_url.empty()) args.insert(args.end(), {"--index-url", index_url});
  return args;
}

// (The version is not needed: PyPI's torch and its +cuXYZ builds alike come from the per-CUDA index.)
std::optional<Rebuild> rebuild_for(std::string_view name, std::string_view /*version*/, int major) {
  const std::string n = lower(name), m = std::to_string(major);
  if (n.rfind("cupy-cuda", 0) == 0) return Rebuild{n, "cupy-cuda" + m + "x", ""};
  if (n.rfind("jax-cuda", 0) == 0) return Rebuild{n, "jax[cuda" + m + "]", ""};
  if (n.rfind("nvidia-", 0) == 0) {
    const auto at = n.rfind("-cu");
    if (at != std::string::npos) return Rebuild{n, n.substr(0, at) + "-cu" + m, ""};
  }
  if (is_pytorch_package(n)) {
    const std::string index = pytorch_index_for(major);
    if (!index.empty()) return Rebuild{n, n, index};
  }
  return std::nullopt;
}

} // namespace condacuda::inventory
