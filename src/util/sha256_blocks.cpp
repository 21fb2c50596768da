#include "util/sha256_blocks.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CONDACUDA_SHA_X86 1
#include <cpuid.h>
#include <immintrin.h>
#endif

namespace condacuda::util::sha256_blocks {

namespace {

// FIPS 180-4 §4.2.2: the first 32 bits of the fractional parts of the cube
// roots of the first 64 primes.
alignas(16) constexpr std::array<std::uint32_t, 64> k_round{
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

constexpr std::uint32_t rotr(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

// §4.1.2 functions.
constexpr std::uint32_t ch(std::uint32_t x, std::uint32_t y, std::uint32_t z) { return (x & y) ^ (~x & z); }
constexpr std::uint32_t maj(std::uint32_t x, std::uint32_t y, std::uint32_t z) { return (x & y) ^ (x & z) ^ (y & z); }
constexpr std::uint32_t big_sigma0(std::uint32_t x) { return rotr(x, 2) ^ rotr(x, 13) ^ rotr(x, 22); }
constexpr std::uint32_t big_sigma1(std::uint32_t x) { return rotr(x, 6) ^ rotr(x, 11) ^ rotr(x, 25); }
constexpr std::uint32_t small_sigma0(std::uint32_t x) { return rotr(x, 7) ^ rotr(x, 18) ^ (x >> 3); }
constexpr std::uint32_t small_sigma1(std::uint32_t x) { return rotr(x, 17) ^ rotr(x, 19) ^ (x >> 10); }

std::uint32_t load_be32(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | std::uint32_t{p[3]};
}

// §6.2.2: one 512-bit block.
void portable_block(State& state, const std::uint8_t* block) {
  std::array<std::uint32_t, 64> w{};
  for (std::size_t t = 0; t < 16; ++t) w[t] = load_be32(block + 4 * t);
  for (std::size_t t = 16; t < 64; ++t) w[t] = small_sigma1(w[t - 2]) + w[t - 7] + small_sigma0(w[t - 15]) + w[t - 16];
  auto [a, b, c, d, e, f, g, h] = state;
  for (std::size_t t = 0; t < 64; ++t) {
    std::uint32_t t1 = h + big_sigma1(e) + ch(e, f, g) + k_round[t] + w[t];
    std::uint32_t t2 = big_sigma0(a) + maj(a, b, c);
    h = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  state[0] += a;
  state[1] += b;
  state[2] += c;
  state[3] += d;
  state[4] += e;
  state[5] += f;
  state[6] += g;
  state[7] += h;
}

#ifdef CONDACUDA_SHA_X86
// The SHA extensions keep the state as two vectors, ABEF and CDGH (a in the
// highest dword). SHA256RNDS2 does two rounds from the sum W[t] + K[t] of each
// in the low half of its third operand and returns the new ABEF; the old ABEF
// is then CDGH. SHA256MSG1 and SHA256MSG2 compute the schedule W[16..63] four
// words at a time, with W[t-7..t-4] added in between (§6.2.2 step 1).
__attribute__((target("sha,sse4.1,ssse3"))) void sha_ni_blocks(State& state, const std::uint8_t* blocks,
                                                                 std::size_t count) {
  const __m128i byte_swap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL); // big-endian words
  __m128i dcba = _mm_loadu_si128(reinterpret_cast<const __m128i*>(&state[0]));
  __m128i hgfe = _mm_loadu_si128(reinterpret_cast<const __m128i*>(&state[4]));
  const __m128i badc = _mm_shuffle_epi32(dcba, 0xB1);
  const __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
  __m128i abef = _mm_alignr_epi8(badc, efgh, 8);
  __m128i cdgh = _mm_blend_epi16(efgh, badc, 0xF0);

  for (; count > 0; --count, blocks += 64) {
    const __m128i abef_start = abef, cdgh_start = cdgh;
    __m128i w[4]; // W[4g..4g+3] of the last four groups, by g mod 4
    for (int i = 0; i < 4; ++i)
      w[i] = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(blocks + 16 * i)), byte_swap);
#pragma GCC unroll 16
    for (int g = 0; g < 16; ++g) {
      __m128i& words = w[g & 3];
      if (g >= 4) {
        const __m128i& last = w[(g - 1) & 3];   // W[4g-4..4g-1]
        const __m128i& before = w[(g - 2) & 3]; // W[4g-8..4g-5]
        words = _mm_sha256msg1_epu32(words, w[(g - 3) & 3]);
        words = _mm_add_epi32(words, _mm_alignr_epi8(last, before, 4)); // + W[4g-7..4g-4]
        words = _mm_sha256msg2_epu32(words, last);
      }
      const __m128i sum = _mm_add_epi32(words, _mm_load_si128(reinterpret_cast<const __m128i*>(&k_round[4 * g])));
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, sum);                        // rounds 4g, 4g+1
      abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(sum, 0x0E)); // rounds 4g+2, 4g+3
    }
    abef = _mm_add_epi32(abef, abef_start);
    cdgh = _mm_add_epi32(cdgh, cdgh_start);
  }

  const __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
  const __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
  dcba = _mm_blend_epi16(feba, dchg, 0xF0);
  hgfe = _mm_alignr_epi8(dchg, feba, 8);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(&state[0]), dcba);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(&state[4]), hgfe);
}

bool cpu_has_sha_ni() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return false;
  const bool ssse3 = (ecx & (1u << 9)) != 0, sse41 = (ecx & (1u << 19)) != 0;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
  const bool sha = (ebx & (1u << 29)) != 0;
  return ssse3 && sse41 && sha;
}
#endif

} // namespace

void portable(State& state, const std::uint8_t* blocks, std::size_t count) {
  for (; count > 0; --count, blocks += 64) portable_block(state, blocks);
}

bool accelerated_available() {
#ifdef CONDACUDA_SHA_X86
  static const bool available = cpu_has_sha_ni();
  return available;
#else
  return false;
#endif
}

void accelerated(State& state, const std::uint8_t* blocks, std::size_t count) {
#ifdef CONDACUDA_SHA_X86
  sha_ni_blocks(state, blocks, count);
#else
  portable(state, blocks, count);
#endif
}

void compress(State& state, const std::uint8_t* blocks, std::size_t count) {
  if (accelerated_available()) accelerated(state, blocks, count);
  else portable(state, blocks, count);
}

} // namespace condacuda::util::sha256_blocks
