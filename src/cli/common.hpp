#pragma once
// What every command shares: env selection (-n/-p/ENV), output options, the
// one mapping from errors to exit codes, and error printing.
#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "app/base_ld_library_path.hpp"
#include "app/select_env.hpp"
#include "env/discovery.hpp"
#include "report/rendering.hpp"
#include "report/table.hpp"
#include "util/json.hpp"
#include "util/result.hpp"

namespace condacuda::cli {

// Documented exit codes (README "Exit codes").
enum ExitCode : int {
  exit_ok = 0,
  exit_problems = 1,   // findings, drift, failed check, something left behind
  exit_bad_input = 2,  // usage errors, unknown env, unreadable lock, bad ELF/YAML given on purpose
  exit_no_gpu = 3,     // `check`: no usable driver or device
  exit_cannot_apply = 4, // the env cannot be written (permissions, disk, another condacuda holds its lock)
  exit_no_answer = 5,  // `fleet`: nodes that gave no verdict (drained, down, timed out, no condacuda there)
  exit_internal = 70,  // a bug in condacuda (EX_SOFTWARE)
};

int exit_code_for(const Error& error);

// "condacuda: <message>" on stderr.
void print_error(const std::string& message);
void print_warning(const std::string& message);

using EnvArgs = app::EnvRequest;
void add_env_args(CLI::App* command, EnvArgs& args);

// How a command shows its result: the format its flags chose, and colour.
struct OutputArgs {
  std::string color = "auto"; // one of color_choices
  bool json = false;          // --json (add_output_args)
  bool dot = false;           // --dot (add_dot_flag)
  // --json wins over --dot: a script that asks for JSON always gets JSON.
  report::Format format() const;
};

// The error a command ends with: "condacuda: <message>" on stderr (and the
// envs found, after a failed env selection); under --json the error document
// (report::error_json) on stdout too. Returns `exit_code` (by default the
// error's, exit_code_for).
int fail(const Error& error, const OutputArgs& out, std::optional<int> exit_code = std::nullopt,
         const std::optional<std::vector<env::EnvRecord>>& envs_found = std::nullopt);

// The selected env, or nullopt after fail() said why (callers then return
// exit_bad_input).
std::optional<env::EnvRecord> choose_env(const EnvArgs& args, const OutputArgs& out);

// The one place output is written in the format chosen: the text (made safe
// for a terminal unless it is data), the JSON document with its shared head
// (report::document: schema, env, outcome, exit_code), or the DOT graph.
// Returns exit_code.
int emit_result(const OutputArgs& out, const report::Rendering& result, int exit_code);
inline const std::vector<std::string> color_choices = {"auto", "always", "never"};
// --json (unless without it) and --color.
void add_output_args(CLI::App* command, OutputArgs& args, bool with_json = true);
// --dot, for a command whose rendering draws a graph.
void add_dot_flag(CLI::App* command, OutputArgs& args, const std::string& description);
report::Style style_for(const OutputArgs& args);

// --ld-library-path VALUE / --no-ld-library-path, as doctor and check take them.
app::BaseLdLibraryPath base_ld_library_path(const std::optional<std::string>& given, bool unset);

// --print-share-dir: <bin>/../share/condacuda of this executable; exit 0 when
// it exists (an installed condacuda), 2 when not (a build tree).
int print_share_dir();

// Writes text to stdout exactly (no added newline): JSON, YAML, values.
void emit(const std::string& text);
// Writes text for people to stdout: what the env wrote in it made safe for a
// terminal (report::for_terminal).
void emit_text(const std::string& text, const report::Style& style);

// One subcommand: its CLI11 node and what to run when it was chosen.
struct Command {
  CLI::App* subcommand = nullptr;
  std::function<int()> run;
};

// The words after the first "--" on the command line, which command_line.cpp keeps
// away from CLI11 (`condacuda run ENV -- CMD ARGS...`).
std::vector<std::string>& passthrough_args();

} // namespace condacuda::cli
