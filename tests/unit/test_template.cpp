// util/template: @NAME@ placeholders in the hook templates and the lockfile header.
#include <doctest/doctest.h>

#include <array>
#include <string>

#include "util/template.hpp"

using namespace condacuda;
using namespace condacuda::util;

namespace {
bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
} // namespace

TEST_CASE("expand_placeholders replaces known names once and rejects unknown ones") {
  const std::array<Placeholder, 2> values = {{{"NAME", "x@OTHER@y"}, {"OTHER", "z"}}};
  auto done = expand_placeholders("a @NAME@ b @OTHER@", values, "t.in");
  REQUIRE(done.ok());
  CHECK(*done == "a x@OTHER@y b z"); // values are not scanned again

  // '@' that does not start @NAME@ stays: csh's `@ n = $n + 1`, "a@b", a lone '@'.
  auto literal = expand_placeholders("@ n = 1\nmail a@b.c @ @lower@ @", values, "t.in");
  REQUIRE(literal.ok());
  CHECK(*literal == "@ n = 1\nmail a@b.c @ @lower@ @");

  auto unknown = expand_placeholders("x @MISSING@ y", values, "templates/hooks/t.in");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().code == ErrorCode::internal);
  CHECK(contains(unknown.error().message, "@MISSING@"));
  CHECK(unknown.error().path == "templates/hooks/t.in");
}
