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
      {"--check", report::ValueKind::file, {}},
      {"--color", report::ValueKind::choice, color_choices},
      {"--shells", report::ValueKind::choice, shell_choices()},
      {"--context", report::ValueKind::choice, {"activated", "not-activated"}},
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

report::CliSpec describe(CLI::App& root) {
  report::CliSpec spec;
  spec.summary = root.get_description();
  spec.version = CONDACUDA_VERSION;
  for (CLI::App* sub : root.get_subcommands({})) {
    if (sub->get_group().empty() || sub->get_name().rfind("__", 0) == 0) continue; // hidden
    report::CommandSpec c{sub->get_name(), sub->get_description(), {}, false};
    for (const CLI::Option* o : sub->get_options()) {
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
    spec.commands.push_back(std::move(c));
  }
  return spec;
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
            else
              emit(report::man_page(
                  spec,
                  {{"0", "success: healthy, repaired, matches"},
                   {"1", "problems found: error findings, could not repair (nothing written), something left, drift, a failed check"},
                   {"2", "bad input: usage, unknown env, an unreadable or corrupt lock or manifest"},
                   {"3", "check: no usable GPU (no libcuda.so.1, the toolkit stub instead, no device)"},
                   {"4", "the env cannot be written (permissions, disk, another condacuda holds its lock)"},
                   {"70", "a bug in condacuda"}},
                  {{"$PREFIX/etc/condacuda/manifest.yml", "what repair created; undo removes exactly that"},
                   {"$PREFIX/etc/conda/activate.d/condacuda.{sh,fish,csh}", "the activation hooks repair writes"},
                   {"/etc/ld.so.cache", "read by doctor, as by ld.so"}}));
            return int(exit_ok);
          }};
}

} // namespace condacuda::cli
