#include "check/model.hpp"

#include <array>
#include <utility>

namespace condacuda::check {

namespace {
constexpr std::array<std::pair<Component, const char*>, 6> component_names{{
    {Component::driver, "driver"},
    {Component::cudart, "cudart"},
    {Component::cublaslt, "cublaslt"},
    {Component::cublas, "cublas"},
    {Component::cusparse, "cusparse"},
    {Component::nvjitlink, "nvjitlink"},
}};
constexpr std::array<std::pair<StepStatus, const char*>, 4> status_names{{
    {StepStatus::pass, "pass"},
    {StepStatus::warn, "warn"},
    {StepStatus::fail, "fail"},
    {StepStatus::skipped, "skipped"},
}};
} // namespace

const char* to_string(Component c) {
  for (const auto& [value, name] : component_names)
    if (value == c) return name;
  return "driver";
}

std::optional<Component> component_from_string(const std::string& s) {
  for (const auto& [value, name] : component_names)
    if (s == name) return value;
  return std::nullopt;
}

const char* to_string(StepStatus s) {
  for (const auto& [value, name] : status_names)
    if (value == s) return name;
  return "fail";
}

std::optional<StepStatus> step_status_from_string(const std::string& s) {
  for (const auto& [value, name] : status_names)
    if (s == name) return value;
  return std::nullopt;
}

const LibraryLoad* ProbeResult::library(Component c) const {
  for (const auto& l : libraries)
    if (l.component == c) return &l;
  return nullptr;
}

const StepResult* ProbeResult::step(const std::string& name) const {
  for (const auto& s : steps)
    if (s.name == name) return &s;
  return nullptr;
}

} // namespace condacuda::check
