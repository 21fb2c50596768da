// A standalone driver for a libFuzzer target (LLVMFuzzerTestOneInput), so the
// fuzz targets run in every build and in CTest without libFuzzer:
//   fuzz_elf_replay [--mutations N] [--seed S] [--hang-seconds T] FILE|DIR...
// Each file (each regular file of a DIR, sorted) is passed as is, then cut at
// a spread of lengths, then damaged N times with a seeded generator (bit
// flips, random bytes, boundary 32/64-bit values), so a failure reproduces
// from the same seed. Every input is its own exact-size heap block, so ASan
// reports a read one byte past the end.
//
// An input that crashes (a sanitizer's report, a trap of the target's own
// checks, a signal) or runs past --hang-seconds (default 20: a loop that
// does not end) is written to crash-<N> in $CONDACUDA_FUZZ_ARTIFACTS (else
// the working directory) and named on stderr before the driver dies, so it
// can be replayed alone: `fuzz_X_replay crash-<N>`.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sanitizer/common_interface_defs.h>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

std::uint64_t executions = 0;
unsigned hang_seconds = 20;
// The input being run, for the handlers below (async-signal-safe: set before
// the run, read with write(2) only).
const std::uint8_t* current_data = nullptr;
std::size_t current_size = 0;
char artifact_path[4096] = "";

void say(const char* text) { (void)!write(2, text, std::strlen(text)); }

// Writes the current input to artifact_path; safe in a signal handler.
void save_current_input() {
  if (!current_data) return;
  const int fd = open(artifact_path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) return;
  for (std::size_t done = 0; done < current_size;) {
    const ssize_t n = write(fd, current_data + done, current_size - done);
    if (n <= 0) break;
    done += static_cast<std::size_t>(n);
  }
  close(fd);
  say("fuzz replay: the failing input is ");
  say(artifact_path);
  say("\n");
}

void on_fatal_signal(int signal_number) {
  say(signal_number == SIGALRM ? "fuzz replay: an input ran past --hang-seconds (a hang)\n" : "fuzz replay: a fatal signal\n");
  save_current_input();
  std::signal(signal_number, SIG_DFL);
  if (signal_number == SIGALRM) _exit(3);
  std::raise(signal_number);
}

void install_handlers() {
  const char* dir = std::getenv("CONDACUDA_FUZZ_ARTIFACTS");
  std::snprintf(artifact_path, sizeof artifact_path, "%s/crash-%d", dir && *dir ? dir : ".", static_cast<int>(getpid()));
  // SIGSEGV, SIGBUS and SIGFPE stay ASan's: its report (and a stack
  // overflow's, on its own stack) comes first, then the death callback.
  for (int s : {SIGALRM, SIGILL, SIGABRT, SIGTRAP}) std::signal(s, on_fatal_signal);
  // ASan and UBSan end the process with _exit after their report: no signal.
  __sanitizer_set_death_callback(save_current_input);
}

void run_one(const std::vector<std::uint8_t>& input) {
  auto copy = std::make_unique<std::uint8_t[]>(input.size() + (input.empty() ? 1 : 0));
  if (!input.empty()) std::memcpy(copy.get(), input.data(), input.size());
  current_data = copy.get();
  current_size = input.size();
  alarm(hang_seconds);
  LLVMFuzzerTestOneInput(copy.get(), input.size());
  alarm(0);
  current_data = nullptr;
  ++executions;
}

void put(std::vector<std::uint8_t>& b, std::size_t at, std::uint64_t v, std::size_t n) {
  if (at + n <= b.size()) std::memcpy(b.data() + at, &v, n);
}

void mutate(std::vector<std::uint8_t>& b, std::mt19937_64& rng) {
  if (b.empty()) return;
  const std::uint64_t size = b.size();
  const std::uint64_t interesting[] = {0, 1, 0x7f, 0x80, 0xff, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff,
                                       size, size - 1, size + 1, ~0ull, 1ull << 32, 1ull << 63};
  // Half the edits land in the first 4 KiB, where the headers and tables are.
  std::uint64_t span = (rng() & 1) ? std::min<std::uint64_t>(size, 4096) : size;
  int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits; ++e) {
    std::size_t at = static_cast<std::size_t>(rng() % span);
    switch (rng() % 4) {
    case 0: b[at] = static_cast<std::uint8_t>(b[at] ^ (1u << (rng() % 8))); break;
    case 1: b[at] = static_cast<std::uint8_t>(rng()); break;
    case 2: put(b, at & ~std::size_t{3}, interesting[rng() % std::size(interesting)], 4); break;
    default: put(b, at & ~std::size_t{7}, interesting[rng() % std::size(interesting)], 8); break;
    }
  }
}

// FNV-1a: the same seed per file name on every build (std::hash is not).
std::uint64_t name_hash(const std::string& s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

std::vector<std::uint8_t> read_all(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

} // namespace

int main(int argc, char** argv) {
  unsigned long mutations = 0;
  std::uint64_t seed = 1;
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--mutations" && i + 1 < argc) mutations = std::strtoul(argv[++i], nullptr, 10);
    else if (a == "--seed" && i + 1 < argc) seed = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--hang-seconds" && i + 1 < argc) hang_seconds = static_cast<unsigned>(std::strtoul(argv[++i], nullptr, 10));
    else if (std::filesystem::is_directory(a)) {
      std::vector<std::filesystem::path> inside;
      for (const auto& e : std::filesystem::directory_iterator(a))
        if (e.is_regular_file()) inside.push_back(e.path());
      std::sort(inside.begin(), inside.end());
      files.insert(files.end(), inside.begin(), inside.end());
    } else files.emplace_back(a);
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: %s [--mutations N] [--seed S] [--hang-seconds T] FILE|DIR...\n", argv[0]);
    return 2;
  }
  install_handlers();
  run_one({});
  for (const auto& path : files) {
    std::vector<std::uint8_t> input = read_all(path);
    std::fprintf(stderr, "replay %s (%zu bytes)\n", path.c_str(), input.size());
    run_one(input);
    // Cuts: every length up to 128, then 64 lengths spread over the file.
    for (std::size_t n = 0; n < input.size() && n <= 128; ++n)
      run_one(std::vector<std::uint8_t>(input.begin(), input.begin() + static_cast<std::ptrdiff_t>(n)));
    for (std::size_t k = 1; k < 64 && input.size() > 128; ++k) {
      std::size_t n = input.size() * k / 64;
      run_one(std::vector<std::uint8_t>(input.begin(), input.begin() + static_cast<std::ptrdiff_t>(n)));
    }
    std::mt19937_64 rng(seed ^ name_hash(path.filename().string()));
    for (unsigned long m = 0; m < mutations; ++m) {
      std::vector<std::uint8_t> b = input;
      mutate(b, rng);
      run_one(b);
    }
  }
  std::printf("%llu executions over %zu files, no failure\n", static_cast<unsigned long long>(executions), files.size());
  return 0;
}
