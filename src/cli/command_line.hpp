#pragma once

namespace condacuda::cli {

// Parses the command line, runs one command, returns the process exit status.
int run(int argc, char** argv);

} // namespace condacuda::cli
