#include "app/doctor.hpp"

#include "doctor/contexts.hpp"
#include "repair/activation.hpp"

namespace condacuda::app {

Result<doctor::DoctorReport> doctor(const DoctorOptions& options) {
  sys::DiskFileView& files = sys::process_file_view();
  auto inputs = doctor_inputs(options.env, options.ld_library_path, files);
  if (!inputs) return inputs.error();
  auto not_activated = [&] {
    return doctor::not_activated_inputs(
        *inputs, repair::not_activated_value(inputs->base_ld_library_path, inputs->active_hook_entries));
  };
  if (options.context == doctor::LaunchContext::not_activated) {
    auto report = doctor::run_doctor(not_activated(), files);
    doctor::mark_not_activated(report);
    return report;
  }
  const bool both = !options.context && doctor::contexts_differ(*inputs);
  std::optional<doctor::DoctorInputs> other;
  if (both) other = not_activated();
  auto report = doctor::run_doctor(std::move(*inputs), files);
  if (other) doctor::add_not_activated(report, doctor::run_doctor(std::move(*other), files));
  return report;
}

} // namespace condacuda::app
