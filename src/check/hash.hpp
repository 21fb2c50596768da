#pragma once
// The data of the GPU check: a counter-based hash, so element i of an input
// is a pure function of (key, i). The device fills its buffers with it (the
// PTX in check/ptx.cpp implements exactly these integer steps) and the host
// recomputes any sampled element for the fp64 reference, without copying
// gigabytes back (docs/gpu-check.md, "A design that fits", 2 and 4).
#include <bit>
#include <cstdint>

namespace condacuda::check {

// lowbias32 (Chris Wellons' hash-prospector): a bijective 32-bit mixer with
// low bias, two multiplies and three xor-shifts, cheap in PTX.
constexpr std::uint32_t mix32(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

// The key of an input stream (matrix A, B, x, ...): passed to the kernels as
// is, so that the device never needs the seed.
constexpr std::uint32_t stream_key(std::uint32_t seed) { return mix32(seed ^ 0x9e3779b9U); }

// Element `index` of the stream: mixed twice so that streams with different
// keys are not shifted copies of each other.
constexpr std::uint32_t element_hash(std::uint32_t key, std::uint32_t index) { return mix32(mix32(index) + key); }

// A value in [-1, 1) with a full 24-bit mantissa (zeros and short mantissas
// make GEMMs run faster than real data: docs/gpu-check.md, "H200 reference
// figures"). Every step is exact in fp32 (h >> 8 < 2^24; scaling by 2^-23 and
// subtracting 1 lose no bits), so host and device agree bit for bit.
constexpr float unit_value(std::uint32_t hash) {
  return static_cast<float>(hash >> 8) * 0x1p-23f - 1.0f;
}

constexpr float element_value(std::uint32_t key, std::uint32_t index) {
  return unit_value(element_hash(key, index));
}

// fp32 -> bf16 bits, round to nearest even (what cvt.rn.bf16.f32 does on
// sm_80+; done with integer steps so the PTX can target sm_75). The check's
// values are finite, so there is no NaN case.
constexpr std::uint16_t bf16_bits(float value) {
  std::uint32_t u = std::bit_cast<std::uint32_t>(value);
  std::uint32_t bias = 0x7fffU + ((u >> 16) & 1U);
  return static_cast<std::uint16_t>((u + bias) >> 16);
}

constexpr float bf16_value(std::uint16_t bits) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

// The value a bf16 input holds: the element rounded to bf16.
constexpr float element_value_bf16(std::uint32_t key, std::uint32_t index) {
  return bf16_value(bf16_bits(element_value(key, index)));
}

} // namespace condacuda::check
