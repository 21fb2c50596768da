#include <doctest/doctest.h>

#include "util/json.hpp"
#include "util/strings.hpp"

using condacuda::util::Json;
using condacuda::util::parse_json;

TEST_CASE("json round trip keeps key order and escapes") {
  Json j = Json::object();
  j.set("schema", "condacuda.info/1");
  j.set("b", 2);
  j.set("a", Json::array());
  j.set("s", "quote\" back\\ nl\n tab\t \x01");
  std::string text = j.dump(-1);
  CHECK(text == R"({"schema":"condacuda.info/1","b":2,"a":[],"s":"quote\" back\\ nl\n tab\t \u0001"})");
  auto back = parse_json(text);
  REQUIRE(back.ok());
  CHECK(*back == j);
}

TEST_CASE("json parser rejects bad input with a position") {
  auto r = parse_json("{\"a\": [1, 2,, 3]}");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("line 1, column 13") != std::string::npos);
  CHECK_FALSE(parse_json("").ok());
  CHECK_FALSE(parse_json("\"unterminated").ok());
  CHECK_FALSE(parse_json("[1] x").ok());
  std::string deep(10000, '[');
  CHECK_FALSE(parse_json(deep).ok());
}

TEST_CASE("json numbers and unicode escapes") {
  auto r = parse_json(R"({"i": -12, "d": 1.5e3, "u": "\u00e9\ud83d\ude00"})");
  REQUIRE(r.ok());
  CHECK(r->get("i")->as_int() == -12);
  CHECK(r->get("d")->as_double() == doctest::Approx(1500));
  CHECK(r->string_at("u") == "\xc3\xa9\xf0\x9f\x98\x80");
}

TEST_CASE("version comparison is numeric-aware") {
  using condacuda::util::compare_versions;
  CHECK(compare_versions("12.10", "12.9") > 0);
  CHECK(compare_versions("13.0.88", "13.0.88") == 0);
  CHECK(compare_versions("12.6.3.3", "12.6.2.49") > 0);
  CHECK(compare_versions("12.1", "12.1.0") < 0);
  CHECK(compare_versions("libfoo.so.01", "libfoo.so.1") == 0);
}
