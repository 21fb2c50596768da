#pragma once
// The GPU code of a file on disk: mapped read-only, its fatbin headers read
// (elf/fatbin.hpp: the payloads are never touched, so only their pages' worth
// of headers is read from disk).
#include <optional>
#include <string>

#include "inventory/inventory.hpp"

namespace condacuda::sys {

// nullopt when the file cannot be mapped, is not ELF64, or has no .nv_fatbin.
std::optional<inventory::GpuCode> read_gpu_code(const std::string& path);

// Fills gpu_code of every library and consumer of `inv` (files under `prefix`).
void add_gpu_code(inventory::Inventory& inv, const std::string& prefix);

} // namespace condacuda::sys
