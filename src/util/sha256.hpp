#pragma once
// SHA-256 (FIPS 180-4), streaming, plus the two digest spellings condacuda
// needs: lower-case hex (lockfiles) and pip RECORD's `sha256=<urlsafe base64,
// no padding>` (PEP 376 / the wheel spec's RECORD format). Pure; no I/O.
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace condacuda::util {

using Sha256Digest = std::array<std::uint8_t, 32>;

class Sha256 {
public:
  // A fresh hash (the FIPS 180-4 initial hash value H(0)).
  Sha256();

  // Back to the initial state, discarding anything hashed so far.
  void reset();

  // Hashes more message bytes; any chunking gives the same digest.
  void update(std::span<const std::byte> data);
  void update(std::string_view data);

  // Pads the message, returns its digest, and resets for the next message.
  Sha256Digest finish();

private:
  std::array<std::uint32_t, 8> state_{};
  std::array<std::uint8_t, 64> buffer_{};
  std::size_t buffered_ = 0;      // bytes in buffer_
  std::uint64_t total_bytes_ = 0; // message length so far
};

// The digest of data in one call.
Sha256Digest sha256(std::string_view data);

// 64 lower-case hex digits.
std::string to_hex(std::span<const std::uint8_t> bytes); // lowercase, two digits a byte

// RFC 4648 §5 base64 ("-" and "_" for "+" and "/") without "=" padding, as
// Python's base64.urlsafe_b64encode(...).rstrip(b"=").
std::string to_urlsafe_base64_nopad(std::span<const std::uint8_t> bytes);

// The hash field of a RECORD line: "sha256=" + to_urlsafe_base64_nopad(digest).
std::string to_record_hash(const Sha256Digest& digest);

} // namespace condacuda::util
