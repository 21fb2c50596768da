#pragma once
// Which glibc a machine has, read from its files: the model is of the system's
// ld.so, not of the C library condacuda itself runs on (none at all in the
// static, portable build: docs/portable.md).
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace condacuda::loader {

// "2.31" from the real name of the dynamic loader before glibc 2.34
// ("ld-2.31.so"); nullopt for any other name ("ld-linux-x86-64.so.2").
std::optional<std::string> glibc_release_from_loader_name(std::string_view file_name);

// "2.36" from libc.so.6's banner, the text `/lib/x86_64-linux-gnu/libc.so.6`
// prints when run ("GNU C Library (Debian GLIBC 2.36-9) stable release
// version 2.36."; csu/version.c); nullopt when the bytes hold none.
std::optional<std::string> glibc_release_from_libc(std::span<const std::byte> libc);

// The minor number of "2.31" (31); nullopt unless the text is "2.N...".
std::optional<int> glibc_minor_of(std::string_view release);

// The releases whose rules the model has (docs/loader-model.md, "Per glibc
// version"); a newer machine gets the newest rules.
inline constexpr int oldest_modelled_glibc_minor = 28;
inline constexpr int newest_modelled_glibc_minor = 41;

} // namespace condacuda::loader
