#pragma once
// What a package requires of another: wheel METADATA "Requires-Dist" lines
// (PEP 508 requirements, PEP 440 versions and specifiers, environment
// markers) and conda-meta "depends" match specs (conda's VersionOrder and
// version spec syntax). Pure parsers and predicates: text in, data out.
//
// Unknown is never guessed: a version, specifier or marker that cannot be
// judged gives nullopt (the caller decides); text that cannot be parsed as
// a requirement gives an Error. Nothing here throws or recurses without a
// bound, whatever the input (numbers are kept as digit strings, so a release
// component of 100 digits compares like any other).
//
// Sources: PEP 440 / the "Version specifiers" specification
// (packaging.python.org/en/latest/specifications/version-specifiers/) and its
// reference implementation pypa/packaging (version.py, specifiers.py);
// PEP 508 / "Dependency specifiers" (markers.py); conda's
// conda/models/version.py (VersionOrder, VersionSpec, treeify) and
// conda/models/match_spec.py (_parse_spec_str, _parse_version_plus_build,
// _sanitize_version_str), read at conda/conda 0f64223.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace condacuda::inventory {

// ---------------------------------------------------------------- PEP 440

// A PEP 440 version in normal form. Every number is a string of decimal
// digits without leading zeros ("0" for zero).
struct Pep440Version {
  std::string epoch = "0";
  std::vector<std::string> release;  // at least one component
  std::string pre_label;             // "a", "b", "rc", or "" when not a pre-release
  std::string pre_number;            // "" when pre_label is ""
  std::optional<std::string> post;   // ".postN"
  std::optional<std::string> dev;    // ".devN"
  std::vector<std::string> local;    // "+abc.5" -> {"abc", "5"}; lower case

  bool is_prerelease() const { return !pre_label.empty() || dev.has_value(); }
  bool is_postrelease() const { return post.has_value(); }
  // The normal form: "1!2.0rc1.post2.dev3+abc.5".
  std::string to_string() const;
  // Without the local label: "1!2.0rc1.post2.dev3".
  std::string public_string() const;
};

// Accepts PEP 440's permitted spellings and normalises them: case, a leading
// "v", "alpha"/"beta"/"c"/"pre"/"preview" (a, b, rc), "rev"/"r" (post),
// implicit numbers ("1.0a" = 1.0a0), implicit post releases ("1.0-1"),
// separators "-", "_", "." around pre/post/dev, local separators. nullopt
// for anything else (at most 256 characters are considered a version).
std::optional<Pep440Version> parse_pep440(std::string_view text);

// PEP 440's total order: <0, 0, >0. Trailing zeros of the release do not
// count (1.0 == 1.0.0); local labels sort after the public version.
int compare(const Pep440Version& a, const Pep440Version& b);

// Whether `version` satisfies the specifier set `specifiers`: clauses
// separated by commas, all must hold; "" admits every version. Operators
// ==, !=, <, <=, >, >=, ~=, === and the ".*" prefix forms of == and !=, with
// the exclusive-comparison rules of the specification (<V admits no
// pre-release of V unless V is one; >V admits no post-release or local
// version of V unless V is a post-release).
//
// Pre-releases: the version judged here is one that is installed, which the
// specification lets through ("unless they are already present on the
// system"); pip check does the same (specifier.contains(version,
// prereleases=True)). So an installed pre-release is judged by the order
// alone: 13.0.0rc1 satisfies ">=12" and not "<13".
//
// nullopt when the version or a clause cannot be parsed; "===" compares the
// text (case-insensitive) and needs no PEP 440 version.
std::optional<bool> pep440_satisfies(std::string_view version, std::string_view specifiers);

// A specifier set in normal form ("( >= 1.0 , <2 )" is not accepted: no
// parentheses here): each clause's version normalised (">=1.0,<2",
// "==12.*", "~=2.21", "===foo"), in the order written; nullopt when a clause
// is malformed or a version has no place there (a local label with an
// ordered comparison, ".*" after a pre-release, "~=1" with one component).
std::optional<std::string> normalize_pep440_specifiers(std::string_view specifiers);

// ---------------------------------------------------------------- PEP 508

// The values markers are evaluated against. The defaults describe a Linux
// x86_64 CPython; an empty string is a value not known (a comparison that
// needs it is unknown).
struct MarkerEnvironment {
  std::string python_version, python_full_version; // "3.11", "3.11.2"; python_version is derived from python_full_version when empty
  std::string sys_platform = "linux", platform_system = "Linux", platform_machine = "x86_64", os_name = "posix",
              implementation_name = "cpython", platform_python_implementation = "CPython";
  std::string platform_release, platform_version; // uname's release and version; usually not known
  std::string implementation_version;             // "" = python_full_version for CPython
  std::vector<std::string> extras;                // extras that count as installed (normally none)
};

struct Requirement {
  std::string name;       // PEP 503-normalised for wheels ("nvidia-cudnn-cu12"); conda's name, lower case
  std::string specifiers; // normalised, comma-joined, "" = any version (conda: the version spec, see parse_conda_match_spec)
  std::vector<std::string> extras; // normalised like names
  std::string marker;     // as written, "" when none
  std::string url;        // "name @ url" requirements; specifiers is then ""
  enum class Kind { wheel, conda } kind = Kind::wheel;
  std::string text;       // the line as written (trimmed), for messages
};

// A Requires-Dist value: name, optional [extras], specifiers with or
// without parentheses, or "@ url", then an optional "; marker" (checked for
// syntax here, evaluated by applies()). Lines longer than 4096 characters,
// control characters, a missing name or operator, unbalanced parentheses
// or quotes: an Error (bad_input).
Result<Requirement> parse_requires_dist(std::string_view text);

// Evaluates a PEP 508 marker with Kleene's three-valued logic ("false and
// unknown" is false, "true or unknown" is true): and/or/parentheses, the
// PEP 440 operators, "in" and "not in". Comparisons involving
// python_version, python_full_version, implementation_version or
// platform_release are PEP 440 comparisons (as pypa/packaging's markers.py
// does; when the literal is not a PEP 440 version, the comparison falls back
// to strings); all others compare strings. `extra == "x"` is true only when
// x is in env.extras (names normalised), `"x" in extras` likewise. A variable
// with no known value (an empty field, or a name that is not a marker
// variable) makes its comparison unknown. Malformed text: an Error.
Result<std::optional<bool>> evaluate_marker(std::string_view marker, const MarkerEnvironment& env);

// Whether the requirement applies here: true with no marker, else the
// marker's value (nullopt when unknown or malformed).
std::optional<bool> applies(const Requirement& r, const MarkerEnvironment& env);

// ---------------------------------------------------------------- conda

// A conda match spec as conda-meta's "depends" writes it: "name", "name
// version", "name version build" (the build string is ignored), with an
// optional channel ("conda-forge::name", cut off) and "# comment". The
// version part follows conda's _sanitize_version_str: "==1.2" (no build)
// becomes "1.2", "=1.2" (no build) becomes "1.2*"; "*" becomes "". Kind
// conda, no extras, no marker. Bracket and parenthesis sections
// ("name[version=...]") are unsupported: an Error, like text that is not a
// match spec ("foo bar baz qux": version parts not joined by an operator).
Result<Requirement> parse_conda_match_spec(std::string_view spec);

// conda's VersionOrder: <0, 0, >0; nullopt when either is not a conda
// version (conda's characters: letters, digits, ".", "_", "+", "!", "*";
// "-" read as "_" when there is no "_").
std::optional<int> conda_compare(std::string_view a, std::string_view b);

// Whether a conda version satisfies a conda version spec ("|" = or, "," =
// and, binding tighter; parentheses; ==, !=, <, <=, >, >=, ~=, "=" (starts
// with); "1.2.*" and "1.2*" (starts with, component by component); globs
// with "*" inside; "*" (any); a bare version "1.2" means ==1.2 exactly
// (conda's VersionSpec; conda's tests: "numpy 1.7" does not match 1.7.1)).
// "" admits every version. nullopt when either cannot be parsed, and for
// regular expressions ("^...$"), which are not evaluated.
std::optional<bool> conda_satisfies(std::string_view version, std::string_view version_spec);

// pep440_satisfies or conda_satisfies, by the requirement's kind.
std::optional<bool> satisfies(const Requirement& r, std::string_view version);

} // namespace condacuda::inventory
