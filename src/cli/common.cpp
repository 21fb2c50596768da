#include "cli/common.hpp"

#include <cstdio>
#include <iostream>
#include <unistd.h>

#include "app/share_dir.hpp"
#include "report/document.hpp"
#include "report/info_report.hpp"

namespace condacuda::cli {

int exit_code_for(const Error& error) {
  switch (error.code) {
  case ErrorCode::bad_input:
  case ErrorCode::not_found:
  case ErrorCode::corrupt:
  case ErrorCode::unsupported: return exit_bad_input;
  case ErrorCode::conflict: return exit_problems;
  case ErrorCode::io:
  case ErrorCode::busy: return exit_cannot_apply;
  case ErrorCode::internal: return exit_internal;
  }
  return exit_internal;
}

// Messages name files and values of the env: escaped like the text output.
void print_error(const std::string& message) { std::cerr << "condacuda: " << report::for_terminal(message, {}) << "\n"; }
void print_warning(const std::string& message) {
  std::cerr << "condacuda: warning: " << report::for_terminal(message, {}) << "\n";
}

void add_env_args(CLI::App* command, EnvArgs& args) {
  command->add_option("ENV", args.env, "Env to use: a name (as with -n) or a path (as with -p)");
  command->add_option("-n,--name", args.name, "Name of the env, looked up in conda's envs dirs ('base' is the root)");
  command->add_option("-p,--prefix", args.prefix, "Path of the env");
}

int fail(const Error& error, const OutputArgs& out, std::optional<int> exit_code,
         const std::optional<std::vector<env::EnvRecord>>& envs_found) {
  const int code = exit_code ? *exit_code : exit_code_for(error);
  print_error(error.describe());
  if (envs_found) std::cerr << report::for_terminal(report::envs_found_text(*envs_found), {});
  if (out.format() == report::Format::json) emit(report::error_json(error, code, envs_found).dump() + "\n");
  return code;
}

std::optional<env::EnvRecord> choose_env(const app::EnvRequest& request, const OutputArgs& out) {
  auto choice = app::select_env(request);
  for (const auto& w : choice.warnings) print_warning(w.describe());
  if (choice.env) return choice.env;
  fail(*choice.error, out, exit_bad_input, choice.found);
  return std::nullopt;
}

report::Format OutputArgs::format() const {
  if (json) return report::Format::json;
  if (dot) return report::Format::dot;
  return report::Format::text;
}

int emit_result(const OutputArgs& out, const report::Rendering& result, int exit_code) {
  switch (out.format()) {
  case report::Format::json: emit(report::document(result.json(), result.outcome, exit_code).dump() + "\n"); break;
  case report::Format::dot: emit_text(result.dot(), {}); break;
  case report::Format::text: {
    const report::Style style = style_for(out);
    if (result.text_is_data) emit(result.text(style));
    else emit_text(result.text(style), style);
    break;
  }
  }
  return exit_code;
}

void add_output_args(CLI::App* command, OutputArgs& args, bool with_json) {
  if (with_json) command->add_flag("--json", args.json, "Machine-readable output (a versioned JSON schema)");
  command->add_option("--color", args.color, "Colour: auto (on a terminal), always or never")
      ->check(CLI::IsMember(color_choices));
}

void add_dot_flag(CLI::App* command, OutputArgs& args, const std::string& description) {
  command->add_flag("--dot", args.dot, description);
}

namespace {
// NO_COLOR set and not empty (no-color.org), or a terminal that says it
// cannot show colour (TERM=dumb, as Emacs' shell and some CI runners set it).
bool wants_no_color() {
  const char* no_color = std::getenv("NO_COLOR");
  const char* term = std::getenv("TERM");
  return (no_color && *no_color) || (term && std::string_view(term) == "dumb");
}
} // namespace

report::Style style_for(const OutputArgs& args) {
  report::Style s;
  if (args.color == "always") s.color = true;
  else if (args.color == "never") s.color = false;
  else s.color = isatty(STDOUT_FILENO) && !wants_no_color();
  return s;
}

app::BaseLdLibraryPath base_ld_library_path(const std::optional<std::string>& given, bool unset) {
  if (unset) return app::BaseLdLibraryPath::given(std::nullopt);
  if (given) return app::BaseLdLibraryPath::given(*given);
  return app::BaseLdLibraryPath::this_shell();
}

int print_share_dir() {
  auto dir = app::share_dir();
  emit(dir.path + "\n");
  return dir.exists ? exit_ok : exit_bad_input;
}

std::vector<std::string>& passthrough_args() {
  static std::vector<std::string> args;
  return args;
}

void emit(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

void emit_text(const std::string& text, const report::Style& style) { emit(report::for_terminal(text, style)); }

} // namespace condacuda::cli
