#pragma once
// Nodes grouped into classes: the nodes whose verdict is the same (the same
// findings, or the same reason for giving none) are one class, named in
// Slurm's hostlist notation, with the facts that tell the classes apart and
// those its own nodes do not share (mixed), so a fleet of a
// thousand nodes reads as a few lines (README "Fleet"). Pure; linear in the
// number of nodes (one key per node, one map).
#include <optional>
#include <string>
#include <vector>

#include "fleet/node_record.hpp"

namespace condacuda::fleet {

// The facts a class is keyed on, by name (the JSON's and the text's words).
enum class Fact { glibc, driver, gpus, ld_library_path, system_cuda_folders, ld_so_cache_cuda };
const char* to_string(Fact f); // "glibc", "driver", "gpus", "ld_library_path", "system_cuda_folders", "ld_so_cache_cuda"

struct NodeClass {
  std::vector<std::size_t> members; // indexes into Fleet::nodes, by name
  std::string hostlist;             // "gpu[001-012,015]"
  int exit_code = 0;
  std::vector<std::string> driver_versions; // the versions its nodes have (the class is keyed on the branch)
  std::string verdict;              // "loads", "loads, 2 warnings", "fails: undefined-symbol", "no answer: drained"
  std::string next;                 // what to do, one line ("" when nothing)
  bool silent = false;              // its nodes gave no verdict
  std::vector<Fact> mixed;          // facts its nodes do not share (the class is keyed on the verdict)
  // Per differing fact: this class's value in words ("2.31", "535 (535.104.05)",
  // "+/opt/site/cuda-12.1/lib64"); empty for a silent class.
  std::vector<std::pair<Fact, std::string>> distinct;
};

struct Fleet {
  std::vector<NodeRecord> nodes;   // one per node, by name (a node named twice: its last document)
  std::vector<NodeClass> classes;  // the worst first, then the largest, then by hostlist
  std::vector<Fact> differing;     // facts with more than one value among the answering nodes
  std::vector<std::string> repeated; // nodes that had more than one document (the last kept)
  // Set when the nodes that fail in the loader launch the env with different
  // LD_LIBRARY_PATH values: one repair of the shared env must suit them all.
  // `fleet` with an env replaces it with the answer of a dry-run repair
  // verifying every launch (app/fleet.cpp).
  std::optional<std::string> shared_repair_note;
  int exit_code = 0;               // the worst class's
  std::size_t answered() const;
  const NodeRecord& example(const NodeClass& c) const { return nodes[c.members.front()]; }
};

Fleet classify(std::vector<NodeRecord> nodes);

} // namespace condacuda::fleet
