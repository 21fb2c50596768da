#include "repair/hooks.hpp"

#include "util/strings.hpp"

#include <algorithm>
#include <array>

#include "launch/hook_model.hpp"
#include "util/embedded.hpp"

namespace condacuda::repair {
using launch::hook_state_fs;
using launch::hook_state_gs;
using launch::hook_record_separator;
using launch::hook_field_separator;
using launch::is_hook_separator;
namespace {

constexpr std::array<Shell, 3> shells_in_order = {Shell::posix, Shell::fish, Shell::csh};

bool has_control_char(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte < 0x20 || byte == 0x7f;
  });
}

bool has_dot_dot_component(std::string_view folder) {
  std::size_t start = 0;
  while (start <= folder.size()) {
    std::size_t end = folder.find('/', start);
    if (end == std::string_view::npos) end = folder.size();
    if (folder.substr(start, end - start) == "..") return true;
    start = end + 1;
  }
  return false;
}

Status check_folder(std::string_view folder) {
  if (folder.empty()) return make_error(ErrorCode::internal, "hook folder is empty");
  if (folder.front() == '/')
    return make_error(ErrorCode::internal, "hook folder must be relative to the env prefix", std::string(folder));
  if (folder.find('\0') != std::string_view::npos)
    return make_error(ErrorCode::internal, "hook folder contains a NUL byte");
  if (has_dot_dot_component(folder))
    return make_error(ErrorCode::internal, "hook folder leaves the env prefix", std::string(folder));
  // The loader splits LD_LIBRARY_PATH on ':' and ';' and has no escape for
  // them (ld.so(8); glibc elf/dl-load.c, _dl_init_paths).
  if (folder.find_first_of(":;") != std::string_view::npos)
    return make_error(ErrorCode::unsupported, "a folder containing ':' or ';' cannot be put on LD_LIBRARY_PATH",
                      std::string(folder));
  // FS, GS, RS and US separate the hooks' state records and fields (launch/hook_model.hpp).
  if (std::any_of(folder.begin(), folder.end(), [](char c) { return is_hook_separator(c); }))
    return make_error(ErrorCode::unsupported,
                      "a folder containing an ASCII FS, GS, RS or US control character cannot be recorded by the hooks",
                      std::string(folder));
  return ok_status();
}

Status check_spec(const HookSpec& spec) {
  if (spec.folders.empty()) return make_error(ErrorCode::internal, "no folders to put on LD_LIBRARY_PATH");
  for (const auto& folder : spec.folders)
    if (auto status = check_folder(folder); !status) return status;
  if (has_control_char(spec.tool_version))
    return make_error(ErrorCode::internal, "tool version contains a control character");
  return ok_status();
}

// A folder as part of an unquoted sh word: as is when every byte is one that means
// nothing to the shell there, else single-quoted.
std::string posix_word_part(std::string_view folder) {
  const bool plain = std::all_of(folder.begin(), folder.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           std::string_view("_./+,@%=-").find(c) != std::string_view::npos;
  });
  return plain ? std::string(folder) : quote_posix(folder);
}

// The longest leading directory ("a/b/") all folders share when each goes on past it.
std::string shared_directory(const std::vector<std::string>& folders) {
  if (folders.size() < 2) return {};
  std::string_view common = folders.front();
  for (const auto& folder : folders) {
    std::size_t n = 0;
    while (n < common.size() && n < folder.size() && common[n] == folder[n]) ++n;
    common = common.substr(0, n);
  }
  const std::size_t slash = common.rfind('/');
  if (slash == std::string_view::npos) return {};
  common = common.substr(0, slash + 1);
  for (const auto& folder : folders)
    if (folder.size() == common.size()) return {};
  return std::string(common);
}

// sh: commands that set _condacuda to the entries, "$CONDA_PREFIX/<folder>" joined by
// ':'. Unquoted: an assignment's value is neither split nor globbed, and a ':' in it is
// always followed by '$', so there is no tilde expansion either. bash parses the hook
// at every activation and its cost grows with the text, so a long leading directory
// the folders share is written once, in a first assignment (`base`), which the
// staleness test of the fast path reuses when it watches that directory.
struct PosixEntries {
  std::string base_folder; // the shared directory without its last '/', or ""
  std::string base;        // "_condacuda=$CONDA_PREFIX/<base_folder>", or ""
  std::string entries;     // "_condacuda=..." (from $_condacuda when there is a base)
};

PosixEntries posix_entries_parts(const std::vector<std::string>& folders) {
  const std::string shared = shared_directory(folders);
  const std::size_t saved = folders.empty() ? 0 : (folders.size() - 1) * shared.size();
  PosixEntries out;
  std::string from = "$CONDA_PREFIX/";
  if (!shared.empty() && saved > 40) {
    out.base_folder = shared.substr(0, shared.size() - 1);
    out.base = "_condacuda=$CONDA_PREFIX/" + posix_word_part(out.base_folder);
    from = "$_condacuda/";
  }
  out.entries = "_condacuda=";
  for (std::size_t i = 0; i < folders.size(); ++i) {
    if (i > 0) out.entries += ':';
    out.entries += from + posix_word_part(std::string_view(folders[i]).substr(out.base.empty() ? 0 : shared.size()));
  }
  return out;
}

std::string posix_entries(const std::vector<std::string>& folders) {
  const PosixEntries parts = posix_entries_parts(folders);
  return parts.base.empty() ? parts.entries : parts.base + "; " + parts.entries;
}

// The staleness stamp: repair sets the mtime of condacuda's own folder last
// (app/repair_apply.cpp), so a watched folder newer than it changed since.
constexpr std::string_view posix_stamp = "\"$CONDA_PREFIX/etc/condacuda\"";

// sh: "$CONDA_PREFIX"/<folder> as one word.
std::string posix_prefixed(std::string_view folder) { return "\"$CONDA_PREFIX\"/" + posix_word_part(folder); }

// sh, fast path: the folders, the entries and the staleness test, written so that
// bash expands as few characters as it can (in a UTF-8 locale it spends about 200
// instructions per character it expands in quotes: tests/bench/bench_hooks.sh). The
// first watched folder, when every entry is in it, is the base: assigned once to
// _condacuda, the entries written from it, the test reusing it; else the long
// directory the entries share, as in posix_entries; else no base.
struct PosixFastPath {
  std::string base;    // "_condacuda=$CONDA_PREFIX/<folder>", or ""
  std::string entries; // one word: "$_condacuda/cusparse/lib:..." (no assignment)
  std::string check;   // "[ W -nt S -o ... ]", true when stale
};

bool is_within(std::string_view folder, std::string_view dir) {
  return folder == dir || (folder.size() > dir.size() && folder.starts_with(dir) && folder[dir.size()] == '/');
}

PosixFastPath posix_fast_path(const std::vector<std::string>& folders) {
  const std::vector<std::string> watched = watched_folders(folders);
  std::string base_folder;
  if (!watched.empty() &&
      std::all_of(folders.begin(), folders.end(), [&](const std::string& f) { return is_within(f, watched.front()); }))
    base_folder = watched.front();
  else
    base_folder = posix_entries_parts(folders).base_folder;
  PosixFastPath out;
  if (!base_folder.empty()) out.base = "_condacuda=$CONDA_PREFIX/" + posix_word_part(base_folder);
  for (const auto& folder : folders) {
    if (!out.entries.empty()) out.entries += ':';
    if (base_folder.empty()) out.entries += "$CONDA_PREFIX/" + posix_word_part(folder);
    else if (folder == base_folder) out.entries += "$_condacuda";
    else out.entries += "$_condacuda/" + posix_word_part(std::string_view(folder).substr(base_folder.size() + 1));
  }
  out.check = "[";
  for (const auto& w : watched) {
    if (out.check.size() > 1) out.check += " -o";
    out.check += ' ' + (w == base_folder ? std::string("\"$_condacuda\"") : posix_prefixed(w)) + " -nt " +
                 std::string(posix_stamp);
  }
  // The record gone is stale too; only bash's -nt is true when its right
  // operand is missing (dash's and zsh's are false), so it is tested apart.
  out.check += " -o ! -d " + std::string(posix_stamp) + " ]";
  return out;
}

// The staleness line's words for a watched folder, escaped here, at render time, as
// the CLI escapes what an env wrote: csh has no builtin that escapes a control byte,
// and fish's `string escape` has a notation of its own.
std::string stale_message(std::string_view watched) {
  return util::terminal_safe(watched) + " changed after the repair of this env's CUDA libraries";
}

// sh, slow part: one line per watched folder, naming the first that changed.
std::string posix_stale_tests(const std::vector<std::string>& folders) {
  std::string out;
  for (const auto& w : watched_folders(folders)) {
    if (!out.empty()) out += '\n';
    out += "  [ -n \"$_condacuda\" ] || [ ! " + posix_prefixed(w) + " -nt " + std::string(posix_stamp) +
           " ] || _condacuda=" + quote_posix(stale_message(w));
  }
  return out;
}

// fish and csh, slow part: as sh's.
std::string fish_stale_tests(const std::vector<std::string>& folders) {
  std::string out;
  for (const auto& w : watched_folders(folders)) {
    if (!out.empty()) out += '\n';
    out += "                if test -z \"$stale\"; and test \"$prefix\"/" + quote_fish(w) +
           " -nt \"$prefix/etc/condacuda\"\n"
           "                    set stale " + quote_fish(stale_message(w)) + "\n"
           "                end";
  }
  return out;
}

std::string csh_stale_tests(const std::vector<std::string>& folders) {
  std::string out;
  for (const auto& w : watched_folders(folders)) {
    const std::string path = "${_condacuda_prefix:q}/" + quote_csh(w);
    if (!out.empty()) out += '\n';
    out += "            if ( $_condacuda_stale:q == '' && -e " + path + " ) then\n"
           "                if ( -M " + path + " > -M $_condacuda_stamp:q ) then\n"
           "                    set _condacuda_stale = " + quote_csh(stale_message(w)) + "\n"
           "                endif\n"
           "            endif";
  }
  return out;
}

// fish: the entries as a list of words, "$prefix"/<folder>.
std::string fish_entries(const std::vector<std::string>& folders) {
  std::string out;
  for (const auto& folder : folders) {
    if (!out.empty()) out += ' ';
    out += "\"$prefix\"/" + quote_fish(folder);
  }
  return out;
}

// csh: the entries as one word, ${_condacuda_prefix:q}/<folder> joined by ':'.
std::string csh_entries(const std::vector<std::string>& folders) {
  std::string out;
  for (const auto& folder : folders) {
    if (!out.empty()) out += ':';
    out += "${_condacuda_prefix:q}/" + quote_csh(folder);
  }
  return out;
}

// The shellcheck directive the sh activation hook needs for these folders: quoted parts
// in the entries are parts of folder names (SC2016, SC2089, SC2090 would take them for
// mistakes). Nothing for plain folders, to keep the parsed text short. The whole line:
// in the stored template it is a placeholder line, which shellcheck accepts.
// Always: SC3013, `-nt` is not POSIX but a builtin of every shell that sources the
// hook (bash, dash, zsh, ksh, busybox); SC2086, export's words are assignments (see
// the fast path's comment); SC2166: `[ A -nt S -o ! -d S ]` is well defined here,
// each operand starting with "$CONDA_PREFIX"/ or "$_condacuda", so none reads as
// an operator.
// The line is parsed at every activation: only the codes these folders need.
std::string posix_shellcheck_directive(const std::vector<std::string>& folders) {
  const bool quoted = std::any_of(folders.begin(), folders.end(),
                                  [](const std::string& f) { return posix_word_part(f) != f; });
  return std::string("# shellcheck shell=sh disable=") + (quoted ? "SC2016,SC2086,SC2089,SC2090" : "SC2086") +
         ",SC2166,SC3013";
}

std::string entries_for(Shell shell, const std::vector<std::string>& folders) {
  switch (shell) {
  case Shell::posix: return posix_entries(folders);
  case Shell::fish: return fish_entries(folders);
  case Shell::csh: return csh_entries(folders);
  }
  return posix_entries(folders);
}

Result<std::string_view> load_template(const std::string& name) {
  auto text = util::embedded_asset(name);
  if (!text) return make_error(ErrorCode::internal, "template is not embedded", name);
  return *text;
}

// Lines ending with this marker serve the template file itself (shellcheck
// directives for its placeholders, so the stored template lints clean); the
// rendered hooks do not carry them.
constexpr std::string_view template_only_marker = "# (template only)";

std::string without_template_only_lines(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end == std::string_view::npos ? text.size() : end + 1);
    text.remove_prefix(line.size());
    std::string_view body = line.substr(0, line.size() - (line.back() == '\n' ? 1 : 0));
    if (!body.ends_with(template_only_marker)) out += line;
  }
  return out;
}

Result<std::string> render_template(const std::string& name, std::span<const util::Placeholder> values) {
  auto text = load_template(name);
  if (!text) return text.error();
  return util::expand_placeholders(without_template_only_lines(*text), values, name);
}

// The fragment shared by activate and deactivate (remove_record), expanded with the
// same values. Its last newline is dropped so that it replaces its @NAME@ line exactly.
Result<std::string> render_fragment(const std::string& name, std::span<const util::Placeholder> values) {
  auto text = render_template(name, values);
  if (!text) return text;
  if (!text->empty() && text->back() == '\n') text->pop_back();
  return text;
}

Result<std::vector<RenderedFile>> render_shell(const HookSpec& spec, Shell shell) {
  const std::string ext(hook_extension(shell));
  const std::string version = spec.tool_version.empty() ? "(unknown version)" : spec.tool_version;
  const std::string entries = entries_for(shell, spec.folders);
  const std::string fs(1, hook_state_fs), gs(1, hook_state_gs), rs(1, hook_record_separator),
      us(1, hook_field_separator);
  const std::string directive = shell == Shell::posix ? posix_shellcheck_directive(spec.folders) : "";
  const bool posix = shell == Shell::posix;
  // Placeholders view their values: these strings outlive the rendering.
  const PosixFastPath fast = posix ? posix_fast_path(spec.folders) : PosixFastPath{};
  const std::string stale_tests = posix                   ? posix_stale_tests(spec.folders)
                                  : shell == Shell::fish ? fish_stale_tests(spec.folders)
                                                         : csh_stale_tests(spec.folders);
  std::array<util::Placeholder, 12> values = {{
      {"TOOL_VERSION", version},
      {"SHELLCHECK", directive},
      {"ENTRIES", entries},
      {"FAST_BASE", fast.base},
      {"FAST_ENTRIES", fast.entries},
      {"FAST_CHECK", fast.check},
      {"STALE_TESTS", stale_tests},
      {"FS", fs},
      {"GS", gs},
      {"RS", rs},
      {"US", us},
      {"REMOVE_RECORD", ""},
  }};
  auto remove_record = render_fragment("templates/hooks/remove_record." + ext + ".in",
                                       std::span<const util::Placeholder>(values.data(), values.size() - 1));
  if (!remove_record) return remove_record.error();
  values.back().value = *remove_record;
  std::vector<RenderedFile> files;
  for (std::string_view phase : {"activate", "deactivate"}) {
    auto content = render_template("templates/hooks/" + std::string(phase) + "." + ext + ".in", values);
    if (!content) return content.error();
    files.push_back({"etc/conda/" + std::string(phase) + ".d/condacuda." + ext, std::move(*content)});
  }
  return files;
}

std::vector<Shell> unique_shells(const std::vector<Shell>& shells) {
  std::vector<Shell> unique;
  for (Shell shell : shells)
    if (std::find(unique.begin(), unique.end(), shell) == unique.end()) unique.push_back(shell);
  return unique;
}

} // namespace

std::vector<std::string> watched_folders(const std::vector<std::string>& folders) {
  std::vector<std::string> out;
  auto add = [&](std::string folder) {
    if (std::find(out.begin(), out.end(), folder) == out.end()) out.push_back(std::move(folder));
  };
  for (const auto& folder : folders) {
    // <site-packages>/nvidia/<package>/lib: the wheels' namespace folder changes when a
    // wheel is installed, upgraded (pip moves the old package folder away) or removed.
    // <site-packages>/nvidia/cu13/lib, shared by CUDA 13's wheels: the folder itself.
    const std::size_t at = folder.find("/nvidia/");
    if (at != std::string::npos && folder.ends_with("/lib")) {
      const std::string_view package =
          std::string_view(folder).substr(at + 8, folder.size() - 4 - (at + 8));
      const bool shared_major = package.size() > 2 && package.starts_with("cu") &&
                                std::all_of(package.begin() + 2, package.end(), [](char c) { return c >= '0' && c <= '9'; });
      if (!package.empty() && package.find('/') == std::string_view::npos && !shared_major) {
        add(folder.substr(0, at + 7));
        continue;
      }
    }
    add(folder);
  }
  return out;
}

std::span<const Shell> all_shells() { return shells_in_order; }

std::string_view hook_extension(Shell shell) {
  switch (shell) {
  case Shell::posix: return "sh";
  case Shell::fish: return "fish";
  case Shell::csh: return "csh";
  }
  return "sh";
}

std::vector<std::string> hook_relative_paths(const std::vector<Shell>& shells) {
  std::vector<std::string> paths;
  for (Shell shell : unique_shells(shells)) {
    const std::string ext(hook_extension(shell));
    paths.push_back("etc/conda/activate.d/condacuda." + ext);
    paths.push_back("etc/conda/deactivate.d/condacuda." + ext);
  }
  return paths;
}

Result<std::vector<RenderedFile>> render_hooks(const HookSpec& spec, const std::vector<Shell>& shells) {
  if (auto status = check_spec(spec); !status) return status.error();
  std::vector<RenderedFile> files;
  for (Shell shell : unique_shells(shells)) {
    auto rendered = render_shell(spec, shell);
    if (!rendered) return rendered.error();
    for (auto& file : *rendered) files.push_back(std::move(file));
  }
  return files;
}

// mamba's renderer leaves ' as is; util::quote_posix writes it as '\''.
std::string quote_posix(std::string_view s) { return util::quote_posix(s); }

std::string quote_fish(std::string_view s) {
  // fish's single quotes know exactly two escapes: \\ and \' (fish-doc "Quotes").
  std::string out = "'";
  for (char c : s) {
    if (c == '\\' || c == '\'') out += '\\';
    out += c;
  }
  out += '\'';
  return out;
}

std::string quote_csh(std::string_view s) {
  // csh(1): single quotes stop every substitution but history (!), which needs a
  // backslash even there, and a newline must be escaped or it ends the word. A
  // backslash before anything else stays literal, as does a backslash before the
  // closing quote, so ' is written '\'' as in sh.
  std::string out = "'";
  for (char c : s) {
    switch (c) {
    case '\'': out += "'\\''"; break;
    case '!': out += "'\\!'"; break;
    case '\n': out += "\\\n"; break;
    default: out += c;
    }
  }
  out += '\'';
  return out;
}

std::string quote_for(Shell shell, std::string_view s) {
  switch (shell) {
  case Shell::posix: return quote_posix(s);
  case Shell::fish: return quote_fish(s);
  case Shell::csh: return quote_csh(s);
  }
  return quote_posix(s);
}

} // namespace condacuda::repair
