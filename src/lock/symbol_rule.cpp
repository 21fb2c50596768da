// The symbol rule: every versioned symbol an env library needs from another
// env library is defined there. It needs no release table: the libraries say
// themselves what they need (verneed + versym) and what they have (verdef).
#include <algorithm>
#include <optional>

#include "elf/elf_constants.hpp"
#include "inventory/components.hpp"
#include "lock/alignment.hpp"
#include "loader/versions.hpp"
#include "util/memo_text.hpp"
#include "util/strings.hpp"

namespace condacuda::lock {

namespace {
using inventory::Library;

constexpr std::size_t max_listed = 5; // missing symbols named per library pair

// The references from one env library to another under one version node.
struct Edge {
  const Library* consumer = nullptr;
  const Library* provider = nullptr;
  std::string version;
  std::size_t count = 0;
  std::vector<std::string> missing; // the first max_listed
  std::size_t missing_count = 0;
  std::string highest_release, highest_symbol; // of the __nvJitLink*_X_Y among them
};

struct Symbols {
  const elf::ElfObject* elf = nullptr;
  loader::FileStamp stamp;
  std::vector<loader::VersionRef> versions;
};


bool defines(const Symbols& p, std::string_view name, const loader::VersionRef& wanted) {
  return loader::defines_versioned(*p.elf, p.versions, name, wanted);
}

class SymbolChecker {
public:
  explicit SymbolChecker(const AlignmentInputs& in) : in_(in) {}

  const Symbols* symbols_of(const Library& lib) {
    auto it = cache_.find(lib.file);
    if (it != cache_.end()) return it->second.elf ? &it->second : nullptr;
    Symbols s;
    const auto& opened = in_.files->open_verify(in_.inventory->prefix + "/" + lib.file);
    if (opened.elf && opened.elf->has_symbols()) {
      s.elf = opened.elf.get();
      s.stamp = opened.stamp;
      s.versions = loader::build_version_table(*s.elf);
    } else {
      unreadable_.push_back(lib.soname + " (" + lib.file + "): symbols unreadable" +
                            (opened.parse_error.empty() ? "" : ": " + opened.parse_error));
    }
    auto& slot = cache_.emplace(lib.file, std::move(s)).first->second;
    return slot.elf ? &slot : nullptr;
  }

  // Every versioned reference of `consumer` into other env libraries. The env
  // libraries a version node points at are found once per node, not per symbol:
  // a CUDA library has thousands of versioned references, nearly all into libc.
  void collect(const Library& consumer, std::vector<Edge>& edges) {
    const Symbols* c = symbols_of(consumer);
    if (!c) return;
    // A repeated run reads no symbol table: the edges are kept under the
    // stamps of the consumer and of every library its version needs name.
    loader::ResultMemo* memo = in_.files->result_memo();
    std::vector<const Library*> candidates;
    const std::string inputs = memo ? rule_inputs(consumer, *c, candidates) : std::string();
    if (!inputs.empty())
      if (auto kept = memo->find(inputs); kept && replay(consumer, candidates, *kept, edges)) return;
    const std::size_t first = edges.size();
    std::vector<std::optional<std::vector<Target>>> targets(c->versions.size());
    for (std::uint32_t i : c->elf->undefined_symbols()) {
      auto sym = c->elf->symbol(i);
      // A weak reference that stays undefined does not stop a load.
      if (!sym || sym->bind == elf::stb_weak || sym->version < 2 || sym->version >= c->versions.size()) continue;
      const loader::VersionRef& need = c->versions[sym->version];
      if (need.filename.empty()) continue;
      auto& node = targets[sym->version];
      if (!node) node = providers_of(consumer, need);
      for (auto& target : *node) {
        if (target.edge == no_edge) {
          target.edge = edges.size();
          Edge e;
          e.consumer = &consumer;
          e.provider = target.provider;
          e.version = need.name;
          edges.push_back(std::move(e));
        }
        record(edges[target.edge], *target.symbols, sym->name, need);
      }
    }
    if (!inputs.empty()) memo->remember(inputs, kept_edges(edges, first, candidates));
  }

  const std::vector<std::string>& unreadable() const { return unreadable_; }

private:
  static constexpr std::size_t no_edge = static_cast<std::size_t>(-1);

  // An env library one version node of the consumer points at, and the edge
  // (index into the consumer's edges) once a reference has used it.
  struct Target {
    const Library* provider = nullptr;
    const Symbols* symbols = nullptr;
    std::size_t edge = no_edge;
  };

  // What collect reads, as key material: the consumer's file, and for each
  // file name its version needs give, the env libraries of that soname
  // (paths and stamps), which become `candidates` in that order. "" when a
  // file has no stamp or unreadable symbols (then nothing is kept).
  std::string rule_inputs(const Library& consumer, const Symbols& c, std::vector<const Library*>& candidates) {
    if (!c.stamp.known()) return {};
    std::string inputs = "symbol rule 1";
    loader::put_stamp(inputs, c.stamp);
    std::vector<std::string_view> files;
    for (const auto& need : c.versions)
      if (!need.filename.empty() && std::find(files.begin(), files.end(), need.filename) == files.end())
        files.push_back(need.filename);
    for (std::string_view file : files) {
      util::put_raw_text(inputs, file);
      for (const auto& provider : in_.inventory->libraries) {
        if (provider.soname != file || provider.file == consumer.file) continue;
        const auto& opened = in_.files->open_verify(in_.inventory->prefix + "/" + provider.file);
        if (!opened.elf || !opened.elf->has_symbols() || !opened.stamp.known()) return {};
        util::put_raw_text(inputs, provider.file);
        loader::put_stamp(inputs, opened.stamp);
        candidates.push_back(&provider);
      }
      util::put_raw(inputs, '\n');
    }
    return inputs;
  }

  // The edges collect added from `first` on, as kept: each names its
  // provider by its place among the candidates.
  static std::string kept_edges(const std::vector<Edge>& edges, std::size_t first,
                                const std::vector<const Library*>& candidates) {
    std::string kept;
    for (std::size_t i = first; i < edges.size(); ++i) {
      const Edge& e = edges[i];
      util::put_number_field(kept, static_cast<std::uint64_t>(
                                       std::find(candidates.begin(), candidates.end(), e.provider) - candidates.begin()));
      util::put_text_field(kept, e.version);
      util::put_number_field(kept, e.count);
      util::put_number_field(kept, e.missing_count);
      util::put_number_field(kept, e.missing.size());
      for (const auto& m : e.missing) util::put_text_field(kept, m);
      util::put_text_field(kept, e.highest_release);
      util::put_text_field(kept, e.highest_symbol);
    }
    return kept;
  }

  // The kept edges appended to `edges`, when every field reads and fits.
  static bool replay(const Library& consumer, const std::vector<const Library*>& candidates, std::string_view kept,
                     std::vector<Edge>& edges) {
    std::vector<Edge> read;
    util::FieldReader fields(kept);
    while (!fields.done()) {
      Edge e;
      e.consumer = &consumer;
      std::uint64_t provider = 0, count = 0, missing_count = 0, listed = 0;
      std::string_view text;
      if (!fields.number(provider) || provider >= candidates.size() || !fields.text(text)) return false;
      e.provider = candidates[provider];
      e.version = text;
      if (!fields.number(count) || !fields.number(missing_count) || !fields.number(listed) || missing_count > count ||
          listed > std::min<std::uint64_t>(missing_count, max_listed))
        return false;
      e.count = count;
      e.missing_count = missing_count;
      for (std::uint64_t i = 0; i < listed; ++i) {
        if (!fields.text(text)) return false;
        e.missing.emplace_back(text);
      }
      std::string_view release, symbol;
      if (!fields.text(release) || !fields.text(symbol)) return false;
      e.highest_release = release;
      e.highest_symbol = symbol;
      read.push_back(std::move(e));
    }
    for (auto& e : read) edges.push_back(std::move(e));
    return true;
  }

  std::vector<Target> providers_of(const Library& consumer, const loader::VersionRef& need) {
    std::vector<Target> out;
    for (const auto& provider : in_.inventory->libraries) {
      if (provider.soname != need.filename || provider.file == consumer.file) continue;
      if (const Symbols* p = symbols_of(provider)) out.push_back({&provider, p, no_edge});
    }
    return out;
  }

  void record(Edge& e, const Symbols& p, std::string_view name, const loader::VersionRef& need) {
    ++e.count;
    if (!defines(p, name, need)) {
      if (e.missing.size() < max_listed) e.missing.emplace_back(name);
      ++e.missing_count;
    }
    std::string release = inventory::implied_release(name);
    if (!release.empty() && (e.highest_release.empty() || util::compare_versions(release, e.highest_release) > 0)) {
      e.highest_release = release;
      e.highest_symbol = name;
    }
  }

  const AlignmentInputs& in_;
  std::map<std::string, Symbols> cache_;
  std::vector<std::string> unreadable_;
};

std::string describe(const Edge& e) {
  std::string s = e.consumer->soname + " -> " + e.provider->soname + " (" + package_label(*e.provider) + "): " +
                  std::to_string(e.count) + " symbol" + (e.count == 1 ? "" : "s") + " of version " + e.version;
  if (e.missing_count == 0) s += ", all defined";
  else s += ", " + std::to_string(e.missing_count) + " missing: " + util::join(e.missing, ", ") +
            (e.missing_count > e.missing.size() ? ", ..." : "");
  if (!e.highest_release.empty()) s += "; highest " + e.highest_symbol + " needs " + e.highest_release;
  return s;
}

RuleFailure failure_of(const Edge& e) {
  RuleFailure f;
  f.consumer = e.consumer->file;
  f.consumer_soname = e.consumer->soname;
  f.provider = e.provider->file;
  f.provider_soname = e.provider->soname;
  f.provider_package = e.provider->package.empty() ? "" : e.provider->package + " " + e.provider->version;
  f.provider_component = e.provider->component;
  f.provider_manager = e.provider->manager;
  f.provider_major = e.provider->cuda_major;
  f.symbols = e.missing;
  f.version = e.version;
  f.needed_release = e.highest_release;
  // "which pip nvidia-nvjitlink-cu12 12.1.105 does not define"; a file no package
  // owns is named by its path ("which no package does not define" said nothing).
  const std::string owner = e.provider->package.empty() ? e.provider->file + " (no package owns it)" : package_label(*e.provider);
  f.message = e.consumer->soname + " needs " + util::join(e.missing, ", ") + " (version " + e.version + ") from " +
              e.provider->soname + ", which " + owner + " does not define";
  if (!e.highest_release.empty()) f.message += ": it needs " + e.provider->soname + " >= " + e.highest_release;
  return f;
}
} // namespace

RuleOutcome symbol_rule(const AlignmentInputs& in) {
  RuleOutcome out;
  out.rule = rule::symbols;
  SymbolChecker checker(in);
  std::vector<Edge> edges;
  for (const auto& lib : in.inventory->libraries) checker.collect(lib, edges);
  std::size_t references = 0;
  // With several copies of a soname in the env (conda's lib/ and a wheel), a
  // copy that lacks what the consumer needs is no failure while another copy
  // has it all: repair chooses that one (repair/copies.cpp provider_for).
  auto satisfied_elsewhere = [&](const Edge& e) {
    return std::any_of(edges.begin(), edges.end(), [&](const Edge& other) {
      return other.consumer == e.consumer && other.version == e.version && other.provider != e.provider &&
             other.provider->soname == e.provider->soname && other.missing_count == 0;
    });
  };
  for (const auto& e : edges) {
    references += e.count;
    out.evidence.push_back(describe(e));
    if (e.missing_count > 0 && satisfied_elsewhere(e))
      out.evidence.push_back("  another copy of " + e.provider->soname + " in the env defines them all: " +
                             e.provider->file + " is not the one to use");
    else if (e.missing_count > 0) out.failures.push_back(failure_of(e));
    if (!e.highest_release.empty() &&
        (out.min_release.empty() || util::compare_versions(e.highest_release, out.min_release) > 0))
      out.min_release = e.highest_release;
  }
  for (const auto& u : checker.unreadable()) out.evidence.push_back(u);
  if (!out.min_release.empty())
    out.evidence.push_back("the highest versioned nvJitLink entry point referenced implies release " + out.min_release);
  if (!out.failures.empty()) out.result = RuleResult::fail;
  else if (edges.empty() && !checker.unreadable().empty()) out.result = RuleResult::unknown;
  else out.result = RuleResult::pass;
  if (edges.empty()) out.evidence.insert(out.evidence.begin(), "no versioned references between the env's libraries");
  else out.evidence.insert(out.evidence.begin(), std::to_string(references) + " versioned references between the env's libraries checked");
  return out;
}

} // namespace condacuda::lock
