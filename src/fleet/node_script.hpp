#pragma once
// What `condacuda fleet` runs on each node through srun, and how it reads
// back what each task printed. The script is plain sh (every node has it):
// it names the node, runs `condacuda doctor --json --gpu visible` (and
// `check --json` with --check) under coreutils' `timeout` when the node has
// it, and prints a marker line with each exit status. srun --label puts the
// task number before every line of the tasks' stdout and stderr, so the
// documents of many nodes are told apart however srun interleaves them; it
// also breaks a line longer than one slurmstepd message (1 KB: a long
// LD_LIBRARY_PATH in a document), so the documents cross as base64 lines
// where the node has base64 (coreutils, busybox), as they are elsewhere.
// Pure: text in, records out.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fleet/node_record.hpp"

namespace condacuda::fleet {

// The sh script, run as `sh -c SCRIPT CONDACUDA PREFIX TIMEOUT_S CONTEXT [check]`
// (CONTEXT: doctor's --context, "activated" or "not-activated").
const std::string& node_script();

// What one srun task printed.
struct TaskOutput {
  std::string node;                 // from the script's first line ("" when it never ran)
  bool base64 = false;              // the documents cross base64-encoded
  std::string doctor_text;
  std::optional<int> doctor_exit;   // the marker's status (nullopt: the script was cut short)
  std::string check_text;
  std::optional<int> check_exit;
  std::vector<std::string> stderr_lines;
};

struct SrunOutput {
  std::map<int, TaskOutput> tasks;          // by task number
  std::vector<std::string> srun_messages;   // stderr lines without a task label (srun's own)
};

// Splits srun --label output (stdout and stderr apart) by task.
SrunOutput split_srun_output(std::string_view stdout_text, std::string_view stderr_text);

// The record of one task's node; `timeout_s` and `condacuda` word the reasons.
NodeRecord record_from_task(const TaskOutput& task, double timeout_s, const std::string& condacuda);

// The node names srun says it could not launch on ("srun: error: Task launch
// for StepId=12.0 failed on node node3: Communication connection failure"):
// the cause ("Communication connection failure") and the whole message.
struct LaunchFailure {
  std::string cause;
  std::string message;
};
std::map<std::string, LaunchFailure> launch_failures(const std::vector<std::string>& srun_messages);

} // namespace condacuda::fleet
