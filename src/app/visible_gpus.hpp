#pragma once
// This machine's GPUs for `doctor --gpu auto`: the model names the driver
// lists in /proc/driver/nvidia/gpus/*/information (no CUDA call at all), else
// the driver's own list through the check's probe child (`condacuda __probe`
// with devices_only: cuInit and attribute queries, no context), for
// sandboxes and containers (gVisor) that have the driver but not its /proc
// files.
#include <vector>

#include "doctor/gpu_coverage.hpp"
#include "util/result.hpp"

namespace condacuda::app {

// bad_input when neither lists a GPU, saying why the driver did not.
Result<std::vector<doctor::Device>> visible_gpus(const doctor::GpuTable& table);

} // namespace condacuda::app
