#pragma once
// Rates and the fraction of the device's peak (docs/gpu-check.md, step 5). Pure.
#include <optional>
#include <vector>

namespace condacuda::check {

// What the peak of a device depends on (cuDeviceGetAttribute: CLOCK_RATE=13
// and MEMORY_CLOCK_RATE=36 in kHz, MULTIPROCESSOR_COUNT=16,
// GLOBAL_MEMORY_BUS_WIDTH=37 in bits, COMPUTE_CAPABILITY_MAJOR=75 / MINOR=76).
struct DeviceFacts {
  int cc_major = 0, cc_minor = 0;
  int sms = 0;
  int clock_khz = 0;
  int memory_clock_khz = 0;
  int bus_width_bits = 0;
};

enum class Precision { bf16_tensor, tf32_tensor, fp32 };

// Dense FLOPs per clock per SM from NVIDIA's architecture whitepapers (A100:
// 1024 BF16 FMA/clk/SM; H100 twice that; Blackwell B200 twice again; FP32:
// 64 cores/SM on sm_80, 128 from sm_86 on). nullopt where the rate is not
// known or differs between products of one architecture (sm_86/89 tensor
// rates differ between GeForce and data-centre parts).
std::optional<double> flops_per_clock_per_sm(Precision p, int cc_major, int cc_minor);

// SMs x clock x rate. The clock is the highest the driver reports, so this is
// an upper bound: for an H200 (132 SMs, 1980 MHz) it gives 1070 TFLOP/s BF16
// where NVIDIA's 989 assumes 1830 MHz.
std::optional<double> peak_tflops(Precision p, const DeviceFacts& d);

// Memory bus peak: 2 transfers per clock x bus width (H100 SXM: 2619 MHz x
// 5120 bit -> 3.35 TB/s, NVIDIA's figure).
std::optional<double> peak_bandwidth_gbs(const DeviceFacts& d);

double tflops(double flops, double ms);   // 0 when ms <= 0
double gbs(double bytes, double ms);      // 10^9 bytes per second; 0 when ms <= 0
// measured / reference; nullopt when the reference is missing or not positive.
std::optional<double> fraction(double measured, std::optional<double> reference);

// The median (mean of the two middle values for an even count); 0 when empty.
double median(std::vector<double> values);

} // namespace condacuda::check
