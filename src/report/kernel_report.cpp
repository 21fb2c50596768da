#include "report/kernel_report.hpp"

#include "report/document.hpp"
#include "report/programs_report.hpp"

namespace condacuda::report {

using util::Json;

Rendering kernel_install_rendering(const app::KernelInstallOutcome& o) {
  auto text = [&o](const Style& style) {
    std::string out = style.bold(o.status == app::KernelInstallStatus::would_install ? "would write" :
                                 o.status == app::KernelInstallStatus::unchanged     ? "already there"
                                                                                     : "wrote") +
                      " " + o.kernel_dir + "/kernel.json\n" + o.text;
    out += kernels_text(o.kernels, style);
    for (const auto& n : o.notes) out += "\n" + style.bold("note") + ": " + n + "\n";
    return out;
  };
  auto json = [&o] {
    Json j = Json::object();
    j.set("schema", "condacuda.kernel-install/1");
    j.set("env", env_json(o.env));
    j.set("kernel_dir", o.kernel_dir);
    j.set("kernelspec", o.text);
    j.set("written", o.status == app::KernelInstallStatus::installed);
    j.set("kernels", kernels_json(o.kernels));
    Json notes = Json::array();
    for (const auto& n : o.notes) notes.push(n);
    j.set("notes", notes);
    return j;
  };
  return {text, false, json, app::to_string(o.status), {}};
}

} // namespace condacuda::report
