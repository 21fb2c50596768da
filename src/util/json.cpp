#include "util/json.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "util/strings.hpp"

namespace condacuda::util {

namespace {
const std::string empty_string;
const Json::Array empty_array;
const Json::Object empty_object;
} // namespace

std::int64_t Json::as_int(std::int64_t fallback) const {
  if (v_.index() == 2) return std::get<2>(v_);
  if (v_.index() == 3) {
    const double d = std::get<3>(v_); // a cast of a double past int64's range is undefined
    return d >= -9.2e18 && d <= 9.2e18 ? static_cast<std::int64_t>(d) : fallback;
  }
  return fallback;
}

double Json::as_double(double fallback) const {
  if (v_.index() == 2) return static_cast<double>(std::get<2>(v_));
  if (v_.index() == 3) return std::get<3>(v_);
  return fallback;
}

const std::string& Json::as_string() const { return is_string() ? std::get<4>(v_) : empty_string; }
const Json::Array& Json::as_array() const { return is_array() ? std::get<5>(v_) : empty_array; }
const Json::Object& Json::as_object() const { return is_object() ? std::get<6>(v_) : empty_object; }

Json::Array& Json::mutable_array() {
  if (!is_array()) v_ = Array{};
  return std::get<5>(v_);
}

Json& Json::set(std::string key, Json value) {
  if (!is_object()) v_ = Object{};
  auto& obj = std::get<6>(v_);
  for (auto& [k, v] : obj)
    if (k == key) { v = std::move(value); return v; }
  obj.emplace_back(std::move(key), std::move(value));
  return obj.back().second;
}

const Json* Json::get(std::string_view key) const {
  if (!is_object()) return nullptr;
  for (const auto& [k, v] : std::get<6>(v_))
    if (k == key) return &v;
  return nullptr;
}

std::string Json::string_at(std::string_view key) const {
  const Json* j = get(key);
  return j ? j->as_string() : std::string();
}

Json& Json::push(Json value) {
  auto& arr = mutable_array();
  arr.push_back(std::move(value));
  return arr.back();
}

void append_json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '\n': out += "\\n"; break;
    case '\r': out += "\\r"; break;
    case '\t': out += "\\t"; break;
    case '\b': out += "\\b"; break;
    case '\f': out += "\\f"; break;
    default:
      if (c < 0x20 || c == 0x7f) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      } else if (std::size_t n = utf8_sequence_length(s, i); n > 0) {
        out.append(s.substr(i, n)); // UTF-8 passes through unchanged
        i += n;
        continue;
      } else {
        // Not UTF-8 (raw bytes of a symbol name, a file name): the four
        // characters \xHH, so that the document stays valid JSON.
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\\\x%02x", c);
        out += buf;
      }
    }
    ++i;
  }
  out.push_back('"');
}

namespace {
void newline(std::string& out, int indent, int depth) {
  if (indent < 0) return;
  out.push_back('\n');
  out.append(static_cast<std::size_t>(indent * depth), ' ');
}

void append_double(std::string& out, double d) {
  if (!std::isfinite(d)) { out += "null"; return; }
  char buf[32];
  // Shortest form that round-trips: deterministic across runs.
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, d);
  if (ec != std::errc()) { out += "null"; return; }
  std::string_view text(buf, static_cast<std::size_t>(end - buf));
  out += text;
  if (text.find_first_of(".eE") == std::string_view::npos) out += ".0";
}
} // namespace

void Json::dump_to(std::string& out, int indent, int depth) const {
  switch (v_.index()) {
  case 0: out += "null"; break;
  case 1: out += std::get<1>(v_) ? "true" : "false"; break;
  case 2: out += std::to_string(std::get<2>(v_)); break;
  case 3: append_double(out, std::get<3>(v_)); break;
  case 4: append_json_string(out, std::get<4>(v_)); break;
  case 5: {
    const auto& arr = std::get<5>(v_);
    if (arr.empty()) { out += "[]"; break; }
    out.push_back('[');
    for (std::size_t i = 0; i < arr.size(); ++i) {
      if (i) out.push_back(',');
      newline(out, indent, depth + 1);
      arr[i].dump_to(out, indent, depth + 1);
    }
    newline(out, indent, depth);
    out.push_back(']');
    break;
  }
  case 6: {
    const auto& obj = std::get<6>(v_);
    if (obj.empty()) { out += "{}"; break; }
    out.push_back('{');
    for (std::size_t i = 0; i < obj.size(); ++i) {
      if (i) out.push_back(',');
      newline(out, indent, depth + 1);
      append_json_string(out, obj[i].first);
      out += indent < 0 ? ":" : ": ";
      obj[i].second.dump_to(out, indent, depth + 1);
    }
    newline(out, indent, depth);
    out.push_back('}');
    break;
  }
  }
}

std::string Json::dump(int indent) const {
  std::string out;
  dump_to(out, indent, 0);
  return out;
}

// ---------------------------------------------------------------- parser

namespace {

constexpr int max_depth = 256; // hostile input must not exhaust the stack

class Parser {
public:
  explicit Parser(std::string_view text) : s_(text) {}

  Result<Json> document() {
    skip_ws();
    Json value;
    if (!parse_value(value, 0)) return failure();
    skip_ws();
    if (pos_ != s_.size()) { fail("trailing characters after the JSON value"); return failure(); }
    return value;
  }

private:
  std::string_view s_;
  std::size_t pos_ = 0;
  std::string error_;

  Error failure() const {
    std::size_t line = 1, col = 1;
    for (std::size_t i = 0; i < pos_ && i < s_.size(); ++i) {
      if (s_[i] == '\n') { ++line; col = 1; } else { ++col; }
    }
    return make_error(ErrorCode::corrupt, "invalid JSON at line " + std::to_string(line) +
                                               ", column " + std::to_string(col) + ": " + error_);
  }
  bool fail(const char* what) {
    if (error_.empty()) error_ = what;
    return false;
  }
  void skip_ws() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r'))
      ++pos_;
  }
  bool literal(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return fail("unexpected token");
    pos_ += word.size();
    return true;
  }

  bool parse_value(Json& out, int depth) {
    if (depth > max_depth) return fail("nesting too deep");
    if (pos_ >= s_.size()) return fail("unexpected end of input");
    switch (s_[pos_]) {
    case '{': return parse_object(out, depth);
    case '[': return parse_array(out, depth);
    case '"': {
      std::string str;
      if (!parse_string(str)) return false;
      out = Json(std::move(str));
      return true;
    }
    case 't': out = Json(true); return literal("true");
    case 'f': out = Json(false); return literal("false");
    case 'n': out = Json(nullptr); return literal("null");
    default: return parse_number(out);
    }
  }

  bool parse_object(Json& out, int depth) {
    ++pos_; // '{'
    out = Json::object();
    skip_ws();
    if (pos_ < s_.size() && s_[pos_] == '}') { ++pos_; return true; }
    for (;;) {
      skip_ws();
      if (pos_ >= s_.size() || s_[pos_] != '"') return fail("expected a string key");
      std::string key;
      if (!parse_string(key)) return false;
      skip_ws();
      if (pos_ >= s_.size() || s_[pos_] != ':') return fail("expected ':'");
      ++pos_;
      skip_ws();
      Json value;
      if (!parse_value(value, depth + 1)) return false;
      out.set(std::move(key), std::move(value));
      skip_ws();
      if (pos_ < s_.size() && s_[pos_] == ',') { ++pos_; continue; }
      if (pos_ < s_.size() && s_[pos_] == '}') { ++pos_; return true; }
      return fail("expected ',' or '}'");
    }
  }

  bool parse_array(Json& out, int depth) {
    ++pos_; // '['
    out = Json::array();
    skip_ws();
    if (pos_ < s_.size() && s_[pos_] == ']') { ++pos_; return true; }
    for (;;) {
      skip_ws();
      Json value;
      if (!parse_value(value, depth + 1)) return false;
      out.push(std::move(value));
      skip_ws();
      if (pos_ < s_.size() && s_[pos_] == ',') { ++pos_; continue; }
      if (pos_ < s_.size() && s_[pos_] == ']') { ++pos_; return true; }
      return fail("expected ',' or ']'");
    }
  }

  static void append_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
      out.push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
  }

  bool parse_hex4(std::uint32_t& cp) {
    if (s_.size() - pos_ < 4) return fail("truncated \\u escape");
    cp = 0;
    for (int i = 0; i < 4; ++i) {
      char c = s_[pos_++];
      cp <<= 4;
      if (c >= '0' && c <= '9') cp |= static_cast<std::uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f') cp |= static_cast<std::uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') cp |= static_cast<std::uint32_t>(c - 'A' + 10);
      else return fail("bad \\u escape");
    }
    return true;
  }

  bool parse_string(std::string& out) {
    ++pos_; // opening quote
    while (pos_ < s_.size()) {
      char c = s_[pos_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return fail("control character in string");
      if (c != '\\') { out.push_back(c); continue; }
      if (pos_ >= s_.size()) break;
      char e = s_[pos_++];
      switch (e) {
      case '"': out.push_back('"'); break;
      case '\\': out.push_back('\\'); break;
      case '/': out.push_back('/'); break;
      case 'b': out.push_back('\b'); break;
      case 'f': out.push_back('\f'); break;
      case 'n': out.push_back('\n'); break;
      case 'r': out.push_back('\r'); break;
      case 't': out.push_back('\t'); break;
      case 'u': {
        std::uint32_t cp = 0;
        if (!parse_hex4(cp)) return false;
        if (cp >= 0xD800 && cp <= 0xDBFF && s_.substr(pos_, 2) == "\\u") {
          pos_ += 2;
          std::uint32_t low = 0;
          if (!parse_hex4(low)) return false;
          if (low < 0xDC00 || low > 0xDFFF) return fail("bad surrogate pair");
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        }
        append_utf8(out, cp);
        break;
      }
      default: return fail("bad escape");
      }
    }
    return fail("unterminated string");
  }

  bool parse_number(Json& out) {
    std::size_t start = pos_;
    bool is_float = false;
    if (pos_ < s_.size() && s_[pos_] == '-') ++pos_;
    if (pos_ >= s_.size() || !(s_[pos_] >= '0' && s_[pos_] <= '9')) return fail("unexpected character");
    while (pos_ < s_.size()) {
      char c = s_[pos_];
      if (c >= '0' && c <= '9') { ++pos_; continue; }
      if (c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') { is_float = true; ++pos_; continue; }
      break;
    }
    const char* first = s_.data() + start;
    const char* last = s_.data() + pos_;
    if (!is_float) {
      std::int64_t i = 0;
      auto [p, ec] = std::from_chars(first, last, i);
      if (ec == std::errc() && p == last) { out = Json(static_cast<long long>(i)); return true; }
    }
    double d = 0;
    auto [p, ec] = std::from_chars(first, last, d);
    if (ec != std::errc() || p != last) return fail("bad number");
    out = Json(d);
    return true;
  }
};

} // namespace

Result<Json> parse_json(std::string_view text) { return Parser(text).document(); }

} // namespace condacuda::util
