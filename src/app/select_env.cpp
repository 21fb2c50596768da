#include "app/select_env.hpp"

#include "sys/env_discovery.hpp"
#include "util/strings.hpp"

namespace condacuda::app {

EnvChoice select_env(const EnvRequest& request) {
  auto context = sys::load_discovery_context();
  EnvChoice choice;
  choice.warnings = context.warnings;
  env::Selection selection;
  if (!request.name.empty()) selection.name = request.name;
  if (!request.prefix.empty()) selection.prefix = request.prefix;
  if (!request.env.empty()) {
    if (selection.name || selection.prefix) {
      choice.error = make_error(ErrorCode::bad_input, "give the env once: as ENV, -n or -p");
      return choice;
    }
    const std::string& e = request.env;
    if (e.find('/') != std::string::npos || e == "." || e == "..") selection.prefix = e;
    else selection.name = e;
  }
  auto chosen = sys::select_env(selection, context);
  if (chosen) {
    choice.env = std::move(*chosen);
  } else {
    choice.error = chosen.error();
    choice.found = sys::list_envs(context);
    if (selection.name && !selection.prefix) {
      std::vector<std::string> names;
      for (const auto& e : *choice.found) names.push_back(e.name);
      if (auto near = util::nearest(*selection.name, names)) choice.error->message += "; did you mean '" + *near + "'?";
    }
  }
  return choice;
}

} // namespace condacuda::app
