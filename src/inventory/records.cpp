#include "inventory/records.hpp"

#include <algorithm>

#include "util/json.hpp"
#include "util/strings.hpp"

namespace condacuda::inventory {

namespace {
// One CSV line into fields; quotes may wrap a field and "" is a quote.
std::vector<std::string> csv_fields(std::string_view line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        fields.back().push_back('"');
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        fields.back().push_back(c);
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back().push_back(c);
    }
  }
  return fields;
}
} // namespace

std::vector<RecordEntry> parse_record(std::string_view text, bool (*keep)(std::string_view path)) {
  std::vector<RecordEntry> out;
  if (!keep) out.reserve(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1); // one per line
  while (!text.empty()) {
    std::string_view line = util::trim(util::next_line(text));
    if (line.empty()) continue;
    RecordEntry e;
    if (line.find('"') == std::string_view::npos) {
      // The common case, no quoting: split at the first two commas.
      auto c1 = line.find(',');
      if (keep && !keep(line.substr(0, c1))) continue;
      e.path = std::string(line.substr(0, c1));
      if (c1 != std::string_view::npos) {
        auto rest = line.substr(c1 + 1);
        auto c2 = rest.find(',');
        e.hash = std::string(rest.substr(0, c2));
        if (c2 != std::string_view::npos) e.size = std::string(rest.substr(c2 + 1));
      }
    } else {
      auto f = csv_fields(line);
      if (keep && !keep(f[0])) continue;
      e.path = f[0];
      if (f.size() > 1) e.hash = f[1];
      if (f.size() > 2) e.size = f[2];
    }
    out.push_back(std::move(e));
  }
  return out;
}

std::string kept_record_lines(std::string_view text, bool (*keep)(std::string_view path)) {
  std::string out;
  while (!text.empty()) {
    const std::string_view line = util::next_line(text);
    if (!parse_record(line, keep).empty()) (out += line) += '\n';
  }
  return out;
}

namespace {
constexpr std::string_view requires_dist_header = "requires-dist:";

// One line of METADATA's headers: what parse_metadata and
// kept_metadata_lines both walk.
enum class HeaderLine { end, continuation, requires_dist, other };
HeaderLine classify_header_line(std::string_view line) {
  if (line.empty() || line == "\r") return HeaderLine::end; // headers end at the first blank line
  if (line[0] == ' ' || line[0] == '\t') return HeaderLine::continuation;
  if (line.size() >= requires_dist_header.size() &&
      util::to_lower(line.substr(0, requires_dist_header.size())) == requires_dist_header)
    return HeaderLine::requires_dist;
  return HeaderLine::other;
}
} // namespace

std::string kept_metadata_lines(std::string_view text) {
  std::string out;
  bool in_requires_dist = false;
  while (!text.empty()) {
    const std::string_view line = util::next_line(text);
    const HeaderLine kind = classify_header_line(line);
    if (kind == HeaderLine::end) break;
    if (kind != HeaderLine::continuation) in_requires_dist = kind == HeaderLine::requires_dist;
    // A continuation is kept only after a Requires-Dist: dropped after
    // another header, it would extend the Requires-Dist before that one.
    const bool kept = kind == HeaderLine::continuation ? in_requires_dist
                                                       : kind == HeaderLine::requires_dist || line.starts_with("Name:") ||
                                                             line.starts_with("Version:");
    if (kept) (out += line) += '\n';
  }
  return out;
}

Metadata parse_metadata(std::string_view text) {
  Metadata m;
  bool in_requires_dist = false; // the last header was Requires-Dist: a continuation line extends it
  while (!text.empty()) { // the headers only: a long description follows them
    const std::string_view line = util::next_line(text);
    const HeaderLine kind = classify_header_line(line);
    if (kind == HeaderLine::end) break;
    if (kind == HeaderLine::continuation) {
      if (in_requires_dist) m.requires_dist.back() += " " + std::string(util::trim(line));
      continue;
    }
    in_requires_dist = kind == HeaderLine::requires_dist;
    if (in_requires_dist) {
      m.requires_dist.emplace_back(util::trim(line.substr(requires_dist_header.size())));
      continue;
    }
    // A name or version is short (PEP 440 versions, PEP 508 names); a longer
    // value is a hostile file's, and is ignored rather than printed.
    constexpr std::size_t longest = 256;
    auto take = [&](std::string_view key, std::string& into) {
      if (!into.empty() || line.substr(0, key.size()) != key) return;
      std::string_view value = util::trim(line.substr(key.size()));
      if (value.size() <= longest) into = std::string(value);
    };
    take("Name:", m.name);
    take("Version:", m.version);
  }
  return m;
}

Result<CondaPackage> parse_conda_record(std::string_view json_text) {
  auto parsed = util::parse_json(json_text);
  if (!parsed) return parsed.error();
  const util::Json& j = *parsed;
  if (!j.is_object()) return make_error(ErrorCode::corrupt, "a conda-meta record must be a JSON object");
  CondaPackage p;
  p.name = j.string_at("name");
  p.version = j.string_at("version");
  p.build = j.string_at("build");
  p.channel = j.string_at("channel");
  if (p.name.empty()) return make_error(ErrorCode::corrupt, "conda-meta record without a name");
  if (const auto* files = j.get("files"))
    for (const auto& f : files->as_array())
      if (f.is_string()) p.files.push_back(f.as_string());
  if (const auto* deps = j.get("depends"))
    for (const auto& d : deps->as_array())
      if (d.is_string()) p.depends.push_back(d.as_string());
  return p;
}

std::string normalize_package_name(std::string_view name) {
  std::string out;
  bool sep = false;
  for (char c : name) {
    if (c == '-' || c == '_' || c == '.') {
      sep = true;
      continue;
    }
    if (sep && !out.empty()) out.push_back('-');
    sep = false;
    out.push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c));
  }
  return out;
}

std::optional<int> wheel_cuda_suffix(std::string_view normalized_name) {
  auto pos = normalized_name.rfind("-cu");
  if (pos == std::string_view::npos) return std::nullopt;
  std::string_view digits = normalized_name.substr(pos + 3);
  if (digits.empty() || digits.size() > 3) return std::nullopt;
  for (char c : digits)
    if (c < '0' || c > '9') return std::nullopt;
  int n = util::leading_number(digits);
  return n >= 100 ? n / 10 : n; // "cu118" (11.8) -> 11
}

std::optional<int> conda_cuda_version_pin(const std::vector<std::string>& depends) {
  for (const auto& d : depends) {
    std::string_view spec = d;
    if (spec.substr(0, 12) != "cuda-version") continue;
    spec.remove_prefix(12);
    while (!spec.empty() && (spec[0] == ' ' || spec[0] == '>' || spec[0] == '=' || spec[0] == '<')) spec.remove_prefix(1);
    int major = util::leading_number(spec);
    if (major > 0) return major;
  }
  return std::nullopt;
}

} // namespace condacuda::inventory
