#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "util/sha256.hpp"
#include "util/sha256_blocks.hpp"

using condacuda::util::Sha256;
using condacuda::util::sha256;
using condacuda::util::to_hex;
using condacuda::util::to_record_hash;
using condacuda::util::to_urlsafe_base64_nopad;

namespace {

// The same bytes the Python oracle below generates: (7*i + 3) mod 256.
std::string pattern(std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>((7 * i + 3) % 256);
  return s;
}

std::string run_command(const std::string& command) {
  std::string out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return out;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) out.append(buf, n);
  ::pclose(pipe);
  return out;
}

} // namespace

TEST_CASE("sha256 FIPS 180-4 test vectors") {
  CHECK(to_hex(sha256("")) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(to_hex(sha256("abc")) ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(to_hex(sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")) ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(to_hex(sha256("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmno"
                      "ijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu")) ==
        "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  CHECK(to_hex(sha256(std::string(1000000, 'a'))) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("sha256 streaming in odd chunk sizes equals one-shot") {
  // Lengths around the padding boundaries (55/56/64 bytes) and several blocks.
  for (std::size_t length : {0u, 1u, 55u, 56u, 63u, 64u, 65u, 119u, 120u, 1000u, 4099u}) {
    std::string data = pattern(length);
    auto expected = sha256(data);
    for (std::size_t chunk : {1u, 3u, 7u, 63u, 64u, 65u, 127u}) {
      Sha256 h;
      for (std::size_t at = 0; at < data.size(); at += chunk)
        h.update(std::string_view(data).substr(at, chunk));
      CAPTURE(length);
      CAPTURE(chunk);
      CHECK(h.finish() == expected);
    }
  }
  // finish() resets: the object hashes the next message from scratch.
  Sha256 h;
  h.update("garbage");
  (void)h.finish();
  h.update("abc");
  CHECK(to_hex(h.finish()) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  h.update("garbage");
  h.reset();
  CHECK(h.finish() == sha256(""));
}

TEST_CASE("sha256: the SHA extensions and the portable code compute the same blocks") {
  namespace blocks = condacuda::util::sha256_blocks;
  if (!blocks::accelerated_available()) {
    MESSAGE("this CPU has no SHA extensions: only the portable code runs here");
    return;
  }
  std::mt19937 rng(20261130);
  for (std::size_t count : {1u, 2u, 3u, 17u, 1000u}) {
    std::vector<std::uint8_t> data(64 * count);
    for (auto& b : data) b = static_cast<std::uint8_t>(rng());
    for (int trial = 0; trial < 3; ++trial) {
      blocks::State portable{}, accelerated{};
      for (auto& word : portable) word = static_cast<std::uint32_t>(rng());
      accelerated = portable;
      blocks::portable(portable, data.data(), count);
      blocks::accelerated(accelerated, data.data(), count);
      CAPTURE(count);
      CHECK(portable == accelerated);
    }
  }
}

TEST_CASE("urlsafe base64 without padding (RFC 4648 section 10 vectors)") {
  auto b64 = [](std::string_view s) {
    std::vector<std::uint8_t> bytes(s.begin(), s.end());
    return to_urlsafe_base64_nopad(bytes);
  };
  CHECK(b64("") == "");
  CHECK(b64("f") == "Zg");
  CHECK(b64("fo") == "Zm8");
  CHECK(b64("foo") == "Zm9v");
  CHECK(b64("foob") == "Zm9vYg");
  CHECK(b64("fooba") == "Zm9vYmE");
  CHECK(b64("foobar") == "Zm9vYmFy");
  CHECK(b64("\xfb\xff") == "-_8"); // "+/8=" in the standard alphabet
  CHECK(to_record_hash(sha256("")) == "sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU");
}

TEST_CASE("RECORD hash form agrees with Python's hashlib + base64") {
  if (std::system("command -v python3 >/dev/null 2>&1") != 0) {
    MESSAGE("python3 not found: skipping the Python comparison");
    return;
  }
  const std::vector<std::size_t> lengths{0, 1, 2, 3, 55, 56, 64, 1000, 70000};
  std::string list;
  for (auto n : lengths) list += std::to_string(n) + ",";
  std::string script =
      "import hashlib,base64\n"
      "for n in [" + list + "]:\n"
      "    d=bytes((7*i+3)%256 for i in range(n))\n"
      "    h=hashlib.sha256(d).digest()\n"
      "    print('sha256='+base64.urlsafe_b64encode(h).rstrip(b'=').decode(), hashlib.sha256(d).hexdigest())\n";
  std::string out = run_command("python3 -c \"" + script + "\"");
  std::string expected;
  for (auto n : lengths) {
    auto digest = sha256(pattern(n));
    expected += to_record_hash(digest) + " " + to_hex(digest) + "\n";
  }
  CHECK(out == expected);
}
