#pragma once
// The shape of a rendered JSON object, for the reports' schema tests: one
// "key:type" per member, in order, so that a renamed, dropped, moved or
// retyped field shows in one readable line; and member access that fails the
// test, not the binary, when a member is missing.
#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include "util/json.hpp"

namespace json_shape {

inline std::string type_of(const condacuda::util::Json& j) {
  if (j.is_null()) return "null";
  if (j.is_bool()) return "bool";
  if (j.is_int()) return "int";
  if (j.is_number()) return "number";
  if (j.is_string()) return "string";
  if (j.is_array()) return "array";
  return "object";
}

// "schema:string env:object ..." ("" for a value that is not an object).
inline std::string shape(const condacuda::util::Json& j) {
  if (!j.is_object()) return "";
  std::string out;
  for (const auto& [key, value] : j.as_object()) out += (out.empty() ? "" : " ") + key + ":" + type_of(value);
  return out;
}

// The member `key` of an object; the test stops there when it is absent (a
// renamed or dropped field fails the test instead of crashing the binary).
inline const condacuda::util::Json& member(const condacuda::util::Json& j, std::string_view key) {
  const condacuda::util::Json* value = j.get(key);
  REQUIRE_MESSAGE(value != nullptr, "no member '" << std::string(key) << "' in " << shape(j));
  return *value;
}

} // namespace json_shape
