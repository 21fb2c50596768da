// Build-time program: turns templates/releases.yml into C++ that builds the
// same lock::ReleaseTable (lock::compiled_release_table, lock/release_table.hpp).
// yaml-cpp took half a millisecond on the table, a thirtieth of a repeated
// doctor run; the parse now happens once, here, with the same parser the
// `--releases FILE` tables go through, and a broken table fails the build.
//   usage: condacuda_compile_release_table RELEASES.yml OUT.cpp
#include <cstdio>
#include <sstream>
#include <string>

#include "lock/release_table.hpp"
#include "tools/cpp_literal.hpp"

namespace {
using condacuda::lock::ReleaseTable;

using condacuda::tools::cpp_literal;
using condacuda::tools::write_if_changed;

std::string source_for(const ReleaseTable& t) {
  std::ostringstream s;
  s << "// Generated from templates/releases.yml by src/tools/compile_release_table.cpp. Do not edit.\n"
    << "#include \"lock/release_table.hpp\"\n\n"
    << "namespace condacuda::lock {\n\n"
    << "ReleaseTable compiled_release_table() {\n"
    << "  ReleaseTable t;\n"
    << "  t.name = " << cpp_literal(t.name) << ";\n"
    << "  t.sha256 = " << cpp_literal(t.sha256) << ";\n";
  for (const auto& [from, to] : t.same_version_as) s << "  t.same_version_as.emplace(" << cpp_literal(from) << ", " << cpp_literal(to) << ");\n";
  for (const auto& m : t.majors) s << "  t.majors.push_back({" << m.major << ", " << m.min_driver_branch << "});\n";
  s << "  t.releases.reserve(" << t.releases.size() << ");\n";
  for (const auto& r : t.releases) {
    s << "  t.releases.push_back({" << cpp_literal(r.release) << ", " << cpp_literal(r.installer_driver) << ", {";
    const char* separator = "";
    for (const auto& [component, version] : r.components) {
      s << separator << "{" << cpp_literal(component) << ", " << cpp_literal(version) << "}";
      separator = ", ";
    }
    s << "}});\n";
  }
  s << "  return t;\n}\n\n} // namespace condacuda::lock\n";
  return s.str();
}
} // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s RELEASES.yml OUT.cpp\n", argv[0]);
    return 2;
  }
  const auto yaml = condacuda::tools::read_file(argv[1]);
  if (!yaml) {
    std::fprintf(stderr, "%s: cannot read\n", argv[1]);
    return 1;
  }
  auto table = condacuda::lock::parse_release_table(*yaml, "templates/releases.yml");
  if (!table) {
    std::fprintf(stderr, "%s\n", table.error().describe().c_str());
    return 1;
  }
  if (!write_if_changed(argv[2], source_for(*table))) {
    std::fprintf(stderr, "%s: cannot write\n", argv[2]);
    return 1;
  }
  return 0;
}
