#include "util/sha256.hpp"

#include <algorithm>
#include <cstring>

#include "util/sha256_blocks.hpp"

namespace condacuda::util {

namespace {

// FIPS 180-4 §5.3.3: the first 32 bits of the fractional parts of the square
// roots of the first 8 primes.
constexpr std::array<std::uint32_t, 8> k_initial{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                                 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

} // namespace

Sha256::Sha256() { reset(); }

void Sha256::reset() {
  state_ = k_initial;
  buffered_ = 0;
  total_bytes_ = 0;
}

void Sha256::update(std::span<const std::byte> data) {
  const auto* p = reinterpret_cast<const std::uint8_t*>(data.data());
  std::size_t n = data.size();
  total_bytes_ += n;
  if (buffered_ > 0) {
    std::size_t take = std::min(n, buffer_.size() - buffered_);
    std::memcpy(buffer_.data() + buffered_, p, take);
    buffered_ += take;
    p += take;
    n -= take;
    if (buffered_ < buffer_.size()) return;
    sha256_blocks::compress(state_, buffer_.data(), 1);
    buffered_ = 0;
  }
  const std::size_t blocks = n / 64;
  sha256_blocks::compress(state_, p, blocks);
  p += 64 * blocks;
  n -= 64 * blocks;
  if (n > 0) std::memcpy(buffer_.data(), p, n);
  buffered_ = n;
}

void Sha256::update(std::string_view data) { update(std::as_bytes(std::span(data.data(), data.size()))); }

Sha256Digest Sha256::finish() {
  // §5.1.1: append 0x80, zeros to 56 mod 64, then the bit length big-endian.
  std::uint64_t bit_length = total_bytes_ * 8;
  std::array<std::uint8_t, 72> pad{};
  pad[0] = 0x80;
  std::size_t pad_len = (buffered_ < 56 ? 56 : 120) - buffered_;
  for (std::size_t i = 0; i < 8; ++i)
    pad[pad_len + i] = static_cast<std::uint8_t>(bit_length >> (56 - 8 * i));
  update(std::as_bytes(std::span(pad.data(), pad_len + 8)));
  Sha256Digest out{};
  for (std::size_t i = 0; i < 8; ++i)
    for (std::size_t j = 0; j < 4; ++j)
      out[4 * i + j] = static_cast<std::uint8_t>(state_[i] >> (24 - 8 * j));
  reset();
  return out;
}

Sha256Digest sha256(std::string_view data) {
  Sha256 h;
  h.update(data);
  return h.finish();
}

std::string to_hex(std::span<const std::uint8_t> bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * bytes.size());
  for (auto b : bytes) {
    out += digits[b >> 4];
    out += digits[b & 0x0f];
  }
  return out;
}

std::string to_urlsafe_base64_nopad(std::span<const std::uint8_t> bytes) {
  static constexpr char alphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  out.reserve((bytes.size() * 4 + 2) / 3);
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    std::uint32_t v = (std::uint32_t{bytes[i]} << 16) | (std::uint32_t{bytes[i + 1]} << 8) |
                      std::uint32_t{bytes[i + 2]};
    for (int shift = 18; shift >= 0; shift -= 6) out += alphabet[(v >> shift) & 0x3f];
  }
  std::size_t rest = bytes.size() - i; // 0, 1 or 2 bytes: 0, 2 or 3 characters
  if (rest > 0) {
    std::uint32_t v = std::uint32_t{bytes[i]} << 16;
    if (rest == 2) v |= std::uint32_t{bytes[i + 1]} << 8;
    out += alphabet[(v >> 18) & 0x3f];
    out += alphabet[(v >> 12) & 0x3f];
    if (rest == 2) out += alphabet[(v >> 6) & 0x3f];
  }
  return out;
}

std::string to_record_hash(const Sha256Digest& digest) {
  return "sha256=" + to_urlsafe_base64_nopad(digest);
}

} // namespace condacuda::util
