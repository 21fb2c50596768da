// Build-time program: turns templates/releases.yml into C++ that builds the
// same lock::ReleaseTable (lock::compiled_release_table, lock/release_table.hpp).
// yaml-cpp took half a millisecond on the table, a thirtieth of a repeated
// doctor run; the parse now happens once, here, with the same parser the
// `--releases FILE` tables go through, and a broken table fails the build.
//   usage: condacuda_compile_release_table RELEASES.yml OUT.cpp
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "lock/release_table.hpp"

namespace {
using condacuda::lock::ReleaseTable;

// A C++ string literal that says `text` byte for byte: every byte that is not
// a plain letter, digit or one of a few marks is written as an octal escape.
std::string literal(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 std::string_view("._-+:/ ").find(static_cast<char>(c)) != std::string_view::npos;
    if (plain) {
      out += static_cast<char>(c);
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\%03o", c);
      out += escaped;
    }
  }
  return out + "\"";
}

std::string source_for(const ReleaseTable& t) {
  std::ostringstream s;
  s << "// Generated from templates/releases.yml by src/tools/compile_release_table.cpp. Do not edit.\n"
    << "#include \"lock/release_table.hpp\"\n\n"
    << "namespace condacuda::lock {\n\n"
    << "ReleaseTable compiled_release_table() {\n"
    << "  ReleaseTable t;\n"
    << "  t.name = " << literal(t.name) << ";\n"
    << "  t.sha256 = " << literal(t.sha256) << ";\n";
  for (const auto& [from, to] : t.same_version_as) s << "  t.same_version_as.emplace(" << literal(from) << ", " << literal(to) << ");\n";
  for (const auto& m : t.majors) s << "  t.majors.push_back({" << m.major << ", " << m.min_driver_branch << "});\n";
  s << "  t.releases.reserve(" << t.releases.size() << ");\n";
  for (const auto& r : t.releases) {
    s << "  t.releases.push_back({" << literal(r.release) << ", " << literal(r.installer_driver) << ", {";
    const char* separator = "";
    for (const auto& [component, version] : r.components) {
      s << separator << "{" << literal(component) << ", " << literal(version) << "}";
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
  std::ifstream in(argv[1], std::ios::binary);
  const std::string yaml((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) {
    std::fprintf(stderr, "%s: cannot read\n", argv[1]);
    return 1;
  }
  auto table = condacuda::lock::parse_release_table(yaml, "templates/releases.yml");
  if (!table) {
    std::fprintf(stderr, "%s\n", table.error().describe().c_str());
    return 1;
  }
  const std::string source = source_for(*table);
  // Written only when it changes: the files that include it are not rebuilt for nothing.
  std::ifstream old(argv[2], std::ios::binary);
  if (old && std::string((std::istreambuf_iterator<char>(old)), std::istreambuf_iterator<char>()) == source) return 0;
  old.close();
  std::ofstream out(argv[2], std::ios::binary | std::ios::trunc);
  out << source;
  out.close();
  if (!out) {
    std::fprintf(stderr, "%s: cannot write\n", argv[2]);
    return 1;
  }
  return 0;
}
