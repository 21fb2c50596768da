#pragma once
// The SHA-256 compression function (FIPS 180-4 §6.2.2) over whole 64-byte
// blocks, two ways: portable C++, and the x86 SHA extensions (SHA256RNDS2,
// SHA256MSG1, SHA256MSG2), several times faster where the CPU has them. The
// choice is made once, at the first call, from CPUID. `condacuda lock` hashes
// every CUDA library of an env (gigabytes) on its first run; this is its
// inner loop. Pure; no I/O.
#include <array>
#include <cstddef>
#include <cstdint>

namespace condacuda::util::sha256_blocks {

using State = std::array<std::uint32_t, 8>; // a..h

// Hashes `count` blocks into `state` with the fastest way this CPU has.
void compress(State& state, const std::uint8_t* blocks, std::size_t count);

// Each way, for the tests that compare them.
void portable(State& state, const std::uint8_t* blocks, std::size_t count);
// Whether this CPU has the SHA extensions (with SSSE3 and SSE4.1); always false off x86.
bool accelerated_available();
// Only where accelerated_available(): the SHA extensions.
void accelerated(State& state, const std::uint8_t* blocks, std::size_t count);

} // namespace condacuda::util::sha256_blocks
