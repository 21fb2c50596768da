#pragma once
// String helpers shared by every layer. Pure functions.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace condacuda::util {

// Splits on any of the separator characters; keeps empty fields ("a::b" -> a,"",b).
std::vector<std::string> split(std::string_view s, std::string_view separators);
std::string join(const std::vector<std::string>& parts, std::string_view separator);
std::string_view trim(std::string_view s);
// The first line of `text` (without its '\n'), removed from `text`: a walk
// over a text's lines with no copy. `text` must not be empty.
std::string_view next_line(std::string_view& text);
bool contains(std::string_view haystack, std::string_view needle);
std::string to_lower(std::string_view s);

// The candidate nearest to `word` by edit distance (insertions, deletions,
// substitutions and swaps of neighbours, case-insensitive) when it is at most
// 2 edits and fewer than half of `word`'s characters away: "did you mean?"
// for a mistyped command or env name. nullopt when none is that near, or
// `word` is itself a candidate.
std::optional<std::string> nearest(std::string_view word, const std::vector<std::string>& candidates);

// Numeric-aware comparison of dotted versions: "12.10" > "12.9", "13.0.88" > "13.0".
// Non-numeric parts compare as strings. Returns <0, 0, >0.
int compare_versions(std::string_view a, std::string_view b);

// "12.6.3.3" -> 12; nullopt-like -1 when there is no leading number.
int leading_number(std::string_view s);

// A path relative to a root that cannot leave it by its spelling: not empty,
// not absolute, no empty, "." or ".." component, no NUL ("etc/conda/x.sh"
// yes; "../x", "/etc/x", "a//b", "a/./b" no). What it names on disk may still
// be reached through a symbolic link: the system layer walks it without
// following any (sys/prefix_tree.hpp).
bool is_confined_relative_path(std::string_view path);

// The length of the well-formed UTF-8 sequence that starts at s[pos] (1-4),
// or 0 when the byte there does not start one (a stray continuation byte, an
// overlong form, a surrogate, past U+10FFFF, cut short).
std::size_t utf8_sequence_length(std::string_view s, std::size_t pos);

// Text for a terminal from text that may hold what an env wrote (file names,
// package versions, ELF strings): control characters but newline and tab
// (ESC, BEL, C1 controls, DEL) and bytes that are not UTF-8 become "\xHH";
// the SGR colour sequences in `keep` (condacuda's own styling) pass through.
std::string terminal_safe(std::string_view text, const std::vector<std::string_view>& keep = {});

// Whether s is well-formed UTF-8 (control characters allowed).
bool is_utf8(std::string_view s);

// Whether s is well-formed UTF-8 without control characters (a name a
// terminal shows as it is and a line-based reader gets as one line).
bool is_plain_text(std::string_view s);

// Replaces every occurrence of `from` in s by `to`.
std::string replace_all(std::string s, std::string_view from, std::string_view to);

// `s` as one word for a POSIX shell: inside '...' every byte is literal; a '
// closes the quote, so it is written as '\'' (close, escaped quote, reopen).
std::string quote_posix(std::string_view s);

// `s` as one word for a POSIX shell, quoted only when it must be (the bytes
// Python's shlex.quote leaves bare: letters, digits, @%+=:,./_- ; a word
// with any other byte, or the empty word, is quote_posix'd).
std::string shell_word(std::string_view s);

} // namespace condacuda::util
