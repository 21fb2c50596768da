#include "cli/common.hpp"

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <unistd.h>

#include "sys/env_discovery.hpp"

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

void print_error(const std::string& message) { std::cerr << "condacuda: " << message << "\n"; }
void print_warning(const std::string& message) { std::cerr << "condacuda: warning: " << message << "\n"; }

void add_env_args(CLI::App* command, EnvArgs& args) {
  command->add_option("ENV", args.env, "Env to use: a name (as with -n) or a path (as with -p)");
  command->add_option("-n,--name", args.name, "Name of the env, looked up in conda's envs dirs ('base' is the root)");
  command->add_option("-p,--prefix", args.prefix, "Path of the env");
}

std::optional<env::EnvRecord> select_env(const EnvArgs& args) {
  auto context = sys::load_discovery_context();
  for (const auto& w : context.warnings) print_warning(w.describe());
  env::Selection sel;
  if (!args.name.empty()) sel.name = args.name;
  if (!args.prefix.empty()) sel.prefix = args.prefix;
  if (!args.env.empty()) {
    if (sel.name || sel.prefix) {
      print_error("give the env once: as ENV, -n or -p");
      return std::nullopt;
    }
    if (args.env.find('/') != std::string::npos || args.env == "." || args.env == "..") sel.prefix = args.env;
    else sel.name = args.env;
  }
  auto chosen = sys::select_env(sel, context);
  if (chosen) return *chosen;
  print_error(chosen.error().describe());
  auto envs = sys::list_envs(context);
  if (envs.empty()) {
    std::cerr << "no environments found (select one with -n NAME or -p PATH, or activate it)\n";
  } else {
    std::cerr << "environments found:\n";
    for (const auto& e : envs) std::cerr << "  " << e.name << "  " << env::to_string(e.kind) << "  " << e.prefix << "\n";
  }
  return std::nullopt;
}

void add_output_args(CLI::App* command, OutputArgs& args, bool with_json) {
  if (with_json) command->add_flag("--json", args.json, "Machine-readable output (a versioned JSON schema)");
  command->add_option("--color", args.color, "Colour: auto (on a terminal), always or never")
      ->check(CLI::IsMember(color_choices));
}

report::Style style_for(const OutputArgs& args) {
  report::Style s;
  if (args.color == "always") s.color = true;
  else if (args.color == "never") s.color = false;
  else s.color = isatty(STDOUT_FILENO) && !std::getenv("NO_COLOR");
  return s;
}

int print_share_dir() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  auto dir = (exe.parent_path().parent_path() / "share" / "condacuda").lexically_normal();
  emit(dir.string() + "\n");
  return std::filesystem::is_directory(dir, ec) ? exit_ok : exit_bad_input;
}

std::vector<std::string>& passthrough_args() {
  static std::vector<std::string> args;
  return args;
}

void emit(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

} // namespace condacuda::cli
