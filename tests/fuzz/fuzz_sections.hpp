#pragma once
// The structured fuzz targets (kernelspec, fleet documents, framework
// metadata) take one input holding several texts: the generator
// (tests/fuzz/gen_hostile.py) joins them with the ASCII record separator
// 0x1e, so a byte mutation can also merge, split or empty them.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace condacuda::fuzz {

inline constexpr char section_separator = '\x1e';

// The input's sections; at least `at_least` (missing ones are empty).
inline std::vector<std::string> sections(const std::uint8_t* data, std::size_t size, std::size_t at_least) {
  std::vector<std::string> out;
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  while (true) {
    const std::size_t cut = rest.find(section_separator);
    out.emplace_back(rest.substr(0, cut));
    if (cut == std::string_view::npos) break;
    rest.remove_prefix(cut + 1);
  }
  while (out.size() < at_least) out.emplace_back();
  return out;
}

// A promise of the code under test: when it breaks, the target says which
// (file, line, the condition) and traps, and the replay driver keeps the input.
inline void promise_broken(const char* where, const char* condition) {
  std::fprintf(stderr, "fuzz target: promise broken at %s: %s\n", where, condition);
  __builtin_trap();
}
#define CONDACUDA_FUZZ_STR2(x) #x
#define CONDACUDA_FUZZ_STR(x) CONDACUDA_FUZZ_STR2(x)
#define FUZZ_CHECK(condition) \
  ((condition) ? (void)0 : ::condacuda::fuzz::promise_broken(__FILE__ ":" CONDACUDA_FUZZ_STR(__LINE__), #condition))

} // namespace condacuda::fuzz
