#include "check/performance.hpp"

#include <algorithm>

namespace condacuda::check {

std::optional<double> flops_per_clock_per_sm(Precision p, int cc_major, int cc_minor) {
  int cc = cc_major * 10 + cc_minor;
  switch (p) {
  case Precision::bf16_tensor:
    if (cc == 80) return 2048.0;
    if (cc == 90) return 4096.0;
    if (cc == 100) return 8192.0;
    return std::nullopt;
  case Precision::tf32_tensor:
    if (cc == 80) return 1024.0;
    if (cc == 90) return 2048.0;
    if (cc == 100) return 4096.0;
    return std::nullopt;
  case Precision::fp32:
    if (cc == 70 || cc == 75 || cc == 80) return 128.0;
    if (cc == 86 || cc == 87 || cc == 89 || cc == 90 || cc == 100 || cc == 120) return 256.0;
    return std::nullopt;
  }
  return std::nullopt;
}

std::optional<double> peak_tflops(Precision p, const DeviceFacts& d) {
  auto rate = flops_per_clock_per_sm(p, d.cc_major, d.cc_minor);
  if (!rate || d.sms <= 0 || d.clock_khz <= 0) return std::nullopt;
  return *rate * d.sms * (d.clock_khz * 1e3) / 1e12;
}

std::optional<double> peak_bandwidth_gbs(const DeviceFacts& d) {
  if (d.memory_clock_khz <= 0 || d.bus_width_bits <= 0) return std::nullopt;
  return 2.0 * (d.memory_clock_khz * 1e3) * (d.bus_width_bits / 8.0) / 1e9;
}

double tflops(double flops, double ms) { return ms > 0 ? flops / (ms * 1e-3) / 1e12 : 0; }
double gbs(double bytes, double ms) { return ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0; }

std::optional<double> fraction(double measured, std::optional<double> reference) {
  if (!reference || *reference <= 0) return std::nullopt;
  return measured / *reference;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  std::size_t mid = values.size() / 2;
  return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

} // namespace condacuda::check
