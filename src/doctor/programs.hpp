#pragma once
// The verdict is the program: each framework of the env imported as its
// recipe says (frameworks/program.hpp) in this report's launch. A root that
// fails opened alone but loads in every program that opens it is covered:
// its findings become warnings that name the process that would still fail
// ("a process that opens libcusparse.so.12 without importing torch first").
// A program that fails where no root finding explains it (a preload that
// took an older copy from the user site) gets its own `import-fails`
// finding, with the fix that can change it (docs/frameworks.md). Pure.
#include "doctor/doctor.hpp"

namespace condacuda::doctor {

void judge_programs(DoctorReport& report, loader::Simulator& sim, const loader::Process& host, loader::FileSystemView& files);

// doctor --imports with a framework among the items ("torch,demotorch._C"):
// each item in order in one process, a framework as its recipe runs
// (what it loaded stays, as in Python), a file by dlopen; ALONE is the item
// in a fresh process. A step that fails only after earlier ones is an
// import-order finding.
void run_program_sequence(DoctorReport& report, loader::Simulator& sim, const loader::Process& host,
                          loader::FileSystemView& files);

// The program's lines for people: "import torch (2.6.0)".
std::string program_label(const frameworks::ProgramResult& result);

// CUDA libraries under nvidia/*/lib of sys.path folders outside the env
// whose wheel's version differs from the env's copy of the same soname:
// one `outside-wheel` warning each (docs/frameworks.md, "sys.path").
std::vector<Finding> outside_wheel_findings(const DoctorInputs& inputs);

} // namespace condacuda::doctor
