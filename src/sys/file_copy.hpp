#pragma once
// Reading and copying large files (the libraries `repair --pin` changes) in
// bounded pieces: memory use does not grow with the file, and holes (SEEK_HOLE)
// are neither read nor written, so a sparse file stays sparse.
#include <cstdint>
#include <string>

#include "elf/pin.hpp"
#include "util/result.hpp"

namespace condacuda::sys {

// The bytes a piece of reading holds at most.
inline constexpr std::size_t stream_piece = std::size_t{1} << 20;

// SHA-256 of the open regular file `fd` and of it with `edit` made
// (elf::RetagHasher), read from offset 0 with pread in pieces; holes are fed
// as zeros without being read. `shown` is the path errors name.
Result<elf::RetagHasher::Digests> hash_file(int fd, const elf::TagEdit& edit, const std::string& shown);

// Copies the first `size` bytes of the open regular file `from` into the
// empty file `to` at the same offsets: copy_file_range for each data extent
// (a reflink where the file system shares extents; copied in the kernel
// elsewhere), a read/write loop of stream_piece bytes where it cannot (another
// file system) that writes no block of zeros; `to` ends `size` bytes long,
// holes where `from` has them. Errors: `from` shorter than `size` (changed
// while copied), a read or write that fails.
Status copy_file_sparse(int from, int to, std::uint64_t size, const std::string& shown);

} // namespace condacuda::sys
