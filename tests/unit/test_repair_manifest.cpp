// repair/manifest: the record of what repair created ($PREFIX/etc/condacuda/
// manifest.yml). undo trusts it to delete files, so it must read back exactly
// what was written, whatever the paths hold, and refuse anything else with an
// error that says where.
#include <doctest/doctest.h>

#include <string>

#include "repair/manifest.hpp"

using namespace condacuda;
using namespace condacuda::repair;

namespace {

Manifest odd_manifest() {
  Manifest m;
  m.tool = "condacuda 1.2.3";
  m.folders = {"lib/python3.11/site-packages/nvidia/cusparse/lib", "with space/lib", "colon: here/lib",
               "quote 'single' \"double\"/lib", "unicode/é/日本/lib", "- dash/#hash/lib", "true", "null", "123",
               R"(back\slash)"};
  m.entries = {
      {"etc/conda/activate.d/condacuda.sh", ManifestEntry::Kind::file, std::string(64, 'a'), "", "", ""},
      {"with space/it's \"quoted\"/libx.so.1", ManifestEntry::Kind::file, "0123456789", "", "", ""},
      {"lib/python3.11/site-packages/nvidia/cusparse/lib/libnvJitLink.so.12", ManifestEntry::Kind::symlink, "",
       "../../nvjitlink/lib/libnvJitLink.so.12", "", ""},
      {"colon: x/é.so", ManifestEntry::Kind::symlink, "", "../a b/'c': \"d\"/ü.so", "", ""},
  };
  m.dirs = {"etc/condacuda", "etc/conda/activate.d", "dir with: colon"};
  m.launches = {std::nullopt, std::string("/opt/cuda-12.1/lib64:/opt/cudnn/lib"), std::string(""), std::string("null"),
                std::string("~"), std::string("a: b # c")};
  return m;
}

Error parse_error(const std::string& text) {
  auto parsed = parse_manifest(text);
  REQUIRE_FALSE(parsed.ok());
  return parsed.error();
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

const char* valid_header = "version: 1\ntool: condacuda 1.2.3\nfolders: []\n";

} // namespace

TEST_CASE("round trip: parse(render(m)) == m and rendering again gives the same bytes") {
  const Manifest m = odd_manifest();
  const std::string text = render_manifest(m);
  auto parsed = parse_manifest(text);
  REQUIRE(parsed.ok());
  CHECK(parsed->tool == m.tool);
  CHECK(parsed->folders == m.folders);
  CHECK(parsed->entries == m.entries);
  CHECK(parsed->dirs == m.dirs);
  CHECK(*parsed == m);
  CHECK(render_manifest(*parsed) == text);
}

TEST_CASE("round trip: an empty manifest (nothing created) reads back empty") {
  Manifest m;
  m.tool = "condacuda 1.2.3";
  auto parsed = parse_manifest(render_manifest(m));
  REQUIRE(parsed.ok());
  CHECK(*parsed == m);
}

TEST_CASE("render: the exact text of a small manifest (paths double-quoted, one key per line)") {
  Manifest m;
  m.tool = "condacuda 1.2.3";
  m.folders = {"lib/python3.11/site-packages/nvidia/nvjitlink/lib"};
  m.entries = {{"etc/conda/activate.d/condacuda.sh", ManifestEntry::Kind::file, "ab12", "", "", ""},
               {"lib/python3.11/site-packages/nvidia/cusparse/lib/libnvJitLink.so.12", ManifestEntry::Kind::symlink, "",
                "../../nvjitlink/lib/libnvJitLink.so.12", "", ""}};
  m.dirs = {"etc/condacuda"};
  // Older and newer condacudas read this file: its format is a contract.
  CHECK(render_manifest(m) ==
        "# condacuda: what `condacuda repair` created in this env.\n"
        "# `condacuda undo` removes exactly these files when they are unchanged. Do not edit.\n"
        "version: 1\n"
        "tool: condacuda 1.2.3\n"
        "folders:\n"
        "  - \"lib/python3.11/site-packages/nvidia/nvjitlink/lib\"\n"
        "entries:\n"
        "  - path: \"etc/conda/activate.d/condacuda.sh\"\n"
        "    kind: file\n"
        "    sha256: ab12\n"
        "  - path: \"lib/python3.11/site-packages/nvidia/cusparse/lib/libnvJitLink.so.12\"\n"
        "    kind: symlink\n"
        "    target: \"../../nvjitlink/lib/libnvJitLink.so.12\"\n"
        "dirs:\n"
        "  - \"etc/condacuda\"\n");
}

TEST_CASE("render: a comment, then version first, then the keys in a fixed order") {
  const std::string text = render_manifest(odd_manifest());
  CHECK(text.rfind("# condacuda:", 0) == 0);
  std::size_t version = text.find("\nversion: 1\n");
  REQUIRE(version != std::string::npos);
  // Everything before `version:` is comment.
  for (std::size_t at = 0; at < version; at = text.find('\n', at) + 1) CHECK(text[at] == '#');
  std::size_t tool = text.find("\ntool: "), folders = text.find("\nfolders:"), entries = text.find("\nentries:"),
              dirs = text.find("\ndirs:");
  CHECK(version < tool);
  CHECK(tool < folders);
  CHECK(folders < entries);
  CHECK(entries < dirs);
  CHECK(text.back() == '\n');
}

TEST_CASE("corrupt: broken YAML is an error with its line and column") {
  // A list item indented less than its siblings: yaml-cpp stops at line 4, column 2.
  auto e = parse_error("version: 1\nfolders:\n  - a\n - b\n");
  CHECK(e.code == ErrorCode::corrupt);
  CHECK(contains(e.message, "invalid YAML at line 4, column 2: "));
  // An unclosed flow sequence: found missing at the end, line 3.
  e = parse_error("version: 1\nfolders: [a, b\n");
  CHECK(e.code == ErrorCode::corrupt);
  CHECK(contains(e.message, "invalid YAML at line 3, column 1: "));
}

TEST_CASE("corrupt: not a mapping, or no version") {
  CHECK(parse_error("- a\n- b\n").code == ErrorCode::corrupt);
  CHECK(contains(parse_error("- a\n").message, "expected a mapping"));
  CHECK(contains(parse_error("").message, "expected a mapping"));
  auto e = parse_error("tool: condacuda 1.2.3\nentries: []\n");
  CHECK(e.code == ErrorCode::corrupt);
  CHECK(contains(e.message, "'version'"));
}

TEST_CASE("corrupt: an entry without a key it needs names the key") {
  struct Case {
    const char* entry;
    const char* key;
  };
  for (const Case& c : {Case{"  - kind: file\n    sha256: aa\n", "'path'"}, Case{"  - path: a\n    sha256: aa\n", "'kind'"},
                        Case{"  - path: a\n    kind: file\n", "'sha256'"}, Case{"  - path: a\n    kind: symlink\n", "'target'"},
                        Case{"  - path: [a, b]\n    kind: file\n    sha256: aa\n", "'path'"},
                        Case{"  - path: a\n    kind: symlink\n    target: {x: 1}\n", "'target'"}}) {
    INFO(c.entry);
    auto e = parse_error(std::string(valid_header) + "entries:\n" + c.entry);
    CHECK(e.code == ErrorCode::corrupt);
    CHECK(contains(e.message, c.key));
  }
  auto e = parse_error(std::string(valid_header) + "entries:\n  - path: a\n    kind: directory\n");
  CHECK(e.code == ErrorCode::corrupt);
  CHECK(contains(e.message, "unknown entry kind 'directory'"));
}

TEST_CASE("corrupt: an ill-typed value is an error with its line, not an exception") {
  auto e = parse_error("version: one\n");
  CHECK(e.code == ErrorCode::corrupt);
  CHECK(contains(e.message, "line 1"));
  e = parse_error(std::string(valid_header) + "dirs:\n  - [nested]\n");
  CHECK(e.code == ErrorCode::corrupt);
  CHECK(contains(e.message, "line 5"));
}

TEST_CASE("corrupt: a list key that holds something else is an error, never an empty list") {
  // `entries: 5` read as "nothing created" would make undo forget what repair made.
  for (std::string key : {"folders", "entries", "dirs"}) {
    auto e = parse_error(std::string("version: 1\n") + key + ": 5\n");
    CHECK(e.code == ErrorCode::corrupt);
    CHECK(contains(e.message, "'" + key + "' is not a list (line 2)"));
  }
  auto e = parse_error(std::string(valid_header) + "entries:\n  - 5\n");
  CHECK(contains(e.message, "an item of 'entries' is not a mapping"));
}

TEST_CASE("corrupt: paths that leave the env (undo deletes what the manifest lists)") {
  for (std::string bad : {"../victim.txt", "/etc/passwd", "etc/../../x", "etc//x"}) {
    auto entry = parse_error(std::string(valid_header) + "entries:\n  - path: \"" + bad + "\"\n    kind: file\n    sha256: aa\n");
    CHECK(entry.code == ErrorCode::corrupt);
    CHECK(contains(entry.message, "entry path '" + bad + "' is not a path inside the env"));
    CHECK(contains(parse_error(std::string(valid_header) + "dirs: [\"" + bad + "\"]\n").message, "is not a path inside the env"));
    CHECK(contains(parse_error("version: 1\nfolders: [\"" + bad + "\"]\n").message, "folder '" + bad + "' is not a path"));
  }
}

TEST_CASE("corrupt: a version that is not a number, or below 1") {
  CHECK(contains(parse_error("version: one\n").message, "'version' is not a number (line 1)"));
  auto zero = parse_error("version: 0\n");
  CHECK(zero.code == ErrorCode::corrupt);
  CHECK(contains(zero.message, "manifest version 0 does not exist"));
}

TEST_CASE("unsupported: a manifest from a newer condacuda") {
  auto e = parse_error("version: 4\ntool: condacuda 9.0.0\nfolders: []\nentries: []\ndirs: []\n");
  CHECK(e.code == ErrorCode::unsupported);
  CHECK(contains(e.message, "version 4"));
}

TEST_CASE("round trip: a journal's previous states") {
  Manifest m;
  m.tool = "condacuda 1.2.3";
  ManifestEntry file{"etc/conda/activate.d/condacuda.sh", ManifestEntry::Kind::file, "new", "", "old", ""};
  ManifestEntry link{"lib/x/libnvJitLink.so.12", ManifestEntry::Kind::symlink, "", "../a/l.so", "", "../b/l.so"};
  m.entries = {file, link};
  auto back = parse_manifest(render_manifest(m));
  REQUIRE(back.ok());
  CHECK(*back == m);
  CHECK(render_manifest(*back) == render_manifest(m));
}

TEST_CASE("pins: read back exactly, version 2; the pin mode survives without pins") {
  Manifest m = odd_manifest();
  m.pin = true;
  const std::string lib = "lib/python3.11/site-packages/nvidia/cusparse/lib/libcusparse.so.12";
  m.pins = {{lib, std::string(64, 'a'), std::string(64, 'b'), {11784, 18446744073709551615ull}, original_store_path(lib)}};
  std::string text = render_manifest(m);
  CHECK(contains(text, "version: 2"));
  auto back = parse_manifest(text);
  REQUIRE(back.ok());
  CHECK(back->pins == m.pins);
  CHECK(back->pin);
  Manifest mode_only = odd_manifest();
  mode_only.pin = true;
  auto mode_back = parse_manifest(render_manifest(mode_only));
  REQUIRE(mode_back.ok());
  CHECK(mode_back->pin);
  CHECK(contains(render_manifest(odd_manifest()), "version: 1")); // without pins: what condacuda 0.1 reads
}

TEST_CASE("pins: undo renames the kept original over the library, so only condacuda's own names are accepted") {
  const std::string head = "version: 2\nentries: []\npins:\n  - path: lib/a.so\n";
  const std::string shas = "    original_sha256: " + std::string(64, 'a') + "\n    pinned_sha256: " + std::string(64, 'b') + "\n";
  auto ok = parse_manifest(head + shas + "    offsets: [8]\n    original: " + original_store_path("lib/a.so") + "\n");
  CHECK(ok.ok());
  CHECK(contains(parse_error(head + shas + "    offsets: [8]\n    original: etc/passwd\n").message, "not kept where"));
  CHECK(contains(parse_error("version: 2\npins:\n  - path: ../../etc/x.so\n" + shas + "    offsets: [8]\n    original: " +
                             original_store_path("../../etc/x.so") + "\n")
                     .message,
                 "not a path inside the env"));
  CHECK(contains(parse_error(head + "    original_sha256: zz\n    pinned_sha256: " + std::string(64, 'b') +
                             "\n    offsets: [8]\n    original: " + original_store_path("lib/a.so") + "\n")
                     .message,
                 "malformed sha256"));
  CHECK(contains(parse_error(head + shas + "    offsets: []\n    original: " + original_store_path("lib/a.so") + "\n").message,
                 "no 'offsets'"));
}

TEST_CASE("manifest: launches read back as written, unset apart from the strings 'null' and '~'") {
  const Manifest m = odd_manifest();
  auto back = parse_manifest(render_manifest(m));
  REQUIRE(back.ok());
  CHECK(back->launches == m.launches);
  CHECK_FALSE(back->launches[0].has_value());
  CHECK(back->launches[3] == std::string("null"));
}

TEST_CASE("manifest: malformed or too many launches are corrupt, never guessed") {
  const std::string head = "version: 1\nfolders: []\nentries: []\n";
  CHECK(contains(parse_error(head + "launches: 5\n").message, "'launches' is not a list"));
  CHECK(contains(parse_error(head + "launches:\n  - x\n").message, "no 'ld_library_path'"));
  CHECK(contains(parse_error(head + "launches:\n  - ld_library_path: [a]\n").message, "not a string"));
  std::string many = head + "launches:\n";
  for (int i = 0; i < 17; ++i) many += "  - ld_library_path: \"/p" + std::to_string(i) + "\"\n";
  CHECK(contains(parse_error(many).message, "at most 16"));
  auto none = parse_manifest(head);
  REQUIRE(none.ok());
  CHECK(none->launches.empty());
}
