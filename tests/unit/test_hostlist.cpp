// util/hostlist: Slurm's hostlist notation. Every row of the oracle tables in
// docs/slurm-test-cluster.md (what Slurm 22.05's scontrol printed), then
// round trips over generated lists, then the limits.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "util/hostlist.hpp"
#include "util/strings.hpp"

using namespace condacuda;
using namespace condacuda::util;

namespace {

using Names = std::vector<std::string>;

// `scontrol show hostlist LIST`: LIST as one entry, and (brackets without
// commas inside) as one entry per name.
void check_hostlist(const std::string& list, const std::string& want) {
  CAPTURE(list);
  CHECK(compress_hostlist({list}) == want);
  CHECK(compress_hostlist(split(list, ",")) == want);
}

void check_sorted(const std::string& list, const std::string& want) {
  CAPTURE(list);
  CHECK(compress_hostlist_sorted({list}) == want);
  CHECK(compress_hostlist_sorted(split(list, ",")) == want);
}

void check_names(const std::string& list, const Names& want) {
  CAPTURE(list);
  auto names = expand_hostlist(list);
  REQUIRE(names.ok());
  CHECK(*names == want);
}

void check_invalid(const std::string& list) {
  CAPTURE(list);
  auto names = expand_hostlist(list);
  REQUIRE_FALSE(names.ok());
  CHECK(names.error().code == ErrorCode::bad_input);
  CHECK(names.error().message.find("invalid hostlist '" + list + "'") == 0);
}

} // namespace

TEST_CASE("show hostlist: the doc's table") {
  check_hostlist("node1,node2,node3,gpu001,gpu002,gpu010", "node[1-3],gpu[001-002,010]");
  // zero padding: a number joins a range when it reads the same at both widths
  check_hostlist("n9,n10", "n[9-10]");
  check_hostlist("n09,n10", "n[09-10]");
  check_hostlist("n99,n100", "n[99-100]");
  check_hostlist("n099,n100", "n[099-100]");
  check_hostlist("n1,n01", "n[1,01]");
  check_hostlist("n01,n1,n001", "n[01,1,001]");
  check_hostlist("n9,n010", "n[9,010]");
  check_hostlist("n0,n1", "n[0-1]");
  check_hostlist("n000,n001", "n[000-001]");
  // input order kept, no de-duplication
  check_hostlist("node3,node1,node2", "node[3,1-2]");
  check_hostlist("n10,n9", "n[10,9]");
  check_hostlist("node1,node1,node2", "node[1,1-2]");
  check_hostlist("node2,node1,node2", "node[2,1-2]");
  // mixed prefixes: only neighbours share brackets
  check_hostlist("login,node1,node2", "login,node[1-2]");
  check_hostlist("b1,a1,a2", "b1,a[1-2]");
  check_hostlist("a1,b1,a2", "a1,b1,a2");
  check_hostlist("node1,node3,node5,node6,node7", "node[1,3,5-7]");
  check_hostlist("node-1,node-2", "node-[1-2]");
  check_hostlist("rack1-node01,rack1-node02", "rack1-node[01-02]");
  check_hostlist("a1b2,a1b3", "a1b[2-3]");
  check_hostlist("host1.ex,host2.ex", "host1.ex,host2.ex"); // no range after a dot
  // bracketed input is read, and joins what follows it
  check_hostlist("node[1-3],node4", "node[1-4]");
  check_hostlist("node[1-3],node[5-6]", "node[1-3,5-6]");
  check_hostlist("n[1-2],n[2-3]", "n[1-2,2-3]");
  check_hostlist("1,2,3", "[1-3]");
  check_hostlist("a,b,c", "a,b,c");
  check_hostlist("node1,,node2", "node[1-2]");
  // x[0-2]y: scontrol refuses the list ("Invalid hostlist", exit 1); the
  // compress functions, which cannot refuse, keep such an entry whole
  check_invalid("x[0-2]y");
  CHECK(compress_hostlist({"x[0-2]y"}) == "x[0-2]y");
  CHECK(compress_hostlist({"n1", "x[0-2]y", "n2"}) == "n1,x[0-2]y,n2");
}

TEST_CASE("show hostlist: rows found by the oracle test") {
  check_hostlist("n[1-3]x[1-2]", "n1x[1-2],n2x[1-2],n3x[1-2]");
  check_hostlist("n[8-10],n11", "n[8-11]");
  check_hostlist("n[01-3],n4", "n[01-03,4]");
  check_hostlist("n[1-3],n[2-4]", "n[1-3,2-4]");
  check_hostlist("n1,n01,n1", "n[1,01,1]");
  check_hostlist("A1,a1,B1", "A1,a1,B1");
  CHECK(compress_hostlist({"a b\tc"}) == "a,b,c"); // tab and space separate too
  CHECK(compress_hostlist({""}) == "");
  CHECK(compress_hostlist({}) == "");
  CHECK(compress_hostlist({"node[1"}) == "node]"); // Slurm 22.05's reading of an unclosed '['
  CHECK(compress_hostlist({"n[1],[2]"}) == "n1,2");
}

TEST_CASE("show hostlistsorted: the doc's table and the oracle's rows") {
  check_sorted("node3,node1,node2", "node[1-3]");
  check_sorted("a1,b1,a2", "a[1-2],b1");
  check_sorted("node1,node2,node3,gpu001,gpu002,gpu010", "gpu[001-002,010],node[1-3]");
  check_sorted("node1,node1,node2", "node[1,1-2]");
  check_sorted("n9,n10,n010", "n[9-10,010]");
  // overlapping ranges are split where they overlap, duplicates kept
  check_sorted("n[1-3],n[2-4]", "n[1-2,2-3,3-4]");
  check_sorted("n[01-3],n4", "n[4,01-03]"); // widths that do not agree: narrower first
  check_sorted("A1,a1,B1", "A1,B1,a1");     // bytes, upper case first
  check_sorted("n1,n01,n1", "n[1,1,01]");
  check_sorted("rack10-n1,rack9-n1,rack9-n0", "rack9-n[0-1],rack10-n1"); // prefixes in natural order
  CHECK(compress_hostlist_sorted({}) == "");
}

TEST_CASE("show hostnames: the doc's table") {
  check_names("gpu[001-003]", {"gpu001", "gpu002", "gpu003"});
  check_names("n[098-101]", {"n098", "n099", "n100", "n101"});
  check_names("node[01-3]", {"node01", "node02", "node03"});
  check_names("rack[1-2]-node[01-02]", {"rack1-node01", "rack1-node02", "rack2-node01", "rack2-node02"});
  check_names("n[1-3]x[1-2]", {"n1x1", "n1x2", "n2x1", "n2x2", "n3x1", "n3x2"});
  check_names("node[1,3,5-6]", {"node1", "node3", "node5", "node6"});
  check_names("node1,node1", {"node1", "node1"});
  check_names("n[1-2],n[2-3]", {"n1", "n2", "n2", "n3"});
  check_names("node1 node2", {"node1", "node2"});
  check_names("", {});
  check_invalid("x[0-2]y");
  check_invalid("host[1-2].example.com");
  check_invalid("node[3-1]");
  check_invalid("node[]");
}

TEST_CASE("show hostnames: rows found by the oracle test") {
  // bracket groups before the last count like an odometer, leftmost fastest
  check_names("a[1-2]b[1-2]c[1-2]",
              {"a1b1c1", "a1b1c2", "a2b1c1", "a2b1c2", "a1b2c1", "a1b2c2", "a2b2c1", "a2b2c2"});
  // strtoul's leniency: the width is the text before '-', white space and '+' pass
  check_names("n[1, 2]", {"n1", "n02"});
  check_names("n[+1-3]", {"n01", "n02", "n03"});
  check_names("n[1a-3]", {"n01", "n02", "n03"});
  check_names("n[1-]", {"n1"});
  check_names("n[01-1]", {"n01"});
  // an unclosed '[' (Slurm 22.05 drops what follows it), a stray ']'
  check_names("node[1", {"node]"});
  check_names("[abc", {"abc"});
  check_names("n1]", {"n1]"});
  check_names("a[[1],b]", {"a[1", "b]"});
  check_names(",,,", {});
  check_invalid("n[1a]");
  check_invalid("n[x1]");
  check_invalid("n[1]]");
  check_invalid("n[[1]]");
  check_invalid("a[1]x,y]");
  check_invalid("n[1--3]");
  check_invalid("n[1,]");
  // 65536 hosts a range, as Slurm's MAX_RANGE
  auto most = expand_hostlist("n[0-65535]");
  REQUIRE(most.ok());
  CHECK(most->size() == 65536);
  CHECK(most->back() == "n65535");
  check_invalid("n[0-65536]");
}

TEST_CASE("where condacuda parts from Slurm 22.05 (the header's list)") {
  // Slurm: n[3000000000] (n0 lost); here by value
  CHECK(compress_hostlist_sorted({"n3000000000,n0"}) == "n[0,3000000000]");
  // Slurm: n00018446744073709551615; here a number that large is none
  CHECK(compress_hostlist({"n99999999999999999999999"}) == "n99999999999999999999999");
  check_names("n99999999999999999999999", {"n99999999999999999999999"});
  check_invalid("n[0-18446744073709551615]");
  // Slurm logs the bad group, prints nothing for the token and exits 0
  check_invalid("a[x]b[1]c[1-2]");
  check_invalid("a[1,x]b[1]c[1],z1");
  check_invalid("a[0-70000]b[1]c[1]");
}

TEST_CASE("expand_hostlist refuses absurd sizes: untrusted input") {
  auto many = expand_hostlist("n[0-65535]m[0-65535]"); // 2^32 names
  REQUIRE_FALSE(many.ok());
  CHECK(many.error().message.find("more than 1000000 names") != std::string::npos);
  check_invalid("n[0-65535]m[0-15]"); // 1048576
  // nine names, each a megabyte of zeros wide, are fine; 201 are not
  auto wide = expand_hostlist("n[" + std::string(1 << 20, '0') + "1-9]");
  REQUIRE(wide.ok());
  CHECK(wide->size() == 9);
  CHECK(wide->front().size() == (1u << 20) + 2);
  auto wider = expand_hostlist("n[" + std::string(1 << 20, '0') + "0-200]");
  REQUIRE_FALSE(wider.ok());
  CHECK(wider.error().message.find("MiB") != std::string::npos);
  auto nul = expand_hostlist(std::string("n1\0n2", 5)); // scontrol would read up to the NUL
  REQUIRE_FALSE(nul.ok());
  CHECK(nul.error().message == "invalid hostlist 'n1\\x00n2': a NUL byte");
  // the compress functions keep such an entry whole
  CHECK(compress_hostlist({"n[0-65535]m[0-65535]"}) == "n[0-65535]m[0-65535]");
}

TEST_CASE("a long list reads in linear time") {
  // a '[' at the end once made every token search the whole rest of the list
  std::string list;
  for (int i = 0; i < 200000; ++i) list += "n" + std::to_string(i) + ",";
  list += "[";
  auto names = expand_hostlist(list);
  REQUIRE(names.ok());
  CHECK(names->size() == 200001);
  CHECK(names->back() == "");
  CHECK(compress_hostlist({list}) == "n[0-199999],");
}

TEST_CASE("repeated ranges sort without Slurm's cubic time") {
  // scontrol takes 30 s for 200 repeats; e2e.hostlist_oracle compares the result
  std::vector<std::string> repeats(300, "n[1-100]");
  auto names = expand_hostlist(compress_hostlist_sorted(repeats));
  REQUIRE(names.ok());
  Names got = *names, want = *expand_hostlist(join(repeats, ","));
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  CHECK(got.size() == 30000);
  CHECK(got == want);
}

TEST_CASE("the error names the list, on one line") {
  auto bad = expand_hostlist("ok1,bad[5-1],\nx");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "invalid hostlist 'ok1,bad[5-1],\\nx': '5-1' is not a range");
  auto long_list = expand_hostlist(std::string(300, 'a') + "[");
  REQUIRE(long_list.ok());
  auto long_bad = expand_hostlist(std::string(300, 'a') + "[x]");
  REQUIRE_FALSE(long_bad.ok());
  CHECK(long_bad.error().message.find("...'") != std::string::npos);
}

namespace {

// Names as a fleet has them, and some it should not: prefixes with dashes
// and digits, numbers with and without zero padding, plain names, repeats.
Names generated_names(std::mt19937& random) {
  static const std::vector<std::string> prefixes = {"node", "gpu", "n", "rack1-node", "rack-2-n", "a1b", "x-", "", "cn0"};
  static const std::vector<std::string> plain = {"login", "host1.ex", "head-node", "a1b"};
  auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(random); };
  Names names;
  std::size_t count = 1 + pick(30);
  while (names.size() < count) {
    std::size_t kind = pick(10);
    if (kind == 0) {
      names.push_back(plain[pick(plain.size())]);
    } else if (kind == 1 && !names.empty()) {
      names.push_back(names[pick(names.size())]); // a repeat
    } else {
      const std::string& prefix = prefixes[pick(prefixes.size())];
      int width = static_cast<int>(pick(4)); // 0: no padding
      std::size_t first = pick(kind < 5 ? 12 : 1200), run = 1 + pick(6);
      for (std::size_t k = 0; k < run; ++k) {
        std::string number = std::to_string(first + k);
        if (static_cast<int>(number.size()) < width) number.insert(0, static_cast<std::size_t>(width) - number.size(), '0');
        names.push_back(prefix + number);
      }
    }
  }
  if (pick(2) == 0) std::shuffle(names.begin(), names.end(), random);
  return names;
}

} // namespace

TEST_CASE("round trips over generated lists") {
  std::mt19937 random(20261202);
  for (int round = 0; round < 2000; ++round) {
    Names names = generated_names(random);
    CAPTURE(join(names, ","));
    std::string compressed = compress_hostlist(names);
    CAPTURE(compressed);
    auto back = expand_hostlist(compressed);
    REQUIRE(back.ok());
    CHECK(*back == names);
    CHECK(compress_hostlist({compressed}) == compressed);
    CHECK(compress_hostlist({join(names, ",")}) == compressed);

    std::string sorted = compress_hostlist_sorted(names);
    CAPTURE(sorted);
    auto sorted_back = expand_hostlist(sorted);
    REQUIRE(sorted_back.ok());
    Names want = names, got = *sorted_back;
    std::sort(want.begin(), want.end());
    std::sort(got.begin(), got.end());
    CHECK(got == want); // the same names, duplicates kept
    CHECK(compress_hostlist_sorted({sorted}) == sorted);
  }
}
