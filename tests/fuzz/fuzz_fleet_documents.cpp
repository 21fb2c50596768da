// libFuzzer target: node documents as `fleet --from` reads them
// (src/fleet/documents.hpp), grouped into classes (src/fleet/classes.hpp),
// and the hostlists that name the classes (src/util/hostlist.hpp).
//
// The input's sections (tests/fuzz/fuzz_sections.hpp; the generator is
// tests/fuzz/gen_hostile.py fleet): files of doctor documents, JSON Lines,
// fleet documents read again, and error documents, each read as one file
// (its name "out/nodeN.json"), then a hostlist as the environment or a
// document could give it. Runs in every build through the replay driver
// (CTest unit.fuzz_replay, under ASan/UBSan) and with libFuzzer.
//
// It traps when a promise breaks: every record names its node; each node is
// in exactly one class; the fleet's exit code is its worst class's; a class
// of plain names is named by a hostlist that expands back to its nodes; an
// expansion stays within max_hostlist_names; a document written and read
// again says the same (util/json.hpp's promise).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fleet/classes.hpp"
#include "fleet/documents.hpp"
#include "fuzz_sections.hpp"
#include "util/hostlist.hpp"
#include "util/json.hpp"
#include "util/strings.hpp"

namespace {

namespace fleet = condacuda::fleet;
namespace util = condacuda::util;

bool plain_name(const std::string& name) {
  return !name.empty() && name.size() < 64 &&
         std::all_of(name.begin(), name.end(), [](unsigned char c) { return std::isalnum(c) || c == '-' || c == '_'; });
}

void judge_classes(const fleet::Fleet& f) {
  std::vector<int> seen(f.nodes.size(), 0);
  int worst = 0;
  for (const auto& c : f.classes) {
    FUZZ_CHECK(!c.members.empty() && !c.hostlist.empty() && !c.verdict.empty());
    worst = fleet::worse_exit_code(worst, c.exit_code);
    std::vector<std::string> names;
    for (std::size_t m : c.members) {
      FUZZ_CHECK(m < f.nodes.size());
      ++seen[m];
      names.push_back(f.nodes[m].node);
    }
    if (!std::all_of(names.begin(), names.end(), plain_name)) continue;
    auto expanded = util::expand_hostlist(c.hostlist);
    FUZZ_CHECK(expanded.ok());
    std::sort(names.begin(), names.end());
    std::sort(expanded->begin(), expanded->end());
    FUZZ_CHECK(*expanded == names);
  }
  for (int count : seen) FUZZ_CHECK(count == 1);
  FUZZ_CHECK(f.exit_code == worst);
}

// What fleet writes of a node's document is UTF-8 JSON that reads back as
// what it says (bytes that are not UTF-8 are written as the text "\\xHH",
// util/json.hpp, so the value itself changes only then).
void judge_json_round_trip(const util::Json& document) {
  if (document.is_null()) return;
  const std::string text = document.dump(-1);
  FUZZ_CHECK(util::is_utf8(text));
  auto again = util::parse_json(text);
  FUZZ_CHECK(again.ok() && again->dump(-1) == text);
  if (text.find("\\\\x") == std::string::npos) FUZZ_CHECK(*again == document);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto part = condacuda::fuzz::sections(data, size, 1);
  const std::string hostlist = part.back();
  part.pop_back();
  std::vector<fleet::NodeRecord> records;
  for (std::size_t i = 0; i < part.size(); ++i) {
    for (auto& r : fleet::records_from_text(part[i], "out/node" + std::to_string(i) + ".json")) {
      FUZZ_CHECK(!r.node.empty());
      FUZZ_CHECK(r.no_answer.has_value() || r.doctor.is_object());
      judge_json_round_trip(r.doctor);
      records.push_back(std::move(r));
    }
  }
  judge_classes(fleet::classify(std::move(records)));
  if (auto names = util::expand_hostlist(hostlist)) {
    FUZZ_CHECK(names->size() <= util::max_hostlist_names);
    (void)util::compress_hostlist(*names);
    (void)util::compress_hostlist_sorted(*names);
  } else {
    FUZZ_CHECK(!names.error().message.empty());
  }
  return 0;
}
