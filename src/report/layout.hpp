#pragma once
// The default text view's layout (issue 51): lines that fit 100 columns,
// broken at spaces with a hanging indent (a path longer than the line stays
// whole, on a line of its own), and a fix's commands each alone on a line
// that pastes into a shell.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace condacuda::report {

inline constexpr std::size_t text_width = 100;

// Columns `text` takes on a terminal: UTF-8 code points; colour codes (ESC ... m) take none.
std::size_t visible_width(std::string_view text);

// `text` after `lead` (whose visible width is `lead_width`: it may hold
// colour codes), broken at spaces before `width`; each further line starts
// with `indent` spaces. Ends with a newline.
std::string wrap(const std::string& lead, std::size_t lead_width, std::string_view text, std::size_t indent,
                 std::size_t width = text_width);

// Each line of `text` longer than `width` broken at spaces, its further
// lines indented two more than its own (sentences; never a table's rows).
std::string fit(const std::string& text, std::size_t width = text_width);

// A fix's words and its commands: each `command` in backquotes, or a fix
// that starts with the command ("condacuda repair -p X  (why)"). The prose
// names them "the command below" (one) or "command N below" (several).
struct FixText {
  std::string prose;
  std::vector<std::string> commands;
};
FixText split_fix(std::string_view fix);

// "LD_LIBRARY_PATH '/a:/b'  (note)", or, when that does not fit `width`, its
// entries one per line in the loader's order ("N entries, in order (note)").
// `styled_name` may hold colour codes; `name` is its plain text. Unset: "(unset)".
std::string path_variable_text(const std::string& styled_name, const std::string& name,
                               const std::optional<std::string>& value, const std::string& note,
                               std::size_t width = text_width);

// A fix under its finding: `lead` ("    fix: ", whose visible width is
// `lead_width`) and the fix's words wrapped at that column, then each of its
// commands (split_fix) alone on its lines there (command_block).
std::string fix_block(const std::string& lead, std::size_t lead_width, std::string_view fix);

// A command alone on its lines, `indent` in: when it does not fit `width`,
// broken at spaces outside quotes with a trailing " \\" (every shell reads
// backslash-newline as a space), further lines 4 more in. Ends with a newline.
std::string command_block(std::string_view command, std::size_t indent, std::size_t width = text_width);

} // namespace condacuda::report
