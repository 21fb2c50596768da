#include "fleet/classes.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "util/hostlist.hpp"
#include "util/strings.hpp"

namespace condacuda::fleet {

namespace {
constexpr char sep = '\x1f'; // between the parts of a key: no fact or finding holds it

void add(std::string& key, const std::string& part) {
  key += part;
  key += sep;
}

std::string value_of(const std::optional<std::string>& v) { return v ? "=" + *v : "unset"; }

// What classes are keyed on: the verdict with its findings (and check's), or
// why a node gave none; never the node's name nor its facts. Nodes that judge
// alike are one class whatever else differs: the facts are then shown as
// mixed, and tell classes apart only where the verdicts differ.
std::string class_key(const NodeRecord& r) {
  std::string key;
  if (r.no_answer) {
    add(key, "silent");
    add(key, to_string(r.no_answer->kind));
    add(key, r.no_answer->reason);
    add(key, std::to_string(r.no_answer->exit_code));
    return key;
  }
  add(key, r.env_prefix); // documents of two envs (--from) never merge
  const Verdict& v = r.verdict;
  add(key, v.outcome + "/" + std::to_string(v.exit_code) + "/" + std::to_string(v.failing_roots));
  add(key, v.check_outcome ? *v.check_outcome + "/" + std::to_string(v.check_exit_code) : "-");
  for (const auto& l : v.findings) {
    add(key, l.code + "/" + l.severity + "/" + l.library + "/" + l.via_entry);
    // driver-too-old's title names the node's exact driver: one class per problem, the versions are its facts
    add(key, l.code == "driver-too-old" ? std::string() : l.title);
  }
  return key;
}

std::string fact_value(const Facts& f, Fact fact) {
  switch (fact) {
  case Fact::glibc: return f.glibc;
  case Fact::driver: return f.driver_branch ? std::to_string(f.driver_branch) : "none";
  case Fact::gpus: return f.gpus.empty() ? "none" : util::join(f.gpus, ", ");
  case Fact::ld_library_path: return f.ld_library_path ? "'" + *f.ld_library_path + "'" : "unset";
  case Fact::system_cuda_folders: return f.system_cuda_folders.empty() ? "none" : util::join(f.system_cuda_folders, ", ");
  case Fact::ld_so_cache_cuda: return util::join(f.ld_so_cache_cuda, " ");
  }
  return "";
}

constexpr Fact all_facts[] = {Fact::glibc, Fact::driver, Fact::gpus, Fact::ld_library_path, Fact::system_cuda_folders,
                              Fact::ld_so_cache_cuda};

std::vector<std::string> path_entries(const std::optional<std::string>& v) {
  return v ? util::split(*v, ":") : std::vector<std::string>{};
}

// The items of `mine` not in every one of `all` ("+x"), and those some other has
// and `mine` lacks ("-y"): what tells one class from the others.
std::string list_difference(const std::vector<std::string>& mine, const std::vector<std::vector<std::string>>& all) {
  std::map<std::string, std::size_t> count;
  for (const auto& list : all)
    for (const auto& item : std::set<std::string>(list.begin(), list.end())) ++count[item];
  const std::set<std::string> have(mine.begin(), mine.end());
  std::vector<std::string> parts;
  for (const auto& item : mine)
    if (count[item] < all.size()) parts.push_back("+" + item);
  for (const auto& [item, n] : count)
    if (!have.count(item)) parts.push_back("-" + item);
  return parts.empty() ? "(the common ones)" : util::join(parts, " ");
}

// The values a fact has among a class's nodes, once each.
std::set<std::string> class_values(const NodeClass& c, const Fleet& fleet, Fact fact) {
  std::set<std::string> values;
  for (std::size_t m : c.members) values.insert(fact_value(fleet.nodes[m].facts, fact));
  return values;
}

std::string distinct_value(const NodeClass& c, const Fleet& fleet, Fact fact, const std::vector<NodeClass*>& answering) {
  if (std::find(c.mixed.begin(), c.mixed.end(), fact) != c.mixed.end()) {
    const auto values = class_values(c, fleet, fact);
    return "mixed: " + util::join(std::vector<std::string>(values.begin(), values.end()), " | ");
  }
  const Facts& f = fleet.example(c).facts;
  auto lists = [&](auto get) {
    std::vector<std::vector<std::string>> all;
    for (const NodeClass* other : answering) all.push_back(get(fleet.example(*other).facts));
    return all;
  };
  switch (fact) {
  case Fact::driver:
    return f.driver_branch ? std::to_string(f.driver_branch) + " (" + util::join(c.driver_versions, ", ") + ", " +
                                 f.driver_source + ")"
                           : "none";
  case Fact::gpus: return f.gpus.empty() ? "none" : util::join(f.gpus, ", ") + " (" + f.gpus_source + ")";
  case Fact::ld_library_path: {
    auto all = lists([](const Facts& x) { return path_entries(x.ld_library_path); });
    return f.ld_library_path ? list_difference(path_entries(f.ld_library_path), all) : "unset";
  }
  case Fact::ld_so_cache_cuda:
    return list_difference(f.ld_so_cache_cuda, lists([](const Facts& x) { return x.ld_so_cache_cuda; }));
  default: return fact_value(f, fact);
  }
}

std::string answered_verdict(const NodeRecord& r) {
  const Verdict& v = r.verdict;
  std::string out;
  int errors = 0, warnings = 0;
  for (const auto& l : v.findings) (l.severity == "error" ? errors : warnings) += 1;
  if (errors) {
    std::vector<std::string> codes;
    for (const auto& l : v.findings)
      if (l.severity == "error" && std::find(codes.begin(), codes.end(), l.code) == codes.end()) codes.push_back(l.code);
    // A document is untrusted: a finding without a code, a verdict without
    // an outcome still say something (found by tests/fuzz/fuzz_fleet_documents.cpp).
    for (auto& code : codes)
      if (code.empty()) code = "an error without a code";
    out = "fails: " + util::join(codes, ", ");
  } else {
    out = v.exit_code == 0 ? "loads" : v.outcome.empty() ? "exit " + std::to_string(v.exit_code) : v.outcome;
    if (warnings) out += ", " + std::to_string(warnings) + (warnings == 1 ? " warning" : " warnings");
  }
  if (v.check_outcome) out += "; check " + *v.check_outcome;
  return out;
}

// A repair verifies the launch it runs in and those recorded before it: a
// class whose jobs see another LD_LIBRARY_PATH is repaired from that launch.
std::string repair_in_launch(const NodeRecord& r, bool pin) {
  return "LD_LIBRARY_PATH=" + util::quote_posix(*r.facts.ld_library_path) + " condacuda repair -p " + util::quote_posix(r.env_prefix) +
         (pin ? " --pin" : "") + "  (a repair in this class's launch keeps every launch an earlier repair recorded" +
         (pin ? "; --pin makes the env's libraries win over LD_LIBRARY_PATH however a job starts)" : ")");
}

// `one_launch`: the class's nodes share one LD_LIBRARY_PATH.
std::string answered_next(const NodeRecord& r, bool one_launch) {
  auto error_with = [&](const char* code) {
    return std::any_of(r.verdict.findings.begin(), r.verdict.findings.end(),
                       [&](const FindingLine& l) { return l.severity == "error" && l.code == code; });
  };
  const bool fixed_by_repair = std::any_of(r.verdict.findings.begin(), r.verdict.findings.end(), [](const FindingLine& l) {
    return l.severity == "error" && l.fix.find("condacuda repair") != std::string::npos;
  });
  if (fixed_by_repair && one_launch && r.facts.ld_library_path && !r.env_prefix.empty())
    return repair_in_launch(r, error_with("not-activated"));
  // Without activation the launch-specific fix (`repair --pin`) is the one that holds.
  for (const auto& l : r.verdict.findings)
    if (l.severity == "error" && l.code == "not-activated" && !l.fix.empty()) return l.fix;
  for (const auto& l : r.verdict.findings)
    if (l.severity == "error" && !l.fix.empty()) return l.fix;
  if (r.verdict.check_outcome && r.verdict.check_exit_code != 0) return "check: " + r.verdict.check_reason;
  for (const auto& l : r.verdict.findings)
    if (!l.fix.empty()) return l.fix;
  return "";
}

std::string silent_next(const NoAnswer& why, const std::string& hostlist) {
  switch (why.kind) {
  case Silence::unavailable: return "judge it when Slurm runs jobs there again: `condacuda fleet --nodes " + hostlist + "`";
  case Silence::timed_out: return "look at the node (a hung file system?), or give it longer: --timeout";
  case Silence::not_started:
    return "make condacuda reachable at the same path there (a shared install, or the env's own), or name one: --condacuda PATH";
  case Silence::no_document:
  case Silence::bad_document: return "run `condacuda doctor --json` there by hand and read what it prints";
  case Silence::error: return "";
  }
  return "";
}

// A class's name: plain node names in Slurm's hostlist notation; a name that
// notation would read as a list or a range (brackets, commas, blanks, control
// bytes: a document from --from names its node as it likes) as it is, after.
std::string hostlist_of(std::vector<std::string> names) {
  std::vector<std::string> plain, literal;
  for (auto& n : names) {
    const bool odd = n.empty() || std::any_of(n.begin(), n.end(), [](char c) {
      return c == '[' || c == ']' || c == ',' || static_cast<unsigned char>(c) <= ' ' || c == 0x7f;
    });
    (odd ? literal : plain).push_back(std::move(n));
  }
  std::string out = plain.empty() ? "" : util::compress_hostlist_sorted(std::move(plain));
  for (const auto& n : literal) out += (out.empty() ? "" : ",") + n;
  return out;
}

// The worst first, then the largest, then by name.
bool comes_before(const NodeClass& a, const NodeClass& b) {
  if (a.exit_code != b.exit_code) return worse_exit_code(a.exit_code, b.exit_code) == a.exit_code;
  if (a.members.size() != b.members.size()) return a.members.size() > b.members.size();
  return a.hostlist < b.hostlist;
}

// Keeps the last record of each node name, sorted by name; names the repeated ones.
std::vector<NodeRecord> last_per_node(std::vector<NodeRecord> nodes, std::vector<std::string>& repeated) {
  std::map<std::string, std::size_t> last;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    auto [it, fresh] = last.emplace(nodes[i].node, i);
    if (!fresh) {
      if (std::find(repeated.begin(), repeated.end(), nodes[i].node) == repeated.end()) repeated.push_back(nodes[i].node);
      it->second = i;
    }
  }
  std::vector<NodeRecord> out;
  out.reserve(last.size());
  for (const auto& [name, i] : last) out.push_back(std::move(nodes[i]));
  return out;
}

// Set when the nodes the env fails on in the loader (not for its packages or
// the driver) launch it with more than one LD_LIBRARY_PATH.
std::optional<std::string> shared_repair_note(const Fleet& fleet) {
  std::set<std::string> values;
  std::vector<std::string> hostlists;
  std::string prefix; // the env's, as the nodes name it
  for (const auto& c : fleet.classes) {
    if (c.silent) continue;
    const NodeRecord& r = fleet.example(c);
    const bool loader_error = std::any_of(r.verdict.findings.begin(), r.verdict.findings.end(), [](const FindingLine& l) {
      return l.severity == "error" && l.code != "misaligned" && l.code != "driver-too-old" && l.code != "no-kernel-image";
    });
    if (!loader_error) continue;
    for (std::size_t m : c.members) values.insert(value_of(fleet.nodes[m].facts.ld_library_path));
    hostlists.push_back(c.hostlist);
    if (prefix.empty()) prefix = r.env_prefix;
  }
  if (values.size() < 2) return std::nullopt;
  const std::string repair = "condacuda repair -p " + (prefix.empty() ? std::string("ENV") : util::quote_posix(prefix)) + " --pin";
  return "the env is shared: one repair must suit every LD_LIBRARY_PATH its failing nodes launch it with (" +
         std::to_string(values.size()) + " in " + util::join(hostlists, "; ") +
         "). Run `" + repair + "` with each of them in turn: each repair verifies every launch an earlier "
         "one recorded, and writes nothing (exit 1) when no plan suits them all";
}
} // namespace

const char* to_string(Fact f) {
  switch (f) {
  case Fact::glibc: return "glibc";
  case Fact::driver: return "driver";
  case Fact::gpus: return "gpus";
  case Fact::ld_library_path: return "ld_library_path";
  case Fact::system_cuda_folders: return "system_cuda_folders";
  case Fact::ld_so_cache_cuda: return "ld_so_cache_cuda";
  }
  return "";
}

std::size_t Fleet::answered() const {
  return static_cast<std::size_t>(std::count_if(nodes.begin(), nodes.end(), [](const NodeRecord& r) { return !r.no_answer; }));
}

Fleet classify(std::vector<NodeRecord> records) {
  Fleet fleet;
  fleet.nodes = last_per_node(std::move(records), fleet.repeated);
  std::map<std::string, std::size_t> index_of_key;
  for (std::size_t i = 0; i < fleet.nodes.size(); ++i) {
    auto [it, fresh] = index_of_key.emplace(class_key(fleet.nodes[i]), fleet.classes.size());
    if (fresh) fleet.classes.emplace_back();
    fleet.classes[it->second].members.push_back(i);
  }
  for (auto& c : fleet.classes) {
    std::vector<std::string> names;
    std::set<std::string> versions;
    for (std::size_t m : c.members) {
      names.push_back(fleet.nodes[m].node);
      if (const auto& d = fleet.nodes[m].facts.driver) versions.insert(*d);
    }
    c.hostlist = hostlist_of(std::move(names));
    c.driver_versions.assign(versions.begin(), versions.end());
    const NodeRecord& r = fleet.example(c);
    c.silent = r.no_answer.has_value();
    c.exit_code = r.exit_code();
    c.verdict = c.silent ? "no answer: " + std::string(to_string(r.no_answer->kind)) : answered_verdict(r);
    if (c.silent) c.next = silent_next(*r.no_answer, c.hostlist);
    fleet.exit_code = worse_exit_code(fleet.exit_code, c.exit_code);
  }
  std::sort(fleet.classes.begin(), fleet.classes.end(), comes_before);
  std::vector<NodeClass*> answering;
  for (auto& c : fleet.classes)
    if (!c.silent) answering.push_back(&c);
  for (Fact fact : all_facts) {
    std::set<std::set<std::string>> per_class;
    for (NodeClass* c : answering) {
      auto values = class_values(*c, fleet, fact);
      if (values.size() > 1) c->mixed.push_back(fact);
      per_class.insert(std::move(values));
    }
    const bool mixed = std::any_of(answering.begin(), answering.end(), [&](const NodeClass* c) {
      return std::find(c->mixed.begin(), c->mixed.end(), fact) != c->mixed.end();
    });
    if (mixed || per_class.size() > 1) fleet.differing.push_back(fact);
  }
  for (auto& c : fleet.classes)
    if (!c.silent) {
      for (Fact fact : fleet.differing) c.distinct.emplace_back(fact, distinct_value(c, fleet, fact, answering));
      const bool one_launch = std::find(c.mixed.begin(), c.mixed.end(), Fact::ld_library_path) == c.mixed.end();
      c.next = answered_next(fleet.example(c), one_launch);
    }
  fleet.shared_repair_note = shared_repair_note(fleet);
  return fleet;
}

} // namespace condacuda::fleet
