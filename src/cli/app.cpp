#include "cli/app.hpp"

#include <CLI/CLI.hpp>

namespace condacuda::cli {

int run(int argc, char** argv) {
  CLI::App app{"condacuda: make the CUDA libraries of conda and pip environments load, and prove it"};
  app.require_subcommand(1);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  return 0;
}

} // namespace condacuda::cli
