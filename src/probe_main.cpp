// condacuda-probe --request JSON: the GPU child of `condacuda check` and of
// `doctor --gpu auto|visible` (check/protocol.hpp), a program of its own
// because it dlopens the driver and the env's libraries, which the static
// condacuda cannot; in the portable build it needs glibc 2.28 at most
// (docs/portable.md). It runs in the environment the parent computed.
//   condacuda-probe --version      its version
//   condacuda-probe --self-test    proves its start-up on this machine's glibc:
//                                  constructors ran once, an exception is
//                                  caught, dlopen and dlsym work
#include <cmath>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <stdexcept>
#include <string>

#include "check/protocol.hpp"
#include "probe/probe.hpp"

namespace {

int constructed = 0;
[[maybe_unused]] const bool constructor_ran = [] { return ++constructed == 1; }();

// Each part of the start-up the glibc floor replaces (src/probe/glibc_floor.c):
// __libc_start_main's constructors, the unwinder's _dl_find_object, dlopen.
int self_test() {
  bool caught = false;
  try {
    throw std::runtime_error("unwound");
  } catch (const std::runtime_error& e) {
    caught = std::string(e.what()) == "unwound";
  }
  void* libm = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);
  auto* cosine = libm ? reinterpret_cast<double (*)(double)>(dlsym(libm, "cos")) : nullptr;
  bool loaded = cosine && cosine(0.0) == 1.0;
  std::printf("constructors: %s\nexceptions: %s\ndlopen: %s\n", constructed == 1 ? "ran once" : "wrong",
              caught ? "caught" : "lost", loaded ? "libm.so.6 cos(0) = 1" : dlerror());
  return constructed == 1 && caught && loaded ? 0 : 1;
}

int usage() {
  std::fprintf(stderr, "usage: condacuda-probe --request JSON | --self-test | --version\n"
                       "(the GPU child of `condacuda check`; not meant to be run by hand)\n");
  return 2;
}

} // namespace

int main(int argc, char** argv) {
  using namespace condacuda;
  if (argc == 2 && std::strcmp(argv[1], "--version") == 0) {
    std::printf("condacuda-probe %s\n", CONDACUDA_VERSION);
    return 0;
  }
  if (argc == 2 && std::strcmp(argv[1], "--self-test") == 0) return self_test();
  if (argc != 3 || std::strcmp(argv[1], "--request") != 0) return usage();
  auto parsed = check::request_from_json(argv[2]);
  if (!parsed) {
    std::fprintf(stderr, "condacuda-probe: %s\n", parsed.error().describe().c_str());
    return 2;
  }
  return probe::run_probe_on_stdout(*parsed);
}
