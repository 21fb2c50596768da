#pragma once
// `condacuda kernel install`'s result: the kernelspec written and its
// verdict per server launch (schema condacuda.kernel-install/1, docs/json.md).
#include "app/kernel_install.hpp"
#include "report/rendering.hpp"

namespace condacuda::report {

Rendering kernel_install_rendering(const app::KernelInstallOutcome& outcome);

} // namespace condacuda::report
