#pragma once
// Reads an env from disk into an EnvSnapshot: the site-packages folders, every
// shared object (header and dynamic section only, through mmap), symlinks,
// pip dist-info records and conda-meta records.
#include <functional>
#include <optional>
#include <string>

#include "inventory/snapshot.hpp"
#include "sys/dist_info_cache.hpp"
#include "util/result.hpp"

namespace condacuda::sys {

// Scans `prefix`. Skips what is never part of an env's own libraries: pkgs/
// and envs/ of a root prefix, conda-meta/, include/, share/, __pycache__ and
// .git folders. Fails only when the prefix cannot be read at all; problems
// with single files become snapshot warnings. With `dist_info`, the wheels'
// METADATA and RECORD files unchanged since a run that read them are not read
// again.
// `on_file`, when given, is told of each shared object as soon as it is
// scanned (its absolute path, prefix + "/" + path, and what the scan made of
// it), so that work on it can start while the scan goes on.
using ScannedFileHandler = std::function<void(const std::string& absolute_path, const inventory::ScannedFile& file)>;
Result<inventory::EnvSnapshot> scan_env(const std::string& prefix, DistInfoCache* dist_info = nullptr,
                                        const ScannedFileHandler& on_file = {});

// The env's interpreter (bin/python3, else bin/python) as the real path of an
// ELF executable, if it has one.
std::optional<std::string> env_python(const std::string& prefix);

// How to start it so that it finds the env: by its path in the env (a venv's
// python finds its site-packages through the pyvenv.cfg beside the path it was
// started as), bin/python3 else bin/python; nullopt when the env has none.
std::optional<std::string> env_python_command(const std::string& prefix);

} // namespace condacuda::sys
