#pragma once
// Activation hooks: the conda activate.d/deactivate.d scripts that put an env's CUDA
// library folders first on LD_LIBRARY_PATH, rendered from templates/hooks/*.in.
// Pure: data in, strings out; writing the files is the apply step's job.
//
// What the scripts guarantee (proven by tests/shell/test_hooks_*.sh in bash, zsh, dash,
// ksh, fish and tcsh):
//   - activation prepends $CONDA_PREFIX/<folder> for each folder, in order, resolved at
//     run time (envs get moved and cloned); sourcing it again changes nothing; it never
//     adds an empty entry; the sh version starts no process and is safe under `set -eu`.
//   - deactivation restores LD_LIBRARY_PATH as it was (unset stays unset, empty stays
//     empty) while keeping entries that something else added meanwhile, whatever the
//     order of deactivation scripts (pixi does not reverse it).
//   - stacked envs, and clones of one env, keep separate state: each activated env has a
//     record in the exported CONDACUDA_HOOK_STATE, found by its prefix (format and a
//     pure model of both scripts: launch/hook_model.hpp).
//   - the sh scripts are fast: bash parses a sourced file at every activation, so the
//     common case (first activation; deactivation of the only active env) is one short
//     command that ends the sourcing with `return`, and the entries are written with as
//     little text as possible (see posix_entries in hooks.cpp; tests/bench/bench_hooks.sh
//     measures them beside a one-line `export LD_LIBRARY_PATH=...` script).
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"
#include "util/template.hpp"

namespace condacuda::repair {

enum class Shell { posix, fish, csh };

struct HookSpec {
  // Relative to the env prefix; first = first on LD_LIBRARY_PATH,
  // e.g. "lib/python3.11/site-packages/nvidia/cusparse/lib".
  std::vector<std::string> folders;
  std::string tool_version; // written into a header comment
};

struct RenderedFile {
  std::string relative_path; // relative to the prefix, e.g. "etc/conda/activate.d/condacuda.sh"
  std::string content;
};

// The folders whose change since the repair makes the activation hook say that the
// repair may be stale (one line on stderr, builtins only; CONDACUDA_QUIET=1 hides it):
// for a wheel folder <sp>/nvidia/<package>/lib the namespace folder <sp>/nvidia (a
// wheel installed, upgraded or removed changes it), for CUDA 13's shared
// <sp>/nvidia/cu13/lib and any other folder the folder itself. Each once, in order.
// The hook compares their mtime with that of the env's etc/condacuda, which every
// repair sets last.
std::vector<std::string> watched_folders(const std::vector<std::string>& folders);

// Every shell condacuda writes hooks for, in a fixed order.
std::span<const Shell> all_shells();

// The file extension conda looks for: "sh", "fish", "csh".
std::string_view hook_extension(Shell shell);

// The files render_hooks writes for these shells, activate.d before deactivate.d for
// each shell, in the order given (for `undo` and the manifest).
std::vector<std::string> hook_relative_paths(const std::vector<Shell>& shells);

// Renders the activate.d and deactivate.d scripts for each shell (duplicates ignored),
// in the order of hook_relative_paths. Errors:
//   internal     no folders; an empty, absolute or NUL-holding folder, or one with a ".."
//                component; a tool_version with control characters; a missing template
//                or a template with an unknown placeholder.
//   unsupported  a folder containing ':', which LD_LIBRARY_PATH cannot represent, or an
//                ASCII FS, GS, RS or US, which separate the hooks' state.
Result<std::vector<RenderedFile>> render_hooks(const HookSpec& spec, const std::vector<Shell>& shells);

// One quoting function per shell: the result, written in a script of that shell, reads
// back as exactly s (any bytes but NUL). Always quoted, '' for the empty string.
//   posix: '...' with ' written '\''            (sh, bash, zsh, dash, ksh)
//   fish:  '...' with \ and ' backslash-escaped
//   csh:   '...' with ' written '\'', ! written '\!' (history expansion happens even
//          inside single quotes) and newline written \<newline>
std::string quote_posix(std::string_view s);
std::string quote_fish(std::string_view s);
std::string quote_csh(std::string_view s);
std::string quote_for(Shell shell, std::string_view s);

} // namespace condacuda::repair
