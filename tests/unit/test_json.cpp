#include <doctest/doctest.h>

#include "util/json.hpp"
#include "util/strings.hpp"

using condacuda::util::Json;
using condacuda::util::parse_json;
namespace util = condacuda::util;

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

TEST_CASE("json strings are valid UTF-8 whatever bytes they hold: others become the four characters \\xHH") {
  // A symbol name or a file name of a hostile env can hold any byte.
  util::Json j = util::Json::object();
  j.set("name", std::string("sym\xf3x\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xc0\xaf\xed\xa0\x80\x7f\x1b"));
  std::string text = j.dump(-1);
  CHECK(text == "{\"name\":\"sym\\\\xf3x\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\\\\xc0\\\\xaf\\\\xed\\\\xa0\\\\x80\\u007f\\u001b\"}");
  for (std::size_t i = 0; i < text.size();) {
    std::size_t n = util::utf8_sequence_length(text, i);
    REQUIRE(n > 0);
    i += n;
  }
  auto back = util::parse_json(text);
  REQUIRE(back.ok());
  CHECK(back->string_at("name") == "sym\\xf3x\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\\xc0\\xaf\\xed\\xa0\\x80\x7f\x1b");
}

TEST_CASE("terminal_safe: control characters and non-UTF-8 bytes escaped, newline, tab and kept styles pass") {
  CHECK(util::terminal_safe("version 1.0\x1b]0;owned\x07\x1b[2J\n\tok") == "version 1.0\\x1b]0;owned\\x07\\x1b[2J\n\tok");
  CHECK(util::terminal_safe("caf\xc3\xa9 \xff \xc2\x9b") == "caf\xc3\xa9 \\xff \\xc2\\x9b"); // C1 CSI too
  CHECK(util::terminal_safe("\x1b[31mred\x1b[0m \x1b[2J", {"\x1b[31m", "\x1b[0m"}) == "\x1b[31mred\x1b[0m \\x1b[2J");
  CHECK(util::terminal_safe("plain text, unchanged") == "plain text, unchanged");
}
