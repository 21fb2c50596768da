#include "util/hostlist.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <iterator>
#include <limits>
#include <list>
#include <optional>
#include <utility>

#include "util/strings.hpp"

// This file follows Slurm 22.05 (src/common/hostlist.c at slurm-22-05-8-1)
// step by step, so that what it prints is what scontrol prints, quirks
// included; the header lists where it parts from Slurm, and why.
//  - A list is cut into tokens at tab, comma and space outside brackets.
//  - A token is a name, or text whose last bracket group ("[1-3,7]") ends
//    it; bracket groups before that one multiply the prefix.
//  - Hosts become ranges (prefix, numbers lo..hi, zero-padded width), each
//    joined to the one before when it continues it.
//  - Sorting is glibc's merge sort with Slurm's comparison; then overlapping
//    neighbours are split up and touching ones joined.
//  - Printing puts neighbouring ranges of one prefix in one pair of brackets.

namespace condacuda::util {
namespace {

constexpr std::uint64_t max_hosts_in_range = 64 * 1024;    // Slurm's MAX_RANGE
constexpr std::uint64_t max_prefix_values = 64 * 1024;     // MAX_PREFIX_CNT
constexpr std::size_t max_ranges_in_brackets = 256 * 1024; // MAX_RANGES (scontrol exits past it)
constexpr std::uint64_t saturated = std::numeric_limits<std::uint64_t>::max();
constexpr std::string_view separators = "\t, ";
constexpr std::size_t npos = std::string_view::npos;

// Hosts prefix+lo .. prefix+hi, the numbers zero-padded to `width` (Slurm's
// hostrange), or one name without a number (`single`: the prefix is the name).
struct HostRange {
  std::string prefix;
  std::uint64_t lo = 0;
  std::uint64_t hi = 0;
  int width = 0;
  bool single = false;
};
using Ranges = std::vector<HostRange>;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// isspace() in the C locale, scontrol's.
bool is_c_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

bool is_separator(char c) { return separators.find(c) != npos; }

int width_of(std::size_t length) { return static_cast<int>(std::min<std::size_t>(length, INT_MAX)); }

std::uint64_t add(std::uint64_t a, std::uint64_t b) { return a > saturated - b ? saturated : a + b; }

std::uint64_t times(std::uint64_t a, std::uint64_t b) { return b != 0 && a > saturated / b ? saturated : a * b; }

// `text` for a message: quoted, one line, safe for a terminal, cut at `limit` bytes.
std::string shown(std::string_view text, std::size_t limit) {
  std::string safe = terminal_safe(text.substr(0, limit));
  safe = replace_all(replace_all(std::move(safe), "\n", "\\n"), "\t", "\\t");
  return "'" + safe + (text.size() > limit ? "...'" : "'");
}

Error bad(std::string message) { return make_error(ErrorCode::bad_input, std::move(message)); }

// What C's strtoul(text, &end, 10) reads: white space, a sign, digits. Past
// 2^64-1 it saturates; a '-' negates modulo 2^64. Slurm reads every number so,
// and its leniency shows: "[ 2]" is 2 at width 2, "[+1-3]" is 01..03.
struct CNumber {
  std::uint64_t value = 0;
  std::size_t end = 0; // where reading stopped
  bool converted = false;
};

CNumber read_c_number(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size() && is_c_space(text[i])) ++i;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  std::size_t digits = i;
  std::uint64_t value = 0;
  bool overflow = false;
  for (; i < text.size() && is_digit(text[i]); ++i) {
    auto digit = static_cast<std::uint64_t>(text[i] - '0');
    if (value > (saturated - digit) / 10)
      overflow = true;
    else
      value = value * 10 + digit;
  }
  if (i == digits) return {};
  if (overflow) return {saturated, i, true};
  return {negative ? 0 - value : value, i, true};
}

int digit_count(std::uint64_t value) {
  int count = 1;
  while (value /= 10) ++count;
  return count;
}

// `value` in decimal, zero-padded to `width` digits (printf's "%0*lu").
std::string padded(std::uint64_t value, int width) {
  std::string digits = std::to_string(value);
  if (width > width_of(digits.size())) digits.insert(0, static_cast<std::size_t>(width) - digits.size(), '0');
  return digits;
}

// The zeros "%0*lu" writes before `value` at `width` (Slurm's _zero_padded).
int zero_padding(std::uint64_t value, int width) { return std::max(width - digit_count(value), 0); }

// --- Slurm's strnatcmp, its order of prefixes: white space skipped, runs of
// digits by value ("n9" < "n10") unless one starts with '0' (then digit by
// digit: "n01" < "n1"), other bytes as signed chars (as scontrol's char).

char char_at(std::string_view s, std::size_t i) { return i < s.size() ? s[i] : '\0'; }

// Two runs of digits by magnitude: the longer, else the first higher digit.
int compare_digit_runs(std::string_view a, std::size_t i, std::string_view b, std::size_t j) {
  int bias = 0;
  for (;; ++i, ++j) {
    char ca = char_at(a, i), cb = char_at(b, j);
    if (!is_digit(ca) && !is_digit(cb)) return bias;
    if (!is_digit(ca)) return -1;
    if (!is_digit(cb)) return 1;
    if (bias == 0 && ca != cb) bias = ca < cb ? -1 : 1;
  }
}

// Two runs of digits as fractions, left-aligned: the first differing digit.
int compare_fraction_runs(std::string_view a, std::size_t i, std::string_view b, std::size_t j) {
  for (;; ++i, ++j) {
    char ca = char_at(a, i), cb = char_at(b, j);
    if (!is_digit(ca) && !is_digit(cb)) return 0;
    if (!is_digit(ca)) return -1;
    if (!is_digit(cb)) return 1;
    if (ca != cb) return ca < cb ? -1 : 1;
  }
}

int natural_compare(std::string_view a, std::string_view b) {
  for (std::size_t i = 0, j = 0;; ++i, ++j) {
    while (is_c_space(char_at(a, i))) ++i;
    while (is_c_space(char_at(b, j))) ++j;
    char ca = char_at(a, i), cb = char_at(b, j);
    if (is_digit(ca) && is_digit(cb)) {
      int runs = ca == '0' || cb == '0' ? compare_fraction_runs(a, i, b, j) : compare_digit_runs(a, i, b, j);
      if (runs != 0) return runs;
    }
    if (ca == '\0' && cb == '\0') return 0;
    auto sa = static_cast<signed char>(ca), sb = static_cast<signed char>(cb);
    if (sa != sb) return sa < sb ? -1 : 1;
  }
}

// --- ranges

std::uint64_t host_count(const HostRange& r) { return r.single ? 1 : r.hi - r.lo + 1; }

// Prefixes in natural order; of two equal ones, the single name first
// (hostrange_prefix_cmp). 0 is "same prefix" for joining and bracketing too.
int compare_prefixes(const HostRange& a, const HostRange& b) {
  int order = natural_compare(a.prefix, b.prefix);
  if (order != 0) return order;
  return static_cast<int>(b.single) - static_cast<int>(a.single);
}

// Whether two neighbours print in one pair of brackets (hostrange_within_range).
bool share_brackets(const HostRange& a, const HostRange& b) {
  return compare_prefixes(a, b) == 0 && !a.single && !b.single;
}

// Whether the numbers of a and b can be written at one width, judged by their
// first numbers as Slurm's _width_equiv does: equal widths, or a first number
// that reads the same at both ("10" at width 1 or 2; "9" at 1 and "010" at 3
// do not). That range then takes the other's width and keeps it: Slurm's
// later comparisons see the change, so these do too.
bool widths_agree(HostRange& a, HostRange& b) {
  if (a.width == b.width) return true;
  bool a_same = zero_padding(a.lo, a.width) == zero_padding(a.lo, b.width);
  bool b_same = zero_padding(b.lo, b.width) == zero_padding(b.lo, a.width);
  if (!a_same && !b_same) return false;
  if (!a_same)
    b.width = a.width;
  else
    a.width = b.width;
  return true;
}

// Appends a range, joined to the last one when it continues it
// (hostlist_push_range): n1 then n2 is n[1-2]; n2 then n1 stays two.
void push(Ranges& list, HostRange range) {
  if (!list.empty()) {
    HostRange& tail = list.back();
    if (tail.hi == range.lo - 1 && compare_prefixes(tail, range) == 0 && widths_agree(tail, range)) {
      tail.hi = range.hi;
      return;
    }
  }
  list.push_back(std::move(range));
}

// A name as a range of one host: "gpu007" is gpu, 7, width 3. "login",
// "host1.ex" and a number of 2^64-1 or more (the header says why) are single.
HostRange range_of_name(std::string_view name) {
  std::size_t prefix = name.size();
  while (prefix > 0 && is_digit(name[prefix - 1])) --prefix;
  if (prefix < name.size()) {
    CNumber number = read_c_number(name.substr(prefix));
    if (number.value != saturated)
      return {std::string(name.substr(0, prefix)), number.value, number.value, width_of(name.size() - prefix), false};
  }
  return {std::string(name), 0, 0, 0, true};
}

// --- reading a list

// What a list expands to, counted against the limits before it is made.
class Budget {
public:
  // `names` more names of at most `bytes_each` bytes each.
  Status take(std::uint64_t names, std::uint64_t bytes_each) {
    names_ = add(names_, names);
    bytes_ = add(bytes_, times(names, bytes_each));
    if (names_ > max_hostlist_names) return bad("more than " + std::to_string(max_hostlist_names) + " names");
    if (bytes_ > max_hostlist_bytes)
      return bad("names of more than " + std::to_string(max_hostlist_bytes >> 20) + " MiB");
    return ok_status();
  }

private:
  std::uint64_t names_ = 0;
  std::uint64_t bytes_ = 0;
};

// One entry of a bracket group: "3", "1-12", "001-012".
struct Bounds {
  std::uint64_t lo = 0;
  std::uint64_t hi = 0;
  int width = 0;
};

Error bad_range(std::string_view text) { return bad(shown(text, 60) + " is not a range"); }

// An entry as Slurm's _parse_single_range reads it, leniency included: the
// width is the length of the text before '-' ("01-3" is 01..03, and so is
// "1a-3": strtoul stops at the "a", and only a last number must end there).
Result<Bounds> parse_bounds(std::string_view text) {
  if (text.find('x') != npos) return bad_range(text); // "2x3": a box of Slurm's 3-D clusters
  std::size_t dash = text.find('-');
  std::string_view lo_text = text.substr(0, dash);
  std::string_view hi_text = dash == npos ? std::string_view{} : text.substr(dash + 1);
  if (!hi_text.empty() && hi_text.front() == '-') return bad_range(text);
  CNumber lo = read_c_number(lo_text);
  if (!lo.converted) return bad_range(text);
  std::uint64_t hi = lo.value;
  if (!hi_text.empty()) {
    CNumber high = read_c_number(hi_text);
    if (!high.converted || high.end != hi_text.size()) return bad_range(text);
    hi = high.value;
  } else if (lo.end != lo_text.size()) {
    return bad_range(text);
  }
  if (lo.value == saturated || hi == saturated) return bad(shown(text, 60) + " holds a number of 2^64-1 or more");
  if (lo.value > hi) return bad_range(text);
  if (hi - lo.value + 1 > max_hosts_in_range)
    return bad(shown(text, 60) + " is more than " + std::to_string(max_hosts_in_range) + " hosts");
  return Bounds{lo.value, hi, width_of(lo_text.size())};
}

using Group = std::vector<Bounds>;

// The inside of a pair of brackets: entries between commas (_parse_range_list).
Result<Group> parse_group(std::string_view inside) {
  Group group;
  for (std::size_t start = 0;;) {
    if (group.size() == max_ranges_in_brackets)
      return bad("more than " + std::to_string(max_ranges_in_brackets) + " entries in one pair of brackets");
    std::size_t comma = inside.find(',', start);
    auto bounds = parse_bounds(inside.substr(start, comma == npos ? npos : comma - start));
    if (!bounds) return bounds.error();
    group.push_back(*bounds);
    if (comma == npos) return group;
    start = comma + 1;
  }
}

std::uint64_t group_hosts(const Group& group) {
  std::uint64_t hosts = 0;
  for (const Bounds& b : group) hosts = add(hosts, b.hi - b.lo + 1);
  return hosts;
}

// The most bytes a number of the group takes.
std::uint64_t widest(const Group& group) {
  int widest = 0;
  for (const Bounds& b : group) widest = std::max({widest, b.width, digit_count(b.hi)});
  return static_cast<std::uint64_t>(widest);
}

// The text before a token's last bracket group, cut at its own groups from
// the right as Slurm's _push_range_list does: "r[1-2]-n" is "r", [1-2], "-n".
// A '[' with no ']' after it is text ("a[b" is a name's prefix).
struct Prefix {
  std::vector<std::string_view> texts; // one more than groups
  std::vector<Group> groups;
};

Result<Prefix> parse_prefix(std::string_view prefix) {
  std::vector<std::string_view> texts, insides; // right to left
  std::string_view rest = prefix;
  while (true) {
    std::size_t open = rest.rfind('['), close = rest.rfind(']');
    if (open == npos || close == npos || close < open) break;
    texts.push_back(rest.substr(close + 1));
    insides.push_back(rest.substr(open + 1, close - open - 1));
    rest = rest.substr(0, open);
  }
  texts.push_back(rest);
  Prefix out;
  out.texts.assign(texts.rbegin(), texts.rend());
  for (auto inside = insides.rbegin(); inside != insides.rend(); ++inside) {
    auto group = parse_group(*inside);
    if (!group) return group.error();
    if (group_hosts(*group) > max_prefix_values)
      return bad(shown(*inside, 60) + " is more than " + std::to_string(max_prefix_values) + " prefixes");
    out.groups.push_back(std::move(*group));
  }
  return out;
}

// A position in a group: its entry and the number reached in it.
struct Digit {
  std::size_t entry = 0;
  std::uint64_t value = 0;
};

// Moves to the group's next number; false past its last.
bool advance(Digit& digit, const Group& group) {
  if (digit.value < group[digit.entry].hi) {
    ++digit.value;
    return true;
  }
  if (digit.entry + 1 == group.size()) return false;
  digit.value = group[++digit.entry].lo;
  return true;
}

// Every range a bracketed token stands for, in Slurm's order: the prefix's
// groups count like an odometer whose leftmost wheel turns fastest
// ("a[1-2]b[1-2]c[1-2]": a1b1c1 a1b1c2 a2b1c1 a2b1c2 a1b2c1 ...), and each
// prefix gets the last group's ranges.
Status push_product(const Prefix& head, const Group& last, Ranges& list, Budget& budget) {
  std::uint64_t prefixes = 1, name_bytes = widest(last);
  for (std::string_view text : head.texts) name_bytes = add(name_bytes, text.size());
  for (const Group& group : head.groups) {
    prefixes = times(prefixes, group_hosts(group));
    name_bytes = add(name_bytes, widest(group));
  }
  if (Status taken = budget.take(times(prefixes, group_hosts(last)), name_bytes); !taken) return taken;
  std::vector<Digit> wheels;
  for (const Group& group : head.groups) wheels.push_back({0, group.front().lo});
  while (true) {
    std::string prefix(head.texts.front());
    for (std::size_t k = 0; k < wheels.size(); ++k)
      prefix.append(padded(wheels[k].value, head.groups[k][wheels[k].entry].width)).append(head.texts[k + 1]);
    for (const Bounds& b : last) push(list, {prefix, b.lo, b.hi, b.width, false});
    std::size_t k = 0;
    for (; k < wheels.size() && !advance(wheels[k], head.groups[k]); ++k) wheels[k] = {0, head.groups[k].front().lo};
    if (k == wheels.size()) return ok_status();
  }
}

Status push_name(std::string_view name, Ranges& list, Budget& budget) {
  if (Status taken = budget.take(1, name.size()); !taken) return taken;
  push(list, range_of_name(name));
  return ok_status();
}

// One token (the body of Slurm's _hostlist_create_bracketed).
Status push_token(std::string_view token, Ranges& list, Budget& budget) {
  std::size_t open = token.rfind('[');
  if (open == npos) return push_name(token, list, budget);
  std::string_view prefix = token.substr(0, open), rest = token.substr(open + 1);
  std::size_t close = rest.find(']');
  if (close == npos) // no ']' after the last '[': Slurm 22.05 takes "node[1" for "node]", "[abc" for "abc"
    return push_name(prefix.empty() ? std::string(rest) : std::string(prefix) + "]", list, budget);
  if (close + 1 < rest.size() && rest[close + 1] != ',') return bad("text after ']' in " + shown(token, 60));
  auto last = parse_group(rest.substr(0, close));
  if (!last) return last.error();
  auto head = parse_prefix(prefix);
  if (!head) return head.error();
  return push_product(*head, *last, list, budget);
}

// The next `c` at or after a position, remembered: positions only grow while
// a list is cut into tokens, so each search goes on from the last one and
// the cutting stays linear (a fresh search per token is quadratic: "a,a,...,[").
class NextOf {
public:
  NextOf(std::string_view text, char c) : text_(text), c_(c) {}
  std::size_t from(std::size_t position) {
    if (!searched_ || (found_ != npos && found_ < position)) found_ = text_.find(c_, position);
    searched_ = true;
    return found_;
  }

private:
  std::string_view text_;
  char c_;
  bool searched_ = false;
  std::size_t found_ = npos;
};

// Tokens at separators, where a separator inside brackets does not count
// ("a[1, 2],b" is "a[1, 2]" and "b"): Slurm's _next_tok, brackets matched as
// it matches them (the first ']' after the last pair skipped).
std::vector<std::string_view> split_tokens(std::string_view list) {
  std::vector<std::string_view> tokens;
  NextOf next_open(list, '['), next_close(list, ']');
  std::size_t pos = 0;
  while (true) {
    while (pos < list.size() && is_separator(list[pos])) ++pos;
    if (pos == list.size()) return tokens;
    std::size_t start = pos, scan = pos;
    for (bool inside = true; inside;) {
      while (pos < list.size() && !is_separator(list[pos])) ++pos;
      inside = false;
      while (true) {
        std::size_t open = next_open.from(scan);
        if (open == npos || open > pos) break;
        std::size_t close = next_close.from(scan);
        if (close == npos || close < open) break;
        if (close < pos) {
          scan = close + 1;
          continue;
        }
        pos = close;
        inside = true;
        break;
      }
    }
    tokens.push_back(list.substr(start, pos - start));
  }
}

// A list's ranges appended to `list` (hostlist_create), or why it is invalid.
Status push_list(std::string_view text, Ranges& list) {
  if (text.find('\0') != npos) return bad("a NUL byte"); // scontrol would read up to it
  Budget budget;
  for (std::string_view token : split_tokens(text))
    if (Status pushed = push_token(token, list, budget); !pushed) return pushed;
  return ok_status();
}

// The compress functions' entries as one list: each read as a hostlist on
// its own; one that is invalid, or over the limits, becomes one name.
Ranges ranges_of(const std::vector<std::string>& entries) {
  Ranges list;
  for (const std::string& entry : entries) {
    std::size_t size = list.size();
    std::optional<HostRange> tail = list.empty() ? std::nullopt : std::optional<HostRange>(list.back());
    if (push_list(entry, list)) continue;
    list.resize(size);
    if (tail) list.back() = *tail;
    push(list, range_of_name(entry));
  }
  return list;
}

// --- sorting (hostlist_sort)

// Slurm's hostrange_cmp: prefix, then the first number where the widths
// agree, else the width. Slurm returns the numbers' difference as an int,
// which misorders numbers 2^31 or more apart and then loses hosts; here they
// compare by value.
int compare_ranges(HostRange& a, HostRange& b) {
  int order = compare_prefixes(a, b);
  if (order != 0) return order;
  if (widths_agree(a, b)) return a.lo < b.lo ? -1 : (a.lo > b.lo ? 1 : 0);
  return a.width < b.width ? -1 : (a.width > b.width ? 1 : 0);
}

// glibc's qsort as scontrol calls it (an array of pointers): msort.c's
// top-down merge sort, stable (glibc 2.36, Debian 12's). Only the same
// comparisons in the same order give the same result: comparing changes
// widths, and widths agree pair by pair, not transitively.
void merge_sort(Ranges& v, std::size_t begin, std::size_t end, Ranges& scratch) {
  if (end - begin <= 1) return;
  std::size_t middle = begin + (end - begin) / 2;
  merge_sort(v, begin, middle, scratch);
  merge_sort(v, middle, end, scratch);
  scratch.clear();
  std::size_t i = begin, j = middle;
  while (i < middle && j < end) scratch.push_back(std::move(compare_ranges(v[i], v[j]) <= 0 ? v[i++] : v[j++]));
  while (i < middle) scratch.push_back(std::move(v[i++]));
  std::move(scratch.begin(), scratch.end(), v.begin() + static_cast<std::ptrdiff_t>(begin)); // the right's rest is in place
}

// The numbers two sorted neighbours share (hostrange_intersect): same prefix
// and widths, a's last number past b's first.
std::optional<HostRange> overlap(HostRange& a, HostRange& b) {
  if (a.single || b.single) return std::nullopt;
  if (!(a.hi > b.lo && compare_prefixes(a, b) == 0 && widths_agree(a, b))) return std::nullopt;
  return HostRange{a.prefix, b.lo, std::min(a.hi, b.hi), a.width, false};
}

// Overlapping neighbours split up as Slurm's hostlist_coalesce does: from the
// end, n[1-3],n[2-4] becomes n[1-2],n2,n3,n[3-4] (and n[1-2,2-3,3-4] once
// touching ones are joined). Sorted, so the first of the two keeps a host.
// After each split Slurm starts over from the end; the pairs after the
// second range are the same as before, did not overlap then (and a check
// that finds none changes nothing), so this goes on from that range, in a
// list that takes the shared numbers in place: the same result without
// Slurm's time, which grows with the cube of the list for repeated ranges
// (200 times n[1-100]: 30 s in scontrol, 0.06 s here). What is left grows
// with the square: each repeat walks past the numbers split off before it
// (2000 times n[1-100]: 11 s).
void split_overlaps(Ranges& v) {
  std::list<HostRange> list(std::make_move_iterator(v.begin()), std::make_move_iterator(v.end()));
  auto next = std::prev(list.end());
  while (next != list.begin()) {
    auto prev = std::prev(next);
    std::optional<HostRange> shared = overlap(*prev, *next);
    if (!shared) {
      next = prev;
      continue;
    }
    if (shared->hi < prev->hi) next->hi = prev->hi;
    prev->hi = shared->lo;
    next->lo = shared->hi;
    for (std::uint64_t n = shared->lo; n <= shared->hi; ++n) { // each once or twice, as Slurm inserts them
      HostRange one{shared->prefix, n, n, shared->width, false};
      if (n > prev->hi) list.insert(next, one);
      if (n < next->lo) list.insert(next, one);
    }
    if (std::next(next) != list.end()) ++next; // the pair of `next` and the range after it
  }
  v.assign(std::make_move_iterator(list.begin()), std::make_move_iterator(list.end()));
}

// Touching neighbours joined, from the end (hostlist_collapse).
void join_touching(Ranges& v) {
  Ranges reversed;
  HostRange next = std::move(v.back());
  for (std::size_t i = v.size() - 1; i-- > 0;) {
    HostRange& prev = v[i];
    if (prev.hi == next.lo - 1 && compare_prefixes(prev, next) == 0 && widths_agree(prev, next))
      prev.hi = next.hi;
    else
      reversed.push_back(std::move(next));
    next = std::move(prev);
  }
  reversed.push_back(std::move(next));
  v.assign(std::make_move_iterator(reversed.rbegin()), std::make_move_iterator(reversed.rend()));
}

void sort_ranges(Ranges& v) {
  if (v.size() <= 1) return;
  Ranges scratch;
  scratch.reserve(v.size());
  merge_sort(v, 0, v.size(), scratch);
  split_overlaps(v);
  join_touching(v);
}

// --- writing

std::string numbers_of(const HostRange& r) {
  if (r.single) return {};
  std::string out = padded(r.lo, r.width);
  if (r.lo < r.hi) out.append("-").append(padded(r.hi, r.width));
  return out;
}

// hostlist_ranged_string: neighbours that share brackets in one pair, a lone
// host without them ("login,n[1-2,010],x7").
std::string render(const Ranges& v) {
  std::string out;
  for (std::size_t i = 0; i < v.size();) {
    if (i > 0) out += ',';
    std::size_t first = i;
    bool brackets = host_count(v[i]) > 1 || (i + 1 < v.size() && share_brackets(v[i], v[i + 1]));
    out += v[i].prefix;
    if (brackets) out += '[';
    do {
      if (i > first) out += ',';
      out += numbers_of(v[i]);
    } while (++i < v.size() && share_brackets(v[i], v[i - 1]));
    if (brackets) out += ']';
  }
  return out;
}

std::vector<std::string> names_of(const Ranges& v) {
  std::vector<std::string> names;
  std::uint64_t count = 0;
  for (const HostRange& r : v) count += host_count(r); // within max_hostlist_names: the budget saw them
  names.reserve(count);
  for (const HostRange& r : v) {
    if (r.single) {
      names.push_back(r.prefix);
      continue;
    }
    for (std::uint64_t n = r.lo; n <= r.hi; ++n) names.push_back(r.prefix + padded(n, r.width));
  }
  return names;
}

} // namespace

std::string compress_hostlist(const std::vector<std::string>& names) { return render(ranges_of(names)); }

std::string compress_hostlist_sorted(std::vector<std::string> names) {
  Ranges ranges = ranges_of(names);
  sort_ranges(ranges);
  return render(ranges);
}

Result<std::vector<std::string>> expand_hostlist(std::string_view hostlist) {
  Ranges ranges;
  if (Status pushed = push_list(hostlist, ranges); !pushed)
    return bad("invalid hostlist " + shown(hostlist, 200) + ": " + pushed.error().message);
  return names_of(ranges);
}

} // namespace condacuda::util
