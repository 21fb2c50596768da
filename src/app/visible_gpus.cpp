#include "app/visible_gpus.hpp"

#include "sys/shell_environment.hpp"

#include <cstdlib>

#include "app/share_dir.hpp"
#include "check/protocol.hpp"
#include "check/verdict.hpp"
#include "sys/child_process.hpp"
#include "sys/machine.hpp"
#include "sys/posix.hpp"
#include "util/strings.hpp"

namespace condacuda::app {

namespace {
constexpr double probe_timeout_s = 60; // cuInit on a cold GPU without persistence mode takes seconds

// Why the probe listed no device, in one phrase.
std::string why_none(const check::ProbeResult& probe, const sys::ChildRun& run) {
  if (!run.outcome.started) return "the probe did not start: " + run.outcome.spawn_error;
  if (run.outcome.timed_out || run.outcome.signal) return "the probe " + check::describe(run.outcome, probe_timeout_s);
  for (const auto& l : probe.libraries)
    if (l.component == check::Component::driver && !l.loaded) return "libcuda.so.1 does not load: " + l.error;
  if (const check::StepResult* s = probe.step("driver"); s && !s->error.empty()) return s->error;
  return "the driver lists no device";
}
} // namespace

namespace {
Result<std::vector<doctor::Device>> declared_gpus(const std::string& list, const doctor::GpuTable& table) {
  std::vector<doctor::Device> out;
  for (const auto& name : util::split(list, ",")) {
    auto d = doctor::parse_device(util::trim(name), table);
    if (!d) return make_error(ErrorCode::bad_input, "CONDACUDA_GPU: " + d.error().message);
    out.push_back(*d);
  }
  return out;
}

std::vector<doctor::Device> probed_gpus(const doctor::GpuTable& table, std::string& why) {
  check::ProbeRequest request;
  request.libraries = {{check::Component::driver, "libcuda.so.1"}};
  request.devices_only = true;
  sys::ChildRun run = sys::run_child({probe_executable(), {"--request", check::request_json(request).dump(-1)},
                                      sys::environment_with(sys::shell_environment().ld_library_path),
                                      probe_timeout_s});
  check::ProbeResult probe = check::fold_records(run.stdout_text);
  std::vector<doctor::Device> out;
  for (const auto& info : probe.devices) {
    // The table's name when it knows the model, else the compute capability the driver reports.
    auto named = doctor::parse_device(info.name, table);
    out.push_back(named && named->major == info.facts.cc_major && named->minor == info.facts.cc_minor
                      ? *named
                      : doctor::Device{info.name.empty() ? std::to_string(info.facts.cc_major) + "." +
                                                                std::to_string(info.facts.cc_minor)
                                                          : info.name,
                                       info.facts.cc_major, info.facts.cc_minor});
  }
  if (out.empty()) why = why_none(probe, run);
  return out;
}
} // namespace

Result<VisibleGpus> visible_gpus(const GpuTableSource& table_source, bool ask_driver) {
  VisibleGpus out;
  if (auto declared = sys::declared_node().gpus) {
    auto table = table_source();
    if (!table) return table.error();
    auto devices = declared_gpus(*declared, **table);
    if (!devices) return devices.error();
    return VisibleGpus{*devices, doctor::GpuSource::declared, ""};
  }
  for (const auto& m : sys::read_gpu_models()) {
    auto table = table_source();
    if (!table) return table.error();
    auto d = doctor::parse_device(m, **table);
    if (!d) return d.error();
    out.devices.push_back(*d);
  }
  if (!out.devices.empty()) {
    out.source = doctor::GpuSource::proc;
    return out;
  }
  out.why_none = "no /proc/driver/nvidia/gpus/*/information, no CONDACUDA_GPU";
  if (!ask_driver) return out;
  auto table = table_source();
  if (!table) return table.error();
  std::string why;
  out.devices = probed_gpus(**table, why);
  if (!out.devices.empty()) out.source = doctor::GpuSource::driver;
  else out.why_none += "; " + why;
  return out;
}

} // namespace condacuda::app
