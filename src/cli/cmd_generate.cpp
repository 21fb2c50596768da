// condacuda __generate bash|zsh|fish|man: completions and the man page, from
// the CLI11 definition itself (run at build time by CMake; hidden).
#include "cli/commands.hpp"
#include "repair/hooks.hpp"
#include "report/cli_docs.hpp"
#include "util/strings.hpp"

namespace condacuda::cli {

namespace {
// What each value-taking option holds, by name: the CLI11 definition knows
// types, not meanings. An option not named here completes as free text.
struct ValueDoc {
  std::string_view option;
  report::ValueKind kind;
  std::vector<std::string> choices; // for ValueKind::choice
};

// --shells: each hook flavour repair writes, and all of them.
std::vector<std::string> shell_choices() {
  std::vector<std::string> names;
  for (repair::Shell shell : repair::all_shells()) names.emplace_back(repair::hook_extension(shell));
  names.push_back(util::join(names, ","));
  return names;
}

const std::vector<ValueDoc>& value_docs() {
  static const std::vector<ValueDoc> docs = {
      {"--name", report::ValueKind::env_name, {}},
      {"--prefix", report::ValueKind::directory, {}},
      {"--output", report::ValueKind::file, {}},
      {"--releases", report::ValueKind::file, {}},
      {"--gpus", report::ValueKind::file, {}},
      {"--check", report::ValueKind::file, {}},
      {"--color", report::ValueKind::choice, color_choices},
      {"--shells", report::ValueKind::choice, shell_choices()},
      {"--context", report::ValueKind::choice, {"activated", "not-activated"}},
      {"--from", report::ValueKind::file, {}},
      {"--condacuda", report::ValueKind::file, {}},
  };
  return docs;
}

void describe_value(const CLI::Option* o, report::OptionSpec& os) {
  if (o->get_expected_max() == 0 || o->get_type_size() == 0) {
    os.value = report::ValueKind::none; // a flag
    return;
  }
  os.value = report::ValueKind::text;
  for (const auto& doc : value_docs())
    if (doc.option == o->get_name()) {
      os.value = doc.kind;
      os.choices = doc.choices;
      return;
    }
}

// Commands that take `-- CMD [ARGS...]` after their own words (main hands
// the words after `--` to them: passthrough_args).
bool takes_command(const CLI::App& sub) { return sub.get_name() == "run"; }

// The program's description reads "condacuda: make ..."; the man page's NAME
// line and the summary want the part after the name.
std::string summary_of(const CLI::App& root, const std::string& program) {
  std::string d = root.get_description();
  const std::string lead = program + ": ";
  return d.rfind(lead, 0) == 0 ? d.substr(lead.size()) : d;
}

// One command's description: `sub` is `top` itself, or one of its second words (`kernel install`).
report::CommandSpec command_spec(const CLI::App& top, const CLI::App& sub) {
  report::CommandSpec c{top.get_name(), sub.get_description(), {}, false, takes_command(sub),
                        &sub == &top ? "" : sub.get_name()};
  for (const CLI::Option* o : sub.get_options()) {
    if (o->get_name() == "--help" || o->get_group().empty()) continue; // hidden options stay hidden
    if (o->get_lnames().empty() && o->get_snames().empty()) {
      if (o->get_name() == "ENV") c.takes_env = true; // positional
      continue;
    }
    report::OptionSpec os;
    for (const auto& s : o->get_snames()) os.names.push_back("-" + s);
    for (const auto& l : o->get_lnames()) os.names.push_back("--" + l);
    os.description = o->get_description();
    describe_value(o, os);
    c.options.push_back(std::move(os));
  }
  return c;
}

report::CliSpec describe(CLI::App& root) {
  report::CliSpec spec;
  spec.summary = summary_of(root, spec.program);
  spec.version = CONDACUDA_VERSION;
  for (CLI::App* top : root.get_subcommands({})) {
    if (top->get_group().empty() || top->get_name().rfind("__", 0) == 0) continue; // hidden
    const std::vector<CLI::App*> actions = top->get_subcommands({});
    if (actions.empty()) spec.commands.push_back(command_spec(*top, *top));
    for (const CLI::App* action : actions) spec.commands.push_back(command_spec(*top, *action));
  }
  return spec;
}

// EXIT STATUS: the codes of common.hpp, in the words of the README's "Exit
// codes" table (e2e.man_page compares the two).
std::vector<report::ManEntry> exit_status() {
  auto code = [](ExitCode c) { return std::to_string(int(c)); };
  return {
      {code(exit_ok), "success: healthy, repaired, matches"},
      {code(exit_problems),
       "problems found: error findings (doctor), could not make the env healthy or a file is in the way (repair, "
       "nothing written), something left (undo), drift or does not load here (lock --check), a failed check"},
      {code(exit_bad_input),
       "bad input: usage, unknown env, a path that is not an env, an unreadable or corrupt lock/manifest"},
      {code(exit_no_gpu), "check: no usable GPU (no libcuda.so.1, the toolkit stub instead, no device)"},
      {code(exit_cannot_apply),
       "the env cannot be written: permissions, disk, another condacuda holding its lock past 30 s"},
      {code(exit_no_answer),
       "fleet: nodes that gave no verdict (drained, down, timed out, no condacuda there), every answering one loading"},
      {code(exit_internal), "a bug in condacuda"},
      {"CMD's", "run: the exit status of CMD (127 when it cannot be found, 126 when it cannot be executed)"},
  };
}
} // namespace

Command add_generate(CLI::App& root) {
  auto what = std::make_shared<std::string>();
  CLI::App* sub = root.add_subcommand("__generate", "Internal: print shell completions or the man page");
  sub->group(""); // hidden
  sub->add_option("WHAT", *what, "bash, zsh, fish or man")->required()->check(CLI::IsMember({"bash", "zsh", "fish", "man"}));
  return {sub, [what, top = &root] {
            report::CliSpec spec = describe(*top);
            if (*what == "bash") emit(report::bash_completion(spec));
            else if (*what == "zsh") emit(report::zsh_completion(spec));
            else if (*what == "fish") emit(report::fish_completion(spec));
            else emit(report::man_page(spec, exit_status()));
            return int(exit_ok);
          }};
}

} // namespace condacuda::cli
