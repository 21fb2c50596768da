#pragma once
// Read-only memory maps: the way ELF files are read, so that only the pages the
// parser touches (headers, dynamic tables) are ever read from disk.
#include <string>

#include "elf/elf_object.hpp"
#include "util/result.hpp"

namespace condacuda::sys {

// Maps the whole file read-only. Errors carry the path and strerror text; when
// errno_out is given it receives the errno (callers that mimic ld.so need it).
Result<elf::FileBytes> map_file(const std::string& path, int* errno_out = nullptr);

// Reads a whole (small) text file.
Result<std::string> read_text_file(const std::string& path);

} // namespace condacuda::sys
