#include "app/doctor.hpp"

namespace condacuda::app {

Result<doctor::DoctorReport> doctor(const DoctorOptions& options) {
  sys::DiskFileView& files = sys::process_file_view();
  auto inputs = doctor_inputs(options.env, options.ld_library_path, files);
  if (!inputs) return inputs.error();
  return doctor::run_doctor(std::move(*inputs), files);
}

} // namespace condacuda::app
