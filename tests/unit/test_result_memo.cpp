// Results kept between runs (loader::ResultMemo): binding's outcome replayed
// from a memo is the outcome computed, and a kept value that does not fit the
// files is a miss, computed again and kept anew; a file's symbol facts given
// to a parse give what reading its tables gives. Fixtures compiled here; the
// real ld.so is the oracle of the loader rules themselves (test_loader_rules).
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <string>

#include "loader/simulator.hpp"
#include "sys/disk_file_view.hpp"
#include "sys/machine.hpp"
#include "sys/mapped_file.hpp"
#include "support/fixture.hpp"
#include "util/memo_text.hpp"

using fixture::TempDir;

namespace {
// A memo in memory that counts what it answers.
class MemoryMemo final : public condacuda::loader::ResultMemo {
public:
  std::optional<std::string> find(std::string_view inputs) override {
    auto it = values.find(std::string(inputs));
    if (it == values.end()) return std::nullopt;
    ++hits;
    return it->second;
  }
  void remember(std::string_view inputs, std::string_view value) override {
    values[std::string(inputs)] = std::string(value);
    ++remembered;
  }
  std::map<std::string, std::string> values;
  int hits = 0, remembered = 0;
};

// The files as the system layer opens them, each with a stamp as if it had
// settled long ago (the system layer gives none to a file changed within the
// last second, and these were just compiled), and a memo when one is given.
class StampedView final : public condacuda::loader::FileSystemView {
public:
  StampedView(std::uint16_t machine, condacuda::loader::ResultMemo* memo) : base_(machine), memo_(memo) {}
  const condacuda::loader::OpenedFile& open_verify(const std::string& path) override {
    auto it = stamped_.find(path);
    if (it != stamped_.end()) return it->second;
    condacuda::loader::OpenedFile f = base_.open_verify(path);
    if (f.elf) f.stamp = {f.dev, f.ino, f.elf->bytes().data.size(), 1, 1};
    return stamped_.emplace(path, std::move(f)).first->second;
  }
  bool directory_exists(const std::string& path) override { return base_.directory_exists(path); }
  condacuda::loader::ResultMemo* result_memo() override { return memo_; }

private:
  condacuda::sys::DiskFileView base_;
  condacuda::loader::ResultMemo* memo_;
  std::map<std::string, condacuda::loader::OpenedFile> stamped_;
};

// What a trial dlopen of `root` reports, errors in order, by a fresh simulator.
std::vector<std::string> errors_of(const std::string& root, condacuda::loader::ResultMemo* memo, bool& ok,
                                   int glibc_minor = 0) {
  condacuda::loader::LoaderConfig config = condacuda::sys::detect_machine().config;
  config.ld_library_path.reset();
  if (glibc_minor) config.glibc_minor = glibc_minor;
  StampedView files(config.machine, memo);
  condacuda::loader::Simulator sim(config, files);
  condacuda::loader::Process host;
  sim.start_synthetic(host, condacuda::loader::minimal_program_needs);
  auto report = sim.trial_dlopen(host, root, condacuda::loader::Binding::lazy);
  ok = report.ok;
  std::vector<std::string> out;
  for (const auto& e : report.errors) out.push_back(e.message() + (e.lazy_only ? " (lazy)" : ""));
  return out;
}
} // namespace

TEST_CASE("kept bindings: replayed as computed; a value that does not fit the files is a miss") {
  TempDir t("result_memo");
  fixture::shared_library(t / "libprov.so", "int c2(void) { return 2; }\n");
  // c3 and d4 are defined nowhere: d4 is data (fails at once), c3 a call
  // (fails when called under lazy binding).
  fixture::shared_library(t / "libroot.so",
                          "int c2(void); int c3(void); extern int d4;\n"
                          "int root(void) { return c2() + c3() + d4; }\n",
                          {"-L" + t.path(), "-lprov", "-Wl,-rpath," + t.path()});
  const std::string root = t / "libroot.so";
  bool truth_ok = true;
  const auto truth = errors_of(root, nullptr, truth_ok);
  REQUIRE(truth.size() == 2); // the test proves nothing without failures to replay
  CHECK_FALSE(truth_ok);

  MemoryMemo memo;
  bool ok = true;
  CHECK(errors_of(root, &memo, ok) == truth);
  CHECK(ok == truth_ok);
  // Two bindings kept: the host's start (it binds libc) and the root's.
  REQUIRE(memo.values.size() == 2);
  CHECK(memo.hits == 0);
  auto root_entry = std::find_if(memo.values.begin(), memo.values.end(), [](const auto& v) { return !v.second.empty(); });
  REQUIRE(root_entry != memo.values.end());
  const std::string inputs = root_entry->first;
  const std::string kept = root_entry->second;

  CHECK(errors_of(root, &memo, ok) == truth); // replayed
  CHECK(ok == truth_ok);
  CHECK(memo.hits == 2);
  CHECK(memo.remembered == 2);

  // Values that do not fit: each is a miss, the outcome computed and kept again.
  for (const std::string bad : {"x", "0 1 0", "0 999999999 0 0 ", "7 1 0 0 ", "0 1 2 0 ", "0 1 0 0 junk"}) {
    CAPTURE(bad);
    memo.values[inputs] = bad;
    const int remembered = memo.remembered;
    CHECK(errors_of(root, &memo, ok) == truth);
    CHECK(ok == truth_ok);
    CHECK(memo.remembered == remembered + 1);
    CHECK(memo.values[inputs] == kept);
  }

  // Another release is another key: check_match's rules depend on it.
  MemoryMemo other;
  errors_of(root, &other, ok, condacuda::sys::detect_machine().config.glibc_minor == 31 ? 36 : 31);
  CHECK(other.values.size() == 2);
  CHECK(other.values.count(inputs) == 0);
}

TEST_CASE("memo fields: numbers and any bytes of text read back; anything else fails") {
  using condacuda::util::FieldReader;
  std::string value;
  condacuda::util::put_number_field(value, 0);
  condacuda::util::put_text_field(value, std::string("a b\t\n:\0z", 8));
  condacuda::util::put_number_field(value, 18446744073709551615ull);
  condacuda::util::put_text_field(value, "");
  FieldReader read(value);
  std::uint64_t n = 7;
  std::string_view text;
  CHECK(read.number(n));
  CHECK(n == 0);
  CHECK(read.text(text));
  CHECK(text == std::string_view("a b\t\n:\0z", 8));
  CHECK(read.number(n));
  CHECK(n == 18446744073709551615ull);
  CHECK(read.text(text));
  CHECK(text.empty());
  CHECK(read.done());

  for (const std::string bad : {"", "12", "1x ", "-1 ", " 1 ", "18446744073709551616 ", "3:ab", "a:b", "2:abc"}) {
    CAPTURE(bad);
    FieldReader r(bad);
    std::uint64_t number = 0;
    std::string_view t2;
    const bool as_number = r.number(number);
    FieldReader r2(bad);
    const bool as_text = r2.text(t2) && r2.done();
    CHECK_FALSE((as_number && r.done()));
    CHECK_FALSE(as_text);
  }
}

TEST_CASE("symbol facts: a parse given them equals one that reads the tables; text that does not read is ignored") {
  TempDir t("symbol_facts");
  fixture::write_file(t / "v.map", "V1 { global: f1; local: *; };\nV2 { global: f2; } V1;\n");
  // Version definitions (V1, V2) and needs (libc's GLIBC_2.2.5 for puts).
  fixture::shared_library(t / "libv.so",
                          "#include <stdio.h>\nint f1(void) { return puts(\"1\"); }\nint f2(void) { return 2; }\n",
                          {"-Wl,--version-script," + t / "v.map"});
  auto bytes = condacuda::sys::map_file(t / "libv.so");
  REQUIRE(bytes);
  auto read = condacuda::elf::ElfObject::parse(*bytes);
  REQUIRE(read);
  const condacuda::elf::ElfObject& truth = **read;
  REQUIRE(truth.version_definitions().size() >= 3);
  REQUIRE_FALSE(truth.version_needs().empty());
  const std::string facts = truth.symbol_facts();

  auto same_as_truth = [&](const condacuda::elf::ElfObject& e) {
    CHECK(e.symbol_count() == truth.symbol_count());
    REQUIRE(e.version_definitions().size() == truth.version_definitions().size());
    for (std::size_t i = 0; i < e.version_definitions().size(); ++i) {
      const auto &a = e.version_definitions()[i], &b = truth.version_definitions()[i];
      CHECK((a.index == b.index && a.flags == b.flags && a.hash == b.hash && a.name == b.name));
    }
    REQUIRE(e.version_needs().size() == truth.version_needs().size());
    for (std::size_t i = 0; i < e.version_needs().size(); ++i) {
      const auto &a = e.version_needs()[i], &b = truth.version_needs()[i];
      CHECK(a.file == b.file);
      REQUIRE(a.entries.size() == b.entries.size());
      for (std::size_t k = 0; k < a.entries.size(); ++k)
        CHECK((a.entries[k].hash == b.entries[k].hash && a.entries[k].flags == b.entries[k].flags &&
               a.entries[k].other == b.entries[k].other && a.entries[k].name == b.entries[k].name));
    }
    CHECK(e.symbol_facts() == facts);
    // A lookup still finds the versioned definitions.
    int found = 0;
    e.for_each_named("f2", [&](std::uint32_t, const condacuda::elf::Symbol&) { return ++found, true; });
    CHECK(found == 1);
  };

  std::string given = facts; // the memo's text dies before the object: the names are the object's own
  auto from_facts = condacuda::elf::ElfObject::parse(*bytes, true, nullptr, given);
  given.assign(given.size(), '?');
  REQUIRE(from_facts);
  same_as_truth(**from_facts);

  auto without = condacuda::elf::ElfObject::parse(*bytes, false);
  REQUIRE(without);
  auto adopted = condacuda::elf::ElfObject::with_symbols(**without, facts);
  REQUIRE(adopted);
  same_as_truth(**adopted);

  for (const std::string bad : {std::string("x"), facts.substr(0, facts.size() - 1), facts + "1 ", std::string("99999999999 0 0 "),
                                std::string("10 70000 ")}) {
    CAPTURE(bad);
    auto ignored = condacuda::elf::ElfObject::parse(*bytes, true, nullptr, bad);
    REQUIRE(ignored);
    same_as_truth(**ignored);
  }
}

TEST_CASE("a reader with a copy of the head reads the copy where it holds the bytes, the data elsewhere") {
  std::vector<std::byte> data(64), head(16);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = std::byte(i);
  for (std::size_t i = 0; i < head.size(); ++i) head[i] = std::byte(0xa0 + i);
  head[10] = std::byte(0);
  condacuda::elf::ByteReader r(data, head);
  CHECK(r.size() == 64);
  CHECK(*r.u8(0) == 0xa0);
  CHECK(*r.u32(12) == 0xafaeadacu);   // inside the copy
  CHECK(*r.u32(14) == 0x11100f0eu); // straddles the copy's end: read in the data
  CHECK(*r.u8(20) == 20);
  CHECK_FALSE(r.u8(64));
  CHECK(*r.cstring(2, 64) == std::string_view(reinterpret_cast<const char*>(head.data()) + 2, 8));
  CHECK(r.cstring_equals(2, 64, std::string_view(reinterpret_cast<const char*>(head.data()) + 2, 8)));
  CHECK(r.bytes(4, 4)->data() == head.data() + 4);
  CHECK(r.bytes(12, 8)->data() == data.data() + 12);
  // A head longer than the data is cut to it.
  std::vector<std::byte> small(8);
  condacuda::elf::ByteReader cut(small, head);
  CHECK(cut.size() == 8);
  CHECK(cut.head().size() == 8);
}
