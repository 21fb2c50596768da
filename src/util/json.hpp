#pragma once
// A small JSON value with insertion-ordered objects (so reports have a fixed key
// order), a strict parser (RFC 8259; depth-limited) and a serializer.
// Used for --json reports, conda-meta/*.json records and the check child's report.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "util/result.hpp"

namespace condacuda::util {

class Json {
public:
  using Array = std::vector<Json>;
  using Object = std::vector<std::pair<std::string, Json>>;

  Json() : v_(nullptr) {}
  Json(std::nullptr_t) : v_(nullptr) {}
  Json(bool b) : v_(b) {}
  Json(int i) : v_(static_cast<std::int64_t>(i)) {}
  Json(unsigned i) : v_(static_cast<std::int64_t>(i)) {}
  Json(long i) : v_(static_cast<std::int64_t>(i)) {}
  Json(unsigned long i) : v_(static_cast<std::int64_t>(i)) {}
  Json(long long i) : v_(static_cast<std::int64_t>(i)) {}
  Json(unsigned long long i) : v_(static_cast<std::int64_t>(i)) {}
  Json(double d) : v_(d) {}
  Json(const char* s) : v_(std::string(s)) {}
  Json(std::string s) : v_(std::move(s)) {}
  Json(std::string_view s) : v_(std::string(s)) {}
  Json(Array a) : v_(std::move(a)) {}
  Json(Object o) : v_(std::move(o)) {}

  static Json object() { return Json(Object{}); }
  static Json array() { return Json(Array{}); }

  bool is_null() const { return v_.index() == 0; }
  bool is_bool() const { return v_.index() == 1; }
  bool is_int() const { return v_.index() == 2; }
  bool is_number() const { return v_.index() == 2 || v_.index() == 3; }
  bool is_string() const { return v_.index() == 4; }
  bool is_array() const { return v_.index() == 5; }
  bool is_object() const { return v_.index() == 6; }

  bool as_bool(bool fallback = false) const { return is_bool() ? std::get<1>(v_) : fallback; }
  std::int64_t as_int(std::int64_t fallback = 0) const;
  double as_double(double fallback = 0) const;
  // The string, or "" when this is not a string.
  const std::string& as_string() const;
  const Array& as_array() const;
  const Object& as_object() const;
  Array& mutable_array();

  // Object access: set() appends or replaces (keeping the first position);
  // get() returns nullptr when absent or when this is not an object.
  Json& set(std::string key, Json value);
  const Json* get(std::string_view key) const;
  // Convenience: the string member, or "" when absent.
  std::string string_at(std::string_view key) const;

  // Array append.
  Json& push(Json value);

  // Compact when indent < 0, else pretty with that many spaces per level.
  std::string dump(int indent = 2) const;

  friend bool operator==(const Json& a, const Json& b) { return a.v_ == b.v_; }

private:
  void dump_to(std::string& out, int indent, int depth) const;
  std::variant<std::nullptr_t, bool, std::int64_t, double, std::string, Array, Object> v_;
};

// Parses a whole document. Errors name the line and column.
Result<Json> parse_json(std::string_view text);

// Appends s as a JSON string literal (with quotes) to out.
void append_json_string(std::string& out, std::string_view s);

} // namespace condacuda::util
