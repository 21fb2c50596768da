// Test-only front end to util/hostlist, for tests/e2e/test_hostlist_oracle.sh,
// which compares it with Slurm's scontrol:
//
//   condacuda_hostlist_cli hostlist LIST...        like `scontrol show hostlist LIST`
//   condacuda_hostlist_cli hostlistsorted LIST...  like `scontrol show hostlistsorted LIST`
//   condacuda_hostlist_cli hostnames LIST...       like `scontrol show hostnames LIST`
//
// One result per LIST, so that one run answers many: a line (hostlist,
// hostlistsorted), or one name per line and then an empty line (hostnames).
// An invalid LIST gives the result "(invalid)" and its error on stderr, as
// scontrol refuses it. Exit status: 0 all valid; 1 some invalid; 2 bad usage.
#include <iostream>
#include <string>
#include <string_view>

#include "util/hostlist.hpp"

namespace {

int usage() {
  std::cerr << "usage: condacuda_hostlist_cli hostlist|hostlistsorted|hostnames LIST...\n";
  return 2;
}

// Whether LIST is one scontrol reads: the compress functions keep an invalid
// entry as a name instead, so validity is expand's to say.
bool print_one(std::string_view mode, const std::string& list) {
  auto names = condacuda::util::expand_hostlist(list);
  if (!names) {
    std::cerr << names.error().message << "\n";
    std::cout << "(invalid)\n" << (mode == "hostnames" ? "\n" : "");
    return false;
  }
  if (mode == "hostlist")
    std::cout << condacuda::util::compress_hostlist({list}) << "\n";
  else if (mode == "hostlistsorted")
    std::cout << condacuda::util::compress_hostlist_sorted({list}) << "\n";
  else {
    for (const std::string& name : *names) std::cout << name << "\n";
    std::cout << "\n";
  }
  return true;
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 2) return usage();
  std::string_view mode = argv[1];
  if (mode != "hostlist" && mode != "hostlistsorted" && mode != "hostnames") return usage();
  bool all_valid = true;
  for (int i = 2; i < argc; ++i) all_valid = print_one(mode, argv[i]) && all_valid;
  return all_valid ? 0 : 1;
}
