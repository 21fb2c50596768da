// condacuda list [--json]: the envs found, their kind and CUDA major.
#include "app/info.hpp"
#include "cli/commands.hpp"
#include "report/info_report.hpp"
#include "util/strings.hpp"

namespace condacuda::cli {

Command add_list(CLI::App& root) {
  auto out = std::make_shared<OutputArgs>();
  auto names = std::make_shared<bool>(false);
  CLI::App* sub = root.add_subcommand("list", "List the envs found (conda, micromamba, pixi, venv) with their CUDA major");
  add_output_args(sub, *out);
  sub->add_flag("--names", *names, "Only the env names, one per line, without scanning (for shell completion)");
  return {sub, [out, names] {
            if (*names) {
              std::string text;
              // One name per line, as a completion reads them: a name that is
              // not plain text (a newline, ESC, bytes that are not UTF-8)
              // could not be typed back, and would break the lines.
              for (const auto& name : app::list_names())
                if (util::is_plain_text(name)) text += name + "\n";
              emit(text);
              return int(exit_ok);
            }
            auto listed = app::list();
            for (const auto& w : listed.warnings) print_warning(w.describe());
            return emit_result(*out, report::list_rendering(listed.envs), exit_ok);
          }};
}

} // namespace condacuda::cli
