#pragma once
// One node of a fleet as its documents describe it: the node facts and the
// verdict of `condacuda doctor --json` run there (and `check --json` with
// fleet --check), or why it gave none. Pure: documents in, records out; the
// documents come from srun (app/fleet.cpp) or from files (fleet --from).
#include <optional>
#include <string>
#include <vector>

#include "util/json.hpp"

namespace condacuda::fleet {

// Exit code of a class of nodes that gave no verdict (README "Exit codes").
inline constexpr int exit_no_answer = 5;

// Why a node gave no verdict.
enum class Silence {
  unavailable,  // Slurm would not run on it: drained, down, not responding (sinfo's state and reason)
  timed_out,    // it did not finish within --timeout
  not_started,  // condacuda could not be started there (not at that path, not executable)
  no_document,  // it ended without printing a document
  bad_document, // what it printed is not a condacuda document
  error,        // condacuda ran and said why it could not judge (condacuda.error/1: the env is not there...)
};
const char* to_string(Silence s); // "unavailable", "timed-out", "not-started", "no-document", "bad-document", "error"

struct NoAnswer {
  NoAnswer(Silence why = Silence::no_document, std::string says = {}, int code = exit_no_answer, std::string own = {})
      : kind(why), reason(std::move(says)), exit_code(code), detail(std::move(own)) {}
  Silence kind = Silence::no_document;
  // For people, the same for every node it happens to (the class is keyed on
  // it): "drained: disk replaced", "not a JSON document".
  std::string reason;
  int exit_code = exit_no_answer; // error: the document's exit code
  std::string detail; // this node's own part: the file, the parse error's position, what the node printed
};

// The facts classes are built from (doctor/node_facts.hpp, as JSON gives them).
struct Facts {
  std::string glibc;
  std::optional<std::string> driver; // "580.65.06"
  int driver_branch = 0;             // 580; 0: none
  std::string driver_source;
  std::vector<std::string> gpus;     // "H100 (sm_90)", sorted, once each
  std::string gpus_source;
  std::optional<std::string> ld_library_path; // the launch's (nullopt: unset)
  std::vector<std::string> system_cuda_folders;
  std::vector<std::string> ld_so_cache_cuda;
};

// One finding as doctor wrote it, with what a class needs of it.
struct FindingLine {
  std::string code, severity, title, library, via_entry, first_error, fix;
};

struct Verdict {
  std::string outcome; // doctor's: "healthy", "problems"
  int exit_code = 0;
  int roots = 0, failing_roots = 0;
  std::vector<FindingLine> findings; // errors, then warnings, in doctor's order
  // With --check: check's outcome word and exit code, and its reason.
  std::optional<std::string> check_outcome;
  int check_exit_code = 0;
  std::string check_reason; // check's verdict in one line
};

struct NodeRecord {
  std::string node;                  // the Slurm node name, else the host name, else the file it came from
  std::string hostname;
  std::string env_prefix;            // the env the document judged
  std::optional<NoAnswer> no_answer; // set: no verdict (facts and verdict empty)
  Facts facts;
  Verdict verdict;
  util::Json doctor;                 // the original documents (null when none)
  util::Json check;
  int exit_code() const;             // the node's worst code (no_answer's when silent)
};

// A node record from its documents. `node` names it when the document does not
// (an error document, a file with no node facts). `check` may be null.
NodeRecord record_from_documents(const std::string& node, util::Json doctor, util::Json check);
// A node that gave no verdict.
NodeRecord silent_node(const std::string& node, NoAnswer why);

// The worse of two exit codes: 0 < 3 (check: no GPU) < 5 (no answer) < 1
// (problems) < 4 < 2 (bad input) < 70 (a bug) < any other, by value. A node the env fails on is
// worse news than a node that did not answer; an error that stopped the judging
// worse than both.
int worse_exit_code(int a, int b);

} // namespace condacuda::fleet
