#pragma once
// `condacuda check --python`: the env's python, started with the activated
// environment, imports each framework the env has (torch, jax, cupy) and runs
// one small op on the GPU. The script prints one JSON line per framework;
// an ImportError is matched to doctor's finding that explains it. Pure.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "doctor/findings.hpp"

namespace condacuda::check {

// The script, run as `python -c SCRIPT`.
std::string_view python_check_script();

enum class FrameworkStatus {
  pass,
  fail,
  no_gpu, // imported, but it sees no GPU
  absent, // not installed in the env
};
const char* to_string(FrameworkStatus status); // "pass", "fail", "no-gpu", "absent": the script's words
std::optional<FrameworkStatus> parse_framework_status(std::string_view word);

struct PythonResult {
  std::string framework;  // "torch", "jax", "cupy"
  FrameworkStatus status = FrameworkStatus::absent;
  std::string version;
  std::string detail;     // what ran, one line
  std::string error;      // the exception, "ImportError: ..." (first line of its text)
  std::string finding;    // the doctor finding code that explains `error`, if one does
  std::string finding_title;
  std::string fix;
};

// Folds the script's stdout; lines that are not its records (a status it
// never writes included) are ignored.
std::vector<PythonResult> parse_python_output(std::string_view text);

// The finding that explains a loader error text (an ImportError or a dlerror):
// the one whose first error is in the text, else whose missing symbol, else
// whose library soname is named in it. nullptr when none does.
const doctor::Finding* explaining_finding(std::string_view error, const std::vector<doctor::Finding>& findings);

void attach_findings(std::vector<PythonResult>& results, const std::vector<doctor::Finding>& findings);

} // namespace condacuda::check
