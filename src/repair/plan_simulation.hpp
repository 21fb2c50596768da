#pragma once
// What every step of repair's plan simulates from: the env's prefix as the
// loader model names it, and the bare env (no LD_LIBRARY_PATH, no hook). Each
// step adds what it plans (links, folders, pins) to that.
#include <string>

#include "doctor/doctor.hpp"

namespace condacuda::repair {

// `p` lexically normal, as the loader model names the files it opens.
std::string normal(const std::string& p);
// The env's prefix, normal, without a trailing slash.
std::string prefix_of(const doctor::DoctorInputs& in);
// The inputs of a simulation of the bare env: no LD_LIBRARY_PATH, no hook.
doctor::DoctorInputs bare(const doctor::DoctorInputs& in);

} // namespace condacuda::repair
