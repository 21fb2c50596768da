#pragma once
// This node's GPUs for `doctor --gpu auto|visible` and its node facts: what
// the site declares (CONDACUDA_GPU, sys/machine.hpp), else the model names
// the driver lists in /proc/driver/nvidia/gpus/*/information (no CUDA call at
// all), else, when asked, the driver's own list through the check's probe
// child (`condacuda-probe` with devices_only: cuInit and attribute queries,
// no context), for sandboxes and containers (gVisor) that have the driver but
// not its /proc files.
#include <functional>
#include <string>
#include <vector>

#include "doctor/gpu_coverage.hpp"
#include "doctor/node_facts.hpp"
#include "util/result.hpp"

namespace condacuda::app {

struct VisibleGpus {
  std::vector<doctor::Device> devices;
  doctor::GpuSource source = doctor::GpuSource::none;
  std::string why_none; // when devices is empty: why the driver listed none
};

// The GPU table, asked for only when a GPU is to be named: parsing it is most
// of what a doctor without GPUs would otherwise spend on them.
using GpuTableSource = std::function<Result<const doctor::GpuTable*>()>;

// `ask_driver`: start the probe child when nothing cheaper lists a GPU.
// Errors: a CONDACUDA_GPU or model name the table cannot read (bad_input), the table's.
Result<VisibleGpus> visible_gpus(const GpuTableSource& table, bool ask_driver);

} // namespace condacuda::app
