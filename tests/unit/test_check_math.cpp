// The host-side math of `condacuda check`: the hash generator shared with the
// PTX, bf16 rounding, the fp64 reference on sampled entries, tolerances,
// rates and fractions of peak, sizes.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <set>

#include "check/hash.hpp"
#include "check/performance.hpp"
#include "check/ptx.hpp"
#include "check/reference.hpp"
#include "check/sizes.hpp"

using namespace condacuda::check;

TEST_CASE("mix32 is lowbias32 and the element values are exact 24-bit values in [-1, 1)") {
  // Reference values of lowbias32 (hash-prospector), computed in Python.
  CHECK(mix32(0) == 0u);
  CHECK(mix32(1) == 0x688990c0u);
  CHECK(mix32(0xffffffffu) == 0x6768824au);
  std::uint32_t key = stream_key(1);
  for (std::uint32_t i = 0; i < 100000; ++i) {
    float v = element_value(key, i);
    REQUIRE(v >= -1.0f);
    REQUIRE(v < 1.0f);
    // A multiple of 2^-23: exact, so the device computes the same bits.
    double scaled = (static_cast<double>(v) + 1.0) * 8388608.0;
    REQUIRE(scaled == std::floor(scaled));
  }
  CHECK(element_value(key, 7) == unit_value(element_hash(key, 7)));
  CHECK(unit_value(0) == -1.0f);
  CHECK(unit_value(0xffffffffu) == 1.0f - 0x1p-23f);
}

TEST_CASE("streams with different keys are not shifted copies") {
  std::uint32_t a = stream_key(1), b = stream_key(2);
  int equal_shifted = 0;
  for (std::uint32_t i = 0; i < 1000; ++i)
    if (element_hash(a, i + 1) == element_hash(b, i)) ++equal_shifted;
  CHECK(equal_shifted == 0);
  std::set<std::uint32_t> distinct;
  for (std::uint32_t i = 0; i < 4096; ++i) distinct.insert(element_hash(a, i));
  CHECK(distinct.size() == 4096); // mix32 is a bijection, applied twice with a constant in between
}

TEST_CASE("bf16 rounding is round-to-nearest-even on the bits") {
  CHECK(bf16_bits(1.0f) == 0x3f80);
  CHECK(bf16_bits(-2.0f) == 0xc000);
  // 1 + 2^-8 is exactly half way between 1 and 1 + 2^-7: ties to even (1.0).
  CHECK(bf16_bits(1.0f + 0x1p-8f) == 0x3f80);
  // 1 + 3*2^-8 is half way between 1 + 2^-7 (odd) and 1 + 2^-6: ties to even (up).
  CHECK(bf16_bits(1.0f + 3 * 0x1p-8f) == 0x3f82);
  // Just above half way rounds up.
  CHECK(bf16_bits(std::bit_cast<float>(0x3f808001u)) == 0x3f81);
  CHECK(bf16_bits(std::bit_cast<float>(0x3f807fffu)) == 0x3f80);
  CHECK(bf16_value(0x3f81) == 1.0f + 0x1p-7f);
  for (std::uint32_t i = 0; i < 10000; ++i) {
    float v = element_value(stream_key(9), i);
    float r = element_value_bf16(stream_key(9), i);
    REQUIRE(std::fabs(r - v) <= std::fabs(v) * 0x1p-8f + 1e-30f); // half an ulp of bf16
  }
}

TEST_CASE("the PTX module names every kernel, targets nvJitLink's lowest architecture at ISA 7.0, ends with NUL") {
  CHECK(probe_ptx(12).find(".target sm_50\n") != std::string::npos); // CUDA 12 still links for sm_50 ... sm_72
  CHECK(probe_ptx(13).find(".target sm_75\n") != std::string::npos); // CUDA 13 dropped them
  CHECK(probe_ptx(14).find(".target sm_75\n") != std::string::npos);
  const std::string ptx = probe_ptx(12);
  REQUIRE(!ptx.empty());
  CHECK(ptx.back() == '\0');
  CHECK(ptx.find('\0') == ptx.size() - 1);
  CHECK(ptx.find(".version 7.0") != std::string_view::npos);
  for (const char* k : all_kernels) CHECK(ptx.find(std::string(".visible .entry ") + k + "(") != std::string_view::npos);
  // The hash constants of mix32 appear in the PTX.
  CHECK(ptx.find("0x7feb352d") != std::string_view::npos);
  CHECK(ptx.find("0x846ca68b") != std::string_view::npos);
  CHECK(jit_arch_option(9, 0) == "-arch=sm_90");
  CHECK(jit_arch_option(10, 0) == "-arch=sm_100");
}

TEST_CASE("the GEMM reference is the fp64 product of the generated inputs") {
  GemmProblem p{5, 4, 3, stream_key(1), stream_key(2), Storage::fp32};
  for (std::uint32_t i = 0; i < p.m; ++i)
    for (std::uint32_t j = 0; j < p.n; ++j) {
      double sum = 0, mag = 0;
      for (std::uint32_t l = 0; l < p.k; ++l) {
        double a = element_value(p.key_a, i + l * p.m), b = element_value(p.key_b, l + j * p.k);
        sum += a * b;
        mag += std::fabs(a * b);
      }
      Reference r = gemm_reference(p, i, j);
      CHECK(r.value == sum);
      CHECK(r.magnitude == mag);
    }
  p.storage = Storage::bf16;
  Reference r = gemm_reference(p, 1, 2);
  double expected = 0;
  for (std::uint32_t l = 0; l < 3; ++l)
    expected += double(element_value_bf16(p.key_a, 1 + l * 5)) * element_value_bf16(p.key_b, l + 2 * 3);
  CHECK(r.value == expected);
}

TEST_CASE("the banded CSR matrix: per_row sorted columns inside [0, rows)") {
  BandedCsr a{100, 16, stream_key(5)};
  CHECK(banded_nnz(a) == 1600);
  CHECK(banded_start(a, 0) == 0);
  CHECK(banded_start(a, 8) == 0);
  CHECK(banded_start(a, 9) == 1);
  CHECK(banded_start(a, 50) == 42);
  CHECK(banded_start(a, 99) == 84); // rows - per_row: the last column is 99
  BandedCsr exact{16, 16, 1};
  for (std::uint32_t r = 0; r < 16; ++r) CHECK(banded_start(exact, r) == 0);
  // SpMV reference by hand for one row.
  std::uint32_t kx = stream_key(3);
  Reference r = spmv_reference(a, kx, 50);
  double sum = 0;
  for (std::uint32_t j = 0; j < 16; ++j) sum += double(element_value(a.key_vals, 50 * 16 + j)) * element_value(kx, 42 + j);
  CHECK(r.value == sum);
  // SpMM column c reads B's column c (column-major, ld = rows).
  Reference m = spmm_reference(a, kx, 50, 3);
  double sum3 = 0;
  for (std::uint32_t j = 0; j < 16; ++j)
    sum3 += double(element_value(a.key_vals, 50 * 16 + j)) * element_value(kx, 42 + j + 3 * 100);
  CHECK(m.value == sum3);
  CHECK(spmm_reference(a, kx, 50, 0).value == r.value);
}

TEST_CASE("saxpy's expected value rounds once (fma)") {
  float x = element_value(stream_key(3), 10), y = element_value(stream_key(4), 10);
  CHECK(saxpy_expected(stream_key(3), stream_key(4), 2.5f, 10) == std::fma(2.5f, x, y));
}

TEST_CASE("sample positions: first, last, in range, deterministic") {
  auto p = sample_positions(1000, 64, 7);
  REQUIRE(p.size() == 64);
  CHECK(p[0] == 0);
  CHECK(p[1] == 999);
  for (auto v : p) CHECK(v < 1000);
  CHECK(p == sample_positions(1000, 64, 7));
  CHECK(p != sample_positions(1000, 64, 8));
  CHECK(sample_positions(0, 10, 1).empty());
  CHECK(sample_positions(5, 1, 1) == std::vector<std::uint64_t>{0});
  // Sizes beyond 2^32 are reached.
  auto big = sample_positions(std::uint64_t{1} << 40, 200, 3);
  bool high = false;
  for (auto v : big) high |= v > (std::uint64_t{1} << 33);
  CHECK(high);
}

TEST_CASE("validation: error relative to sum|a*b|, tolerance, NaN and Inf fail") {
  std::vector<Reference> refs{{1.0, 2.0}, {-3.0, 4.0}, {0.0, 0.0}};
  std::vector<float> got{1.0f, -3.0f, 0.0f};
  auto v = validate(got, refs, 1e-5);
  CHECK(v.ok);
  CHECK(v.max_error == 0);
  CHECK(v.checked == 3);
  got[1] = -3.0f + 4e-5f; // error 4e-5 / 4 = 1e-5 (plus fp32 rounding)
  v = validate(got, refs, 2e-5);
  CHECK(v.ok);
  CHECK(v.max_error == doctest::Approx(1e-5).epsilon(0.01));
  CHECK(v.worst == 1);
  CHECK_FALSE(validate(got, refs, 5e-6).ok);
  got[2] = std::numeric_limits<float>::quiet_NaN();
  v = validate(got, refs, 1.0);
  CHECK_FALSE(v.ok);
  CHECK_FALSE(v.finite);
  got[2] = std::numeric_limits<float>::infinity();
  CHECK_FALSE(validate(got, refs, 1.0).ok);
  CHECK(relative_error(0.5, {0.0, 0.0}) == 0.5); // no magnitude: absolute
  // Sizes must agree.
  CHECK_FALSE(validate(std::vector<float>{1.0f}, refs, 1.0).ok);
  CHECK(tolerance::spmv == 1e-5);
}

namespace {
// fp32 -> the nearest value with `kept` explicit mantissa bits (ties to even),
// as a tensor core reads TF32 (10 bits) or as bf16 holds it (7 bits).
float round_mantissa(float v, int kept, bool truncate = false) {
  const int dropped = 23 - kept;
  std::uint32_t u = std::bit_cast<std::uint32_t>(v);
  const std::uint32_t half = truncate ? 0 : (1u << (dropped - 1)) - 1 + ((u >> dropped) & 1u);
  u = (u + half) & ~((1u << dropped) - 1);
  return std::bit_cast<float>(u);
}

// tf32_truncated: a tensor core fed fp32 bits, which ignores the low 13.
enum class Simulated { fp32_accumulate, tf32_inputs, tf32_truncated, bf16_inputs };

// What a GEMM computing in `how` gives for the sampled entries of an n x n x n
// problem of the check's inputs, validated against the fp64 reference.
Validation simulate_gemm(std::uint32_t n, Simulated how, double tol) {
  GemmProblem p{n, n, n, stream_key(11), stream_key(12), Storage::fp32};
  std::vector<float> got;
  std::vector<Reference> refs;
  for (auto pos : sample_positions(std::uint64_t{n} * n, 32, 7)) {
    const auto row = static_cast<std::uint32_t>(pos % n), col = static_cast<std::uint32_t>(pos / n);
    refs.push_back(gemm_reference(p, row, col));
    double exact_products = 0;
    float fp32 = 0;
    for (std::uint32_t l = 0; l < n; ++l) {
      float a = element_value(p.key_a, row + l * n), b = element_value(p.key_b, l + col * n);
      if (how == Simulated::fp32_accumulate) fp32 = std::fma(a, b, fp32);
      const int kept = how == Simulated::bf16_inputs ? 7 : 10;
      const bool truncate = how == Simulated::tf32_truncated;
      exact_products += double(round_mantissa(a, kept, truncate)) * double(round_mantissa(b, kept, truncate));
    }
    got.push_back(how == Simulated::fp32_accumulate ? fp32 : static_cast<float>(exact_products));
  }
  return validate(got, refs, tol);
}
} // namespace

TEST_CASE("GEMM tolerances from K and the unit roundoff: each precision passes its own, a cheaper one is caught") {
  for (std::uint32_t n : {512u, 1024u, 2048u, 4096u}) {
    INFO("n = " << n);
    const double tf32 = tolerance::gemm_tf32(n), pedantic = tolerance::gemm_fp32_pedantic(n);
    CHECK(tolerance::gemm_bf16(n) == pedantic); // bf16 products are exact: only fp32 accumulation errs
    // TF32, rounded to nearest or truncated, passes its tolerance; bf16-rounded
    // inputs (a "TF32" step that ran in bf16) fail it; 1.2x at worst each way.
    auto as_tf32 = simulate_gemm(n, Simulated::tf32_inputs, tf32);
    CHECK(as_tf32.ok);
    CHECK(as_tf32.max_error * 4 <= tf32);
    auto truncated = simulate_gemm(n, Simulated::tf32_truncated, tf32);
    CHECK(truncated.ok);
    CHECK(truncated.max_error * 1.2 <= tf32);
    auto as_bf16 = simulate_gemm(n, Simulated::bf16_inputs, tf32);
    CHECK_FALSE(as_bf16.ok);
    CHECK(as_bf16.max_error >= 1.2 * tf32);
    // FP32 PEDANTIC passes by far; a silent TF32 downgrade fails by a factor 4 or more.
    auto as_fp32 = simulate_gemm(n, Simulated::fp32_accumulate, pedantic);
    CHECK(as_fp32.ok);
    CHECK(as_fp32.max_error * 10 <= pedantic);
    auto downgraded = simulate_gemm(n, Simulated::tf32_inputs, pedantic);
    CHECK_FALSE(downgraded.ok);
    CHECK(downgraded.max_error >= 4 * pedantic);
  }
  CHECK(tolerance::gemm_tf32(1024) == doctest::Approx(6.0 * 0x1p-11 * (4.0 / 3.0) / 32));
}

TEST_CASE("exact validation compares bits and counts mismatches") {
  std::vector<float> a{1.0f, 0.0f, 2.0f}, b{1.0f, -0.0f, 2.5f};
  auto v = validate_exact(a, b);
  CHECK_FALSE(v.ok);
  CHECK(v.max_error == 2); // -0 differs from +0, 2 from 2.5
  CHECK(v.worst == 1);
  CHECK(validate_exact(a, a).ok);
}

TEST_CASE("peaks: per-SM rates times SMs and the clock the driver reports") {
  DeviceFacts h200{9, 0, 132, 1980000, 3201000, 6144};
  CHECK(*peak_tflops(Precision::bf16_tensor, h200) == doctest::Approx(1070.5).epsilon(0.001));
  CHECK(*peak_tflops(Precision::tf32_tensor, h200) == doctest::Approx(535.2).epsilon(0.001));
  CHECK(*peak_tflops(Precision::fp32, h200) == doctest::Approx(66.9).epsilon(0.001)); // "FP32 ≈ 67"
  // At NVIDIA's 1830 MHz the BF16 figure is the datasheet's 989.
  DeviceFacts at_spec = h200;
  at_spec.clock_khz = 1830000;
  CHECK(*peak_tflops(Precision::bf16_tensor, at_spec) == doctest::Approx(989.4).epsilon(0.001));
  DeviceFacts h100{9, 0, 132, 1980000, 2619000, 5120};
  CHECK(*peak_bandwidth_gbs(h100) == doctest::Approx(3352).epsilon(0.001)); // NVIDIA: 3.35 TB/s
  DeviceFacts a100{8, 0, 108, 1410000, 1215000, 5120};
  CHECK(*peak_tflops(Precision::bf16_tensor, a100) == doctest::Approx(311.9).epsilon(0.001)); // NVIDIA: 312
  CHECK(*peak_tflops(Precision::fp32, a100) == doctest::Approx(19.5).epsilon(0.001));
  DeviceFacts unknown{8, 6, 84, 1700000, 0, 0};
  CHECK_FALSE(peak_tflops(Precision::bf16_tensor, unknown));
  CHECK(peak_tflops(Precision::fp32, unknown));
  CHECK_FALSE(peak_bandwidth_gbs(unknown));
}

TEST_CASE("rates, fractions and medians") {
  CHECK(tflops(2.0 * 8192.0 * 8192.0 * 8192.0, 1.4) == doctest::Approx(785.4).epsilon(0.001));
  CHECK(gbs(2.0 * 1073741824.0, 0.5) == doctest::Approx(4295.0).epsilon(0.001));
  CHECK(tflops(1, 0) == 0);
  CHECK(*fraction(785.4, 1070.5) == doctest::Approx(0.7337).epsilon(0.001));
  CHECK_FALSE(fraction(1, std::nullopt));
  CHECK_FALSE(fraction(1, 0.0));
  CHECK(median({3, 1, 2}) == 2);
  CHECK(median({4, 1, 3, 2}) == 2.5);
  CHECK(median({}) == 0);
}

TEST_CASE("sizes: the reference doc's full sizes, smaller quick ones, a JSON round trip, limits") {
  CheckSizes full = full_sizes();
  CHECK(full.gemm_bf16 == 8192);
  CHECK(full.gemm_tf32 == 4096);
  CHECK(full.gemm_fp32 == 4096);
  CHECK(full.spmv_rows == 8u << 20);
  CHECK(full.nnz_per_row == 16);
  CHECK(full.copy_bytes == 1ull << 30);
  CHECK(full.valid().ok());
  CheckSizes quick = quick_sizes();
  CHECK(quick.gemm_bf16 < full.gemm_bf16);
  CHECK(quick.copy_bytes < full.copy_bytes);
  CHECK(quick.valid().ok());
  auto back = sizes_from_json(sizes_json(quick));
  REQUIRE(back.ok());
  CHECK(sizes_json(*back) == sizes_json(quick));
  CheckSizes too_big = full;
  too_big.gemm_bf16 = 65536; // 2^32 elements
  CHECK_FALSE(too_big.valid().ok());
  CheckSizes thin = full;
  thin.spmv_rows = 8;
  CHECK_FALSE(thin.valid().ok());
  auto j = sizes_json(full);
  j.set("reps", -1);
  CHECK_FALSE(sizes_from_json(j).ok());
}
