// condacuda __probe --request JSON: the hidden child of `condacuda check`
// (check/protocol.hpp). It runs in the environment the parent computed.
#include "check/protocol.hpp"
#include "cli/commands.hpp"
#include "probe/probe.hpp"

namespace condacuda::cli {

Command add_probe(CLI::App& root) {
  auto request = std::make_shared<std::string>();
  CLI::App* sub = root.add_subcommand("__probe", "Internal: the child process of `condacuda check`");
  sub->group(""); // hidden
  sub->add_option("--request", *request, "The probe request (JSON, condacuda.probe-request/1)")->required();
  return {sub, [request] {
            auto parsed = check::request_from_json(*request);
            if (!parsed) {
              print_error(parsed.error().describe());
              return exit_code_for(parsed.error());
            }
            return probe::run_probe_on_stdout(*parsed);
          }};
}

} // namespace condacuda::cli
