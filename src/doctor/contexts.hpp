#pragma once
// Launch contexts: an env is used activated (a shell that ran `conda
// activate`: its condacuda hook put the env's folders first) and not
// activated (a Jupyter kernel, cron, srun, an IDE, a systemd unit: the
// launcher's LD_LIBRARY_PATH as it is, no hook). Doctor judges every root in
// both; a failure only without activation is a warning whose fix is
// `condacuda repair --pin` (repair/plan.hpp), unless that context is asked
// for alone. Pure.
#include <optional>
#include <string>
#include <vector>

#include "doctor/doctor.hpp"

namespace condacuda::doctor {

// The inputs of the not-activated context: `ld_library_path` (the caller's
// value without what the env's hook added in this shell,
// launch::not_activated_value), and no hook.
DoctorInputs not_activated_inputs(const DoctorInputs& activated, const std::optional<std::string>& ld_library_path);

// Whether the two contexts can differ: the env has a hook, or it is active here.
bool contexts_differ(const DoctorInputs& activated);

// Records in `report` (the activated context) each root's verdict without
// activation (`not_activated`, the same roots in the same order), and adds the
// warning finding `not-activated` for the roots that load only activated.
void add_not_activated(DoctorReport& report, const DoctorReport& not_activated);

// `folders-before-hook` (warning): this shell put `in_front` before the env's
// hook entries after activation (e.g. `module load`), so every process it
// starts searches them first; doctor judges that order.
// Its step: `activate` the env at `prefix` again (after the modules).
Finding folders_before_hook_finding(const std::vector<std::string>& in_front, const std::string& prefix);

// A report of the not-activated context alone: its failing roots also get the
// error finding `not-activated`, whose fix names `condacuda repair --pin`.
void mark_not_activated(DoctorReport& not_activated);

} // namespace condacuda::doctor
