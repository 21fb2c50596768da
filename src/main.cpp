#include "cli/app.hpp"

int main(int argc, char** argv) { return condacuda::cli::run(argc, argv); }
