#include "inventory/requirements.hpp"

#include <algorithm>
#include <array>

#include "inventory/records.hpp"
#include "util/strings.hpp"

namespace condacuda::inventory {

namespace {

// Longest text read as a version, a specifier set, a requirement or a marker;
// real ones are far shorter, and a longer one is a hostile or broken file's.
constexpr std::size_t longest_version = 256;
constexpr std::size_t longest_line = 4096;
// Deepest nesting of parentheses in a marker or a conda version spec.
constexpr int deepest_nesting = 64;

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_lower_alnum(char c) { return is_digit(c) || (c >= 'a' && c <= 'z'); }
bool is_alnum(char c) { return is_lower_alnum(c) || (c >= 'A' && c <= 'Z'); }
bool is_space(char c) { return c == ' ' || c == '\t'; }
bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), is_digit);
}
bool has_control(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && c != '\t') || u == 0x7f;
  });
}
bool starts_at(std::string_view s, std::size_t pos, std::string_view prefix) {
  return pos <= s.size() && s.size() - pos >= prefix.size() && s.compare(pos, prefix.size(), prefix) == 0;
}

// Numbers are digit strings, so no component can overflow.
std::string strip_zeros(std::string_view digits) {
  std::size_t i = 0;
  while (i + 1 < digits.size() && digits[i] == '0') ++i;
  return std::string(digits.substr(i));
}
int compare_numbers(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return a.size() < b.size() ? -1 : 1;
  int c = a.compare(b);
  return (c > 0) - (c < 0);
}
int compare_text(std::string_view a, std::string_view b) {
  int c = a.compare(b);
  return (c > 0) - (c < 0);
}

// ------------------------------------------------------------- PEP 440

std::size_t digits_at(std::string_view s, std::size_t pos) {
  std::size_t end = pos;
  while (end < s.size() && is_digit(s[end])) ++end;
  return end - pos;
}
bool is_separator_at(std::string_view s, std::size_t pos) {
  return pos < s.size() && (s[pos] == '-' || s[pos] == '_' || s[pos] == '.');
}
// The number after a pre/post/dev label: "[sep]digits", or an implicit 0.
// A separator is taken only with the digits after it, so that it can still
// start the next part ("1.0a.dev1").
std::string number_after_label(std::string_view s, std::size_t& pos) {
  if (is_separator_at(s, pos) && digits_at(s, pos + 1) > 0) ++pos;
  std::size_t n = digits_at(s, pos);
  if (n == 0) return "0";
  std::string out = strip_zeros(s.substr(pos, n));
  pos += n;
  return out;
}
std::string_view label_at(std::string_view s, std::size_t pos, std::initializer_list<std::string_view> labels) {
  for (auto l : labels)
    if (starts_at(s, pos, l)) return l;
  return {};
}

Pep440Version base_of(const Pep440Version& v) {
  Pep440Version b;
  b.epoch = v.epoch;
  b.release = v.release;
  return b;
}
Pep440Version public_of(Pep440Version v) {
  v.local.clear();
  return v;
}
bool same_base(const Pep440Version& a, const Pep440Version& b) { return compare(base_of(a), base_of(b)) == 0; }

// "==V.*" and "~=": the epoch and the first prefix.size() release components
// (the candidate's padded with zeros) are equal; pre, post, dev and local
// parts of the candidate do not count (packaging's _compare_equal with
// _version_split and _pad_version).
bool prefix_matches(const Pep440Version& candidate, std::string_view epoch, const std::vector<std::string>& prefix) {
  if (compare_numbers(candidate.epoch, epoch) != 0) return false;
  for (std::size_t k = 0; k < prefix.size(); ++k) {
    std::string_view c = k < candidate.release.size() ? std::string_view(candidate.release[k]) : "0";
    if (c != prefix[k]) return false;
  }
  return true;
}

struct Clause {
  std::string op;       // "===", "~=", "==", "!=", "<=", ">=", "<", ">"
  std::string text;     // "===": the text to compare; else the version as written
  bool wildcard = false; // "==V.*", "!=V.*"
  Pep440Version version; // not for "==="
  std::string normal() const { return op + (op == "===" ? text : version.to_string() + (wildcard ? ".*" : "")); }
};

std::optional<Clause> parse_clause(std::string_view text) {
  text = util::trim(text);
  static constexpr std::array<std::string_view, 8> ops{"===", "~=", "==", "!=", "<=", ">=", "<", ">"};
  Clause c;
  for (auto op : ops)
    if (starts_at(text, 0, op)) {
      c.op = std::string(op);
      break;
    }
  if (c.op.empty()) return std::nullopt;
  std::string_view rest = util::trim(text.substr(c.op.size()));
  if (rest.empty() || rest.size() > longest_version) return std::nullopt;
  if (std::any_of(rest.begin(), rest.end(), [](char ch) { return is_space(ch) || ch == ',' || ch == ';'; }))
    return std::nullopt;
  c.text = std::string(rest);
  if (c.op == "===") return c;
  if (rest.size() >= 2 && rest.substr(rest.size() - 2) == ".*") {
    if (c.op != "==" && c.op != "!=") return std::nullopt;
    c.wildcard = true;
    rest.remove_suffix(2);
  }
  auto v = parse_pep440(rest);
  if (!v) return std::nullopt;
  c.version = std::move(*v);
  // Where a version part has no place (the specification's grammar, as
  // packaging's Specifier regex writes it).
  if (c.wildcard && (c.version.is_prerelease() || c.version.is_postrelease() || !c.version.local.empty()))
    return std::nullopt;
  bool ordered = c.op != "==" && c.op != "!=";
  if (ordered && !c.version.local.empty()) return std::nullopt;
  if (c.op == "~=" && c.version.release.size() < 2) return std::nullopt;
  return c;
}

std::optional<std::vector<Clause>> parse_clauses(std::string_view specifiers) {
  std::vector<Clause> out;
  if (specifiers.size() > longest_line) return std::nullopt;
  if (util::trim(specifiers).empty()) return out;
  for (const auto& part : util::split(specifiers, ",")) {
    auto c = parse_clause(part);
    if (!c) return std::nullopt;
    out.push_back(std::move(*c));
  }
  return out;
}

bool clause_holds(const Clause& c, const Pep440Version& v, std::string_view raw) {
  const Pep440Version& s = c.version;
  if (c.op == "===") return util::to_lower(util::trim(raw)) == util::to_lower(c.text);
  if (c.wildcard) {
    bool m = prefix_matches(v, s.epoch, s.release);
    return c.op == "==" ? m : !m;
  }
  if (c.op == "==" || c.op == "!=") {
    // A specifier without a local label ignores the candidate's.
    bool eq = compare(s.local.empty() ? public_of(v) : v, s) == 0;
    return c.op == "==" ? eq : !eq;
  }
  if (c.op == "<=") return compare(public_of(v), s) <= 0;
  if (c.op == ">=") return compare(public_of(v), s) >= 0;
  if (c.op == "<") {
    if (compare(v, s) >= 0) return false;
    // <V admits no pre-release of V itself unless V is one.
    return !(!s.is_prerelease() && v.is_prerelease() && same_base(v, s));
  }
  if (c.op == ">") {
    if (compare(v, s) <= 0) return false;
    // >V admits no post-release of V unless V is one, and no local version of V.
    if (!s.is_postrelease() && v.is_postrelease() && same_base(v, s)) return false;
    return !(!v.local.empty() && same_base(v, s));
  }
  // "~=V": >=V and ==V' .* where V' is V's release without its last component.
  std::vector<std::string> prefix(s.release.begin(), s.release.end() - 1);
  return compare(public_of(v), s) >= 0 && prefix_matches(v, s.epoch, prefix);
}

// ------------------------------------------------------------- markers

enum class TokenKind { lparen, rparen, string, op, word };
struct Token {
  TokenKind kind;
  std::string text;
};

Result<std::vector<Token>> tokenize_marker(std::string_view m) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < m.size()) {
    char c = m[i];
    if (is_space(c)) {
      ++i;
    } else if (c == '(' || c == ')') {
      out.push_back({c == '(' ? TokenKind::lparen : TokenKind::rparen, std::string(1, c)});
      ++i;
    } else if (c == '"' || c == '\'') {
      auto close = m.find(c, i + 1);
      if (close == std::string_view::npos) return make_error(ErrorCode::bad_input, "unterminated string in marker");
      out.push_back({TokenKind::string, std::string(m.substr(i + 1, close - i - 1))});
      i = close + 1;
    } else if (c == '=' || c == '!' || c == '<' || c == '>' || c == '~') {
      static constexpr std::array<std::string_view, 8> ops{"===", "~=", "==", "!=", "<=", ">=", "<", ">"};
      std::string_view found;
      for (auto op : ops)
        if (starts_at(m, i, op)) {
          found = op;
          break;
        }
      if (found.empty()) return make_error(ErrorCode::bad_input, "unknown operator in marker");
      out.push_back({TokenKind::op, std::string(found)});
      i += found.size();
    } else if (is_alnum(c) || c == '_') {
      if (is_digit(c)) return make_error(ErrorCode::bad_input, "unquoted value in marker");
      std::size_t end = i;
      while (end < m.size() && (is_alnum(m[end]) || m[end] == '_' || m[end] == '.')) ++end;
      out.push_back({TokenKind::word, std::string(m.substr(i, end - i))});
      i = end;
    } else {
      return make_error(ErrorCode::bad_input, "unexpected character in marker");
    }
  }
  return out;
}

struct MarkerValue {
  bool variable = false;
  std::string text; // the variable's name or the literal
};
struct MarkerNode {
  enum class Kind { all, any, compare } kind = Kind::compare;
  std::vector<MarkerNode> children; // all (and), any (or)
  MarkerValue lhs, rhs;
  std::string op; // a PEP 440 operator, "in" or "not in"
};

class MarkerParser {
public:
  explicit MarkerParser(const std::vector<Token>& tokens) : tokens_(tokens) {}

  Result<MarkerNode> parse() {
    auto node = parse_or(0);
    if (!node) return node;
    if (pos_ != tokens_.size()) return make_error(ErrorCode::bad_input, "unexpected '" + tokens_[pos_].text + "' in marker");
    return node;
  }

private:
  bool at_word(std::string_view w) const {
    return pos_ < tokens_.size() && tokens_[pos_].kind == TokenKind::word && tokens_[pos_].text == w;
  }

  Result<MarkerNode> parse_or(int depth) {
    auto first = parse_and(depth);
    if (!first || !at_word("or")) return first;
    MarkerNode node;
    node.kind = MarkerNode::Kind::any;
    node.children.push_back(std::move(*first));
    while (at_word("or")) {
      ++pos_;
      auto next = parse_and(depth);
      if (!next) return next;
      node.children.push_back(std::move(*next));
    }
    return node;
  }

  Result<MarkerNode> parse_and(int depth) {
    auto first = parse_atom(depth);
    if (!first || !at_word("and")) return first;
    MarkerNode node;
    node.kind = MarkerNode::Kind::all;
    node.children.push_back(std::move(*first));
    while (at_word("and")) {
      ++pos_;
      auto next = parse_atom(depth);
      if (!next) return next;
      node.children.push_back(std::move(*next));
    }
    return node;
  }

  Result<MarkerNode> parse_atom(int depth) {
    if (pos_ < tokens_.size() && tokens_[pos_].kind == TokenKind::lparen) {
      if (depth >= deepest_nesting) return make_error(ErrorCode::bad_input, "marker nested too deeply");
      ++pos_;
      auto inner = parse_or(depth + 1);
      if (!inner) return inner;
      if (pos_ >= tokens_.size() || tokens_[pos_].kind != TokenKind::rparen)
        return make_error(ErrorCode::bad_input, "unbalanced parentheses in marker");
      ++pos_;
      return inner;
    }
    MarkerNode node;
    auto lhs = parse_value();
    if (!lhs) return lhs.error();
    node.lhs = std::move(*lhs);
    if (pos_ < tokens_.size() && tokens_[pos_].kind == TokenKind::op) {
      node.op = tokens_[pos_++].text;
    } else if (at_word("in")) {
      ++pos_;
      node.op = "in";
    } else if (at_word("not")) {
      ++pos_;
      if (!at_word("in")) return make_error(ErrorCode::bad_input, "'not' without 'in' in marker");
      ++pos_;
      node.op = "not in";
    } else {
      return make_error(ErrorCode::bad_input, "marker comparison without an operator");
    }
    auto rhs = parse_value();
    if (!rhs) return rhs.error();
    node.rhs = std::move(*rhs);
    return node;
  }

  Result<MarkerValue> parse_value() {
    if (pos_ >= tokens_.size()) return make_error(ErrorCode::bad_input, "marker ends where a value should be");
    const Token& t = tokens_[pos_];
    if (t.kind == TokenKind::string) {
      ++pos_;
      return MarkerValue{false, t.text};
    }
    if (t.kind == TokenKind::word && t.text != "and" && t.text != "or" && t.text != "in" && t.text != "not") {
      ++pos_;
      return MarkerValue{true, t.text};
    }
    if (t.kind == TokenKind::rparen) return make_error(ErrorCode::bad_input, "unbalanced parentheses in marker");
    return make_error(ErrorCode::bad_input, "unexpected '" + t.text + "' where a marker value should be");
  }

  const std::vector<Token>& tokens_;
  std::size_t pos_ = 0;
};

Result<MarkerNode> parse_marker(std::string_view marker) {
  if (marker.size() > longest_line) return make_error(ErrorCode::bad_input, "marker longer than 4096 characters");
  if (has_control(marker)) return make_error(ErrorCode::bad_input, "control character in marker");
  if (util::trim(marker).empty()) return make_error(ErrorCode::bad_input, "empty marker");
  auto tokens = tokenize_marker(marker);
  if (!tokens) return tokens.error();
  return MarkerParser(*tokens).parse();
}

// The variables compared as PEP 440 versions (pypa/packaging's markers.py,
// MARKERS_REQUIRING_VERSION).
bool is_version_variable(std::string_view name) {
  return name == "python_version" || name == "python_full_version" || name == "implementation_version" ||
         name == "platform_release";
}

std::string canonical_variable(std::string_view name) {
  // The legacy spellings pypa/packaging still accepts.
  if (name == "os.name") return "os_name";
  if (name == "sys.platform") return "sys_platform";
  if (name == "platform.version") return "platform_version";
  if (name == "platform.machine") return "platform_machine";
  if (name == "platform.python_implementation" || name == "python_implementation")
    return "platform_python_implementation";
  return std::string(name);
}

std::string python_version_of(const MarkerEnvironment& env) {
  if (!env.python_version.empty() || env.python_full_version.empty()) return env.python_version;
  auto parts = util::split(env.python_full_version, ".");
  if (parts.size() < 2 || !all_digits(parts[0]) || !all_digits(parts[1])) return {};
  return parts[0] + "." + parts[1];
}

// A variable's value; nullopt when not known (empty) or not a variable.
std::optional<std::string> variable_value(std::string_view name, const MarkerEnvironment& env) {
  std::string value;
  if (name == "python_version") value = python_version_of(env);
  else if (name == "python_full_version") value = env.python_full_version;
  else if (name == "os_name") value = env.os_name;
  else if (name == "sys_platform") value = env.sys_platform;
  else if (name == "platform_system") value = env.platform_system;
  else if (name == "platform_machine") value = env.platform_machine;
  else if (name == "platform_python_implementation") value = env.platform_python_implementation;
  else if (name == "implementation_name") value = env.implementation_name;
  else if (name == "platform_release") value = env.platform_release;
  else if (name == "platform_version") value = env.platform_version;
  else if (name == "implementation_version")
    value = !env.implementation_version.empty() ? env.implementation_version
            : env.implementation_name == "cpython" ? env.python_full_version // sys.implementation.version
                                                   : std::string();
  if (value.empty()) return std::nullopt;
  return value;
}

std::optional<bool> string_compare(const std::string& l, std::string_view op, const std::string& r) {
  if (op == "==" || op == "===") return l == r;
  if (op == "!=") return l != r;
  if (op == "<") return l < r;
  if (op == "<=") return l <= r;
  if (op == ">") return l > r;
  if (op == ">=") return l >= r;
  if (op == "in") return r.find(l) != std::string::npos;
  if (op == "not in") return r.find(l) == std::string::npos;
  return std::nullopt; // "~=" has no meaning for strings
}

std::optional<bool> evaluate_compare(const MarkerNode& n, const MarkerEnvironment& env) {
  std::string lname = n.lhs.variable ? canonical_variable(n.lhs.text) : std::string();
  std::string rname = n.rhs.variable ? canonical_variable(n.rhs.text) : std::string();

  // extra: a set of installed extras, not one string.
  if ((lname == "extra") != (rname == "extra") && !env.extras.empty()) {
    const MarkerValue& literal = lname == "extra" ? n.rhs : n.lhs;
    if (literal.variable || (n.op != "==" && n.op != "!=")) return std::nullopt;
    std::string wanted = normalize_package_name(literal.text);
    bool installed = std::any_of(env.extras.begin(), env.extras.end(),
                                 [&](const std::string& e) { return normalize_package_name(e) == wanted; });
    return n.op == "==" ? installed : !installed;
  }
  // extras (the set some newer markers name): "x" in extras.
  if (rname == "extras" && !n.lhs.variable && (n.op == "in" || n.op == "not in")) {
    std::string wanted = normalize_package_name(n.lhs.text);
    bool installed = std::any_of(env.extras.begin(), env.extras.end(),
                                 [&](const std::string& e) { return normalize_package_name(e) == wanted; });
    return n.op == "in" ? installed : !installed;
  }

  auto resolve = [&](const MarkerValue& v, const std::string& name) -> std::optional<std::string> {
    if (!v.variable) return v.text;
    if (name == "extra") return env.extras.empty() ? std::optional<std::string>("") : std::nullopt;
    return variable_value(name, env);
  };
  auto lhs = resolve(n.lhs, lname);
  auto rhs = resolve(n.rhs, rname);
  if (!lhs || !rhs) return std::nullopt;
  if (lname == "extra" || rname == "extra") {
    // No extra installed: the value is "", and names compare normalised.
    *lhs = normalize_package_name(*lhs);
    *rhs = normalize_package_name(*rhs);
  }
  if (n.op != "in" && n.op != "not in" && (is_version_variable(lname) || is_version_variable(rname))) {
    // lhs op rhs, read as the specifier "op rhs" applied to lhs (packaging's
    // _eval_op); a literal that is not a PEP 440 version falls back to
    // strings, as PEP 508 says.
    std::string spec = n.op + *rhs;
    if (parse_clause(spec) && (n.op == "===" || parse_pep440(*lhs))) return pep440_satisfies(*lhs, spec);
  }
  return string_compare(*lhs, n.op, *rhs);
}

std::optional<bool> evaluate_node(const MarkerNode& n, const MarkerEnvironment& env) {
  if (n.kind == MarkerNode::Kind::compare) return evaluate_compare(n, env);
  // Kleene's logic: a decisive value wins over unknown.
  bool decisive = n.kind == MarkerNode::Kind::any; // "or": true decides; "and": false decides
  bool unknown = false;
  for (const auto& c : n.children) {
    auto v = evaluate_node(c, env);
    if (!v) unknown = true;
    else if (*v == decisive) return decisive;
  }
  if (unknown) return std::nullopt;
  return !decisive;
}

// ------------------------------------------------------------- conda

// One subcomponent of conda's VersionOrder: an integer, a string (lower
// case; "dev" becomes "DEV" so that it sorts before every other string), or
// "post" (infinity).
struct CondaPart {
  enum class Kind { number, text, infinity } kind = Kind::number;
  std::string text; // digits without leading zeros, or the string
  bool operator==(const CondaPart& o) const { return kind == o.kind && text == o.text; }
};
using CondaComponent = std::vector<CondaPart>;
const CondaPart conda_fill{CondaPart::Kind::number, "0"}; // conda's fillvalue 0: 1.1 == 1.1.0

struct CondaVersion {
  std::vector<CondaComponent> version; // epoch first
  std::vector<CondaComponent> local;
  std::string normal; // lower case, "-" read as "_"
};

bool conda_less(const CondaPart& a, const CondaPart& b) {
  // Called for a != b. Strings sort before numbers (and before post).
  if (a.kind == CondaPart::Kind::text) return b.kind != CondaPart::Kind::text || a.text < b.text;
  if (b.kind == CondaPart::Kind::text) return false;
  if (a.kind == CondaPart::Kind::infinity) return false;
  if (b.kind == CondaPart::Kind::infinity) return true;
  return compare_numbers(a.text, b.text) < 0;
}

const CondaPart& part_at(const CondaComponent& c, std::size_t j) { return j < c.size() ? c[j] : conda_fill; }

// conda's VersionOrder comparison of two component lists: 0 when equal, else
// the sign of the first differing subcomponent.
int compare_component_lists(const std::vector<CondaComponent>& a, const std::vector<CondaComponent>& b) {
  static const CondaComponent empty;
  for (std::size_t k = 0; k < std::max(a.size(), b.size()); ++k) {
    const CondaComponent& x = k < a.size() ? a[k] : empty;
    const CondaComponent& y = k < b.size() ? b[k] : empty;
    for (std::size_t j = 0; j < std::max(x.size(), y.size()); ++j) {
      const CondaPart& p = part_at(x, j);
      const CondaPart& q = part_at(y, j);
      if (p == q) continue;
      return conda_less(p, q) ? -1 : 1;
    }
  }
  return 0;
}

int conda_order(const CondaVersion& a, const CondaVersion& b) {
  int c = compare_component_lists(a.version, b.version);
  return c != 0 ? c : compare_component_lists(a.local, b.local);
}

std::optional<CondaComponent> conda_component(std::string_view text) {
  CondaComponent out;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t end = i;
    auto kind = [](char c) { return is_digit(c) ? 0 : c == '*' ? 1 : 2; };
    int k = kind(text[i]);
    while (end < text.size() && kind(text[end]) == k) ++end;
    std::string_view run = text.substr(i, end - i);
    if (k == 0) out.push_back({CondaPart::Kind::number, strip_zeros(run)});
    else if (run == "post") out.push_back({CondaPart::Kind::infinity, "post"});
    else if (run == "dev") out.push_back({CondaPart::Kind::text, "DEV"});
    else out.push_back({CondaPart::Kind::text, std::string(run)});
    i = end;
  }
  if (out.empty()) return std::nullopt; // an empty component: "1..2"
  if (!is_digit(text[0])) out.insert(out.begin(), conda_fill); // keep numbers and strings in phase
  return out;
}

// conda's VersionOrder.__init__, read at conda/models/version.py.
std::optional<CondaVersion> parse_conda_version(std::string_view text) {
  std::string s = util::to_lower(util::trim(text));
  if (s.empty() || s.size() > longest_version) return std::nullopt;
  auto valid = [](const std::string& v) {
    return std::all_of(v.begin(), v.end(), [](char c) {
      return is_lower_alnum(c) || c == '*' || c == '.' || c == '+' || c == '!' || c == '_';
    });
  };
  if (!valid(s) && s.find('-') != std::string::npos && s.find('_') == std::string::npos)
    std::replace(s.begin(), s.end(), '-', '_');
  if (!valid(s)) return std::nullopt;
  CondaVersion v;
  v.normal = s;

  std::string_view rest = s;
  std::string epoch = "0";
  if (auto bang = rest.find('!'); bang != std::string_view::npos) {
    if (rest.find('!', bang + 1) != std::string_view::npos) return std::nullopt;
    if (!all_digits(rest.substr(0, bang))) return std::nullopt;
    epoch = std::string(rest.substr(0, bang));
    rest = rest.substr(bang + 1);
  }
  std::string_view main = rest;
  if (auto plus = rest.find('+'); plus != std::string_view::npos) {
    if (rest.find('+', plus + 1) != std::string_view::npos) return std::nullopt;
    main = rest.substr(0, plus);
    std::string local(rest.substr(plus + 1));
    std::replace(local.begin(), local.end(), '_', '.');
    for (const auto& part : util::split(local, ".")) {
      auto c = conda_component(part);
      if (!c) return std::nullopt;
      v.local.push_back(std::move(*c));
    }
  }
  if (main.empty()) return std::nullopt;
  std::vector<std::string> parts;
  if (main.back() == '_') {
    // openssl-like "1.0.1_": the trailing underscore stays in the last component.
    std::string m(main.substr(0, main.size() - 1));
    std::replace(m.begin(), m.end(), '_', '.');
    parts = util::split(m, ".");
    parts.back() += "_";
  } else {
    std::string m(main);
    std::replace(m.begin(), m.end(), '_', '.');
    parts = util::split(m, ".");
  }
  v.version.push_back(*conda_component(epoch));
  for (const auto& part : parts) {
    auto c = conda_component(part);
    if (!c) return std::nullopt;
    v.version.push_back(std::move(*c));
  }
  return v;
}

// conda's VersionOrder.startswith: component by component, the last
// component of `prefix` compared up to its last subcomponent, and a last
// string subcomponent as a string prefix ("0.4.1p1" starts with "0.4.1p").
bool conda_startswith(const CondaVersion& v, const CondaVersion& prefix) {
  const std::vector<CondaComponent>* t1 = &v.version;
  const std::vector<CondaComponent>* t2 = &prefix.version;
  if (!prefix.local.empty()) {
    if (compare_component_lists(v.version, prefix.version) != 0) return false;
    t1 = &v.local;
    t2 = &prefix.local;
  }
  if (t2->empty()) return true;
  std::size_t nt = t2->size() - 1;
  std::vector<CondaComponent> head1(t1->begin(), t1->begin() + static_cast<std::ptrdiff_t>(std::min(nt, t1->size())));
  std::vector<CondaComponent> head2(t2->begin(), t2->begin() + static_cast<std::ptrdiff_t>(nt));
  if (compare_component_lists(head1, head2) != 0) return false;
  static const CondaComponent empty;
  const CondaComponent& v1 = t1->size() <= nt ? empty : (*t1)[nt];
  const CondaComponent& v2 = (*t2)[nt];
  if (v2.empty()) return true;
  std::size_t ns = v2.size() - 1;
  CondaComponent sub1(v1.begin(), v1.begin() + static_cast<std::ptrdiff_t>(std::min(ns, v1.size())));
  CondaComponent sub2(v2.begin(), v2.begin() + static_cast<std::ptrdiff_t>(ns));
  if (compare_component_lists({sub1}, {sub2}) != 0) return false;
  const CondaPart& c1 = part_at(v1, ns);
  const CondaPart& c2 = v2[ns];
  if (c2.kind == CondaPart::Kind::text)
    return c1.kind == CondaPart::Kind::text && c1.text.compare(0, c2.text.size(), c2.text) == 0;
  return c1 == c2;
}

// A glob with "*" inside ("1.*.3"): conda turns it into a regular
// expression over the version as written, "*" meaning any run.
bool glob_matches(std::string_view text, std::string_view pattern) {
  std::size_t t = 0, p = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

struct CondaLeaf {
  enum class Kind { any, relation, startswith, not_startswith, glob, exact_text } kind = Kind::any;
  std::string op;          // relation: ==, !=, <, <=, >, >=, ~=
  CondaVersion version;    // relation, startswith
  CondaVersion compatible; // "~=": the version without its last "." part
  std::string text;        // glob, exact_text
};
struct CondaNode {
  enum class Kind { leaf, all, any } kind = Kind::leaf;
  std::vector<CondaNode> children;
  CondaLeaf leaf;
};

bool is_operator_char(char c) { return c == '=' || c == '<' || c == '>' || c == '!' || c == '~'; }

// One version spec without "|", "," or parentheses: conda's
// VersionSpec.get_matcher for a string.
std::optional<CondaLeaf> compile_conda_leaf(std::string_view s) {
  CondaLeaf leaf;
  if (s.empty() || std::any_of(s.begin(), s.end(), is_space)) return std::nullopt;
  if (is_operator_char(s[0])) {
    // "(=|==|!=|<=|>=|<|>|~=)(?![=<>!~])(\S+)": the operator is followed by
    // neither another operator character nor nothing.
    static constexpr std::array<std::string_view, 8> ops{"==", "!=", "<=", ">=", "~=", "<", ">", "="};
    std::string_view op;
    for (auto o : ops)
      if (starts_at(s, 0, o) && s.size() > o.size() && !is_operator_char(s[o.size()])) {
        op = o;
        break;
      }
    if (op.empty()) return std::nullopt;
    std::string_view rest = s.substr(op.size());
    leaf.op = std::string(op);
    leaf.kind = CondaLeaf::Kind::relation;
    if (rest.size() >= 2 && rest.substr(rest.size() - 2) == ".*") {
      // "=1.2.*" and ">=1.2.*" drop the ".*"; "!=1.2.*" means "does not
      // start with"; "~=1.2.*" is an error; the others drop it (deprecated).
      if (op == "~=") return std::nullopt;
      rest.remove_suffix(2);
      if (op == "!=") leaf.kind = CondaLeaf::Kind::not_startswith;
    }
    if (op == "=") leaf.kind = CondaLeaf::Kind::startswith;
    auto v = parse_conda_version(rest);
    if (!v) return std::nullopt;
    leaf.version = std::move(*v);
    if (op == "~=") {
      // compatible_release_operator: >= V and starts with V minus its last "." part.
      auto dot = leaf.version.normal.rfind('.');
      if (dot == std::string::npos) return std::nullopt; // conda raises: an empty version
      auto c = parse_conda_version(std::string_view(leaf.version.normal).substr(0, dot));
      if (!c) return std::nullopt;
      leaf.compatible = std::move(*c);
    }
    return leaf;
  }
  std::string_view trimmed = s;
  while (!trimmed.empty() && trimmed.back() == '*') trimmed.remove_suffix(1);
  if (trimmed.empty()) return leaf; // "*": any
  if (trimmed.find('*') != std::string_view::npos) {
    // Only what conda's glob-to-regex leaves literal is accepted.
    if (!std::all_of(s.begin(), s.end(), [](char c) {
          return is_alnum(c) || c == '.' || c == '_' || c == '+' || c == '!' || c == '*' || c == '-';
        }))
      return std::nullopt;
    leaf.kind = CondaLeaf::Kind::glob;
    leaf.text = std::string(s);
    return leaf;
  }
  if (s.back() == '*') {
    // "1.2*" and "1.2.*": starts with 1.2.
    std::string_view prefix = trimmed;
    while (!prefix.empty() && prefix.back() == '.') prefix.remove_suffix(1);
    auto v = parse_conda_version(prefix);
    if (!v) return std::nullopt;
    leaf.kind = CondaLeaf::Kind::startswith;
    leaf.version = std::move(*v);
    return leaf;
  }
  if (s.find('@') != std::string_view::npos) {
    leaf.kind = CondaLeaf::Kind::exact_text;
    leaf.text = std::string(s);
    return leaf;
  }
  // A bare version is an exact match (VersionOrder equality, 1.2 == 1.2.0).
  auto v = parse_conda_version(s);
  if (!v) return std::nullopt;
  leaf.kind = CondaLeaf::Kind::relation;
  leaf.op = "==";
  leaf.version = std::move(*v);
  return leaf;
}

// conda's treeify: "," (and) binds tighter than "|" (or); parentheses group.
class CondaSpecParser {
public:
  explicit CondaSpecParser(std::string_view s) : s_(s) {}

  std::optional<CondaNode> parse() {
    auto node = parse_or(0);
    skip_space();
    if (!node || pos_ != s_.size()) return std::nullopt;
    return node;
  }

private:
  void skip_space() {
    while (pos_ < s_.size() && is_space(s_[pos_])) ++pos_;
  }
  bool take(char c) {
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::optional<CondaNode> parse_list(int depth, char separator, CondaNode::Kind kind) {
    auto first = separator == '|' ? parse_list(depth, ',', CondaNode::Kind::all) : parse_atom(depth);
    if (!first) return std::nullopt;
    CondaNode node;
    node.kind = kind;
    node.children.push_back(std::move(*first));
    while (take(separator)) {
      auto next = separator == '|' ? parse_list(depth, ',', CondaNode::Kind::all) : parse_atom(depth);
      if (!next) return std::nullopt;
      node.children.push_back(std::move(*next));
    }
    if (node.children.size() == 1) return std::move(node.children.front());
    return node;
  }
  std::optional<CondaNode> parse_or(int depth) { return parse_list(depth, '|', CondaNode::Kind::any); }
  std::optional<CondaNode> parse_atom(int depth) {
    if (take('(')) {
      if (depth >= deepest_nesting) return std::nullopt;
      auto inner = parse_or(depth + 1);
      if (!inner || !take(')')) return std::nullopt;
      return inner;
    }
    skip_space();
    std::size_t end = pos_;
    while (end < s_.size() && s_[end] != '(' && s_[end] != ')' && s_[end] != '|' && s_[end] != ',') ++end;
    auto leaf = compile_conda_leaf(util::trim(s_.substr(pos_, end - pos_)));
    if (!leaf) return std::nullopt;
    pos_ = end;
    CondaNode node;
    node.leaf = std::move(*leaf);
    return node;
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

bool conda_leaf_holds(const CondaLeaf& l, const CondaVersion& v, std::string_view raw) {
  switch (l.kind) {
  case CondaLeaf::Kind::any: return true;
  case CondaLeaf::Kind::startswith: return conda_startswith(v, l.version);
  case CondaLeaf::Kind::not_startswith: return !conda_startswith(v, l.version);
  case CondaLeaf::Kind::glob: return glob_matches(raw, l.text);
  case CondaLeaf::Kind::exact_text: return raw == l.text;
  case CondaLeaf::Kind::relation: break;
  }
  int c = conda_order(v, l.version);
  if (l.op == "==") return c == 0;
  if (l.op == "!=") return c != 0;
  if (l.op == "<") return c < 0;
  if (l.op == "<=") return c <= 0;
  if (l.op == ">") return c > 0;
  if (l.op == ">=") return c >= 0;
  return c >= 0 && conda_startswith(v, l.compatible); // "~="
}

bool conda_node_holds(const CondaNode& n, const CondaVersion& v, std::string_view raw) {
  if (n.kind == CondaNode::Kind::leaf) return conda_leaf_holds(n.leaf, v, raw);
  if (n.kind == CondaNode::Kind::all)
    return std::all_of(n.children.begin(), n.children.end(), [&](const CondaNode& c) { return conda_node_holds(c, v, raw); });
  return std::any_of(n.children.begin(), n.children.end(), [&](const CondaNode& c) { return conda_node_holds(c, v, raw); });
}

bool is_conda_regex(std::string_view spec) {
  return spec.find('^') != std::string_view::npos || spec.find('$') != std::string_view::npos;
}

// conda's match_spec._sanitize_version_str.
std::string sanitize_conda_version(std::string version, bool has_build) {
  if (version == "==" || version == "=" || version.empty() || version[0] != '=') return version;
  auto first = version.find_first_not_of('=');
  if (first == std::string::npos) return version; // "===": left for the spec parser to refuse
  std::string without = version.substr(first);
  if (version.compare(0, 2, "==") == 0 && !has_build) return without;
  if (without.find_first_of("=,|") == std::string::npos) {
    if (!has_build && without.back() != '*') return without + "*";
    return without;
  }
  return version;
}

bool has_any_of(std::string_view s, std::string_view chars) { return s.find_first_of(chars) != std::string_view::npos; }

} // namespace

// ================================================================ PEP 440

std::string Pep440Version::public_string() const {
  std::string out;
  if (epoch != "0") out += epoch + "!";
  out += util::join(release, ".");
  if (!pre_label.empty()) out += pre_label + pre_number;
  if (post) out += ".post" + *post;
  if (dev) out += ".dev" + *dev;
  return out;
}

std::string Pep440Version::to_string() const {
  std::string out = public_string();
  if (!local.empty()) out += "+" + util::join(local, ".");
  return out;
}

std::optional<Pep440Version> parse_pep440(std::string_view text) {
  text = util::trim(text);
  if (text.empty() || text.size() > longest_version) return std::nullopt;
  const std::string s = util::to_lower(text);
  std::size_t i = 0;
  if (s[i] == 'v') ++i;
  Pep440Version v;

  std::size_t n = digits_at(s, i);
  if (n > 0 && i + n < s.size() && s[i + n] == '!') {
    v.epoch = strip_zeros(std::string_view(s).substr(i, n));
    i += n + 1;
  }
  n = digits_at(s, i);
  if (n == 0) return std::nullopt;
  v.release.push_back(strip_zeros(std::string_view(s).substr(i, n)));
  i += n;
  while (i < s.size() && s[i] == '.' && (n = digits_at(s, i + 1)) > 0) {
    v.release.push_back(strip_zeros(std::string_view(s).substr(i + 1, n)));
    i += n + 1;
  }

  { // pre-release: [sep](a|b|c|rc|alpha|beta|pre|preview)[sep][N]
    std::size_t p = i + (is_separator_at(s, i) ? 1 : 0);
    auto l = label_at(s, p, {"alpha", "beta", "preview", "pre", "rc", "a", "b", "c"});
    if (!l.empty()) {
      p += l.size();
      v.pre_label = l == "alpha" || l == "a" ? "a" : l == "beta" || l == "b" ? "b" : "rc";
      v.pre_number = number_after_label(s, p);
      i = p;
    }
  }
  { // post-release: -N, or [sep](post|rev|r)[sep][N]
    if (i < s.size() && s[i] == '-' && (n = digits_at(s, i + 1)) > 0) {
      v.post = strip_zeros(std::string_view(s).substr(i + 1, n));
      i += n + 1;
    } else {
      std::size_t p = i + (is_separator_at(s, i) ? 1 : 0);
      auto l = label_at(s, p, {"post", "rev", "r"});
      if (!l.empty()) {
        p += l.size();
        v.post = number_after_label(s, p);
        i = p;
      }
    }
  }
  { // development release: [sep]dev[sep][N]
    std::size_t p = i + (is_separator_at(s, i) ? 1 : 0);
    if (starts_at(s, p, "dev")) {
      p += 3;
      v.dev = number_after_label(s, p);
      i = p;
    }
  }
  if (i < s.size() && s[i] == '+') { // local: [a-z0-9]+ ([-_.][a-z0-9]+)*
    ++i;
    while (true) {
      std::size_t end = i;
      while (end < s.size() && is_lower_alnum(s[end])) ++end;
      if (end == i) return std::nullopt;
      std::string_view segment = std::string_view(s).substr(i, end - i);
      v.local.push_back(all_digits(segment) ? strip_zeros(segment) : std::string(segment));
      i = end;
      if (!is_separator_at(s, i)) break;
      ++i;
    }
  }
  if (i != s.size()) return std::nullopt;
  return v;
}

int compare(const Pep440Version& a, const Pep440Version& b) {
  if (int c = compare_numbers(a.epoch, b.epoch)) return c;
  for (std::size_t k = 0; k < std::max(a.release.size(), b.release.size()); ++k) {
    std::string_view x = k < a.release.size() ? std::string_view(a.release[k]) : "0";
    std::string_view y = k < b.release.size() ? std::string_view(b.release[k]) : "0";
    if (int c = compare_numbers(x, y)) return c;
  }
  // Pre-release: a bare ".devN" sorts before every pre-release of its
  // release; no pre-release sorts after all of them.
  auto pre_tier = [](const Pep440Version& v) {
    if (v.pre_label.empty()) return !v.post && v.dev ? 0 : 2;
    return 1;
  };
  if (int c = pre_tier(a) - pre_tier(b)) return c < 0 ? -1 : 1;
  if (!a.pre_label.empty()) {
    // "a" < "b" < "rc", which is also their alphabetical order.
    if (int c = compare_text(a.pre_label, b.pre_label)) return c;
    if (int c = compare_numbers(a.pre_number, b.pre_number)) return c;
  }
  // Post-release: none sorts first.
  if (a.post.has_value() != b.post.has_value()) return a.post ? 1 : -1;
  if (a.post)
    if (int c = compare_numbers(*a.post, *b.post)) return c;
  // Development release: none sorts last.
  if (a.dev.has_value() != b.dev.has_value()) return a.dev ? -1 : 1;
  if (a.dev)
    if (int c = compare_numbers(*a.dev, *b.dev)) return c;
  // Local: none sorts first; numeric segments after alphanumeric ones; a
  // longer label after its own prefix.
  for (std::size_t k = 0; k < std::min(a.local.size(), b.local.size()); ++k) {
    bool xn = all_digits(a.local[k]), yn = all_digits(b.local[k]);
    if (xn != yn) return xn ? 1 : -1;
    if (int c = xn ? compare_numbers(a.local[k], b.local[k]) : compare_text(a.local[k], b.local[k])) return c;
  }
  if (a.local.size() != b.local.size()) return a.local.size() < b.local.size() ? -1 : 1;
  return 0;
}

std::optional<bool> pep440_satisfies(std::string_view version, std::string_view specifiers) {
  auto clauses = parse_clauses(specifiers);
  if (!clauses) return std::nullopt;
  if (util::trim(version).empty()) return std::nullopt;
  bool arbitrary_only = !clauses->empty() && std::all_of(clauses->begin(), clauses->end(),
                                                         [](const Clause& c) { return c.op == "==="; });
  Pep440Version v;
  if (!arbitrary_only) {
    auto parsed = parse_pep440(version);
    if (!parsed) return std::nullopt;
    v = std::move(*parsed);
  }
  for (const auto& c : *clauses)
    if (!clause_holds(c, v, version)) return false;
  return true;
}

std::optional<std::string> normalize_pep440_specifiers(std::string_view specifiers) {
  auto clauses = parse_clauses(specifiers);
  if (!clauses) return std::nullopt;
  std::vector<std::string> parts;
  for (const auto& c : *clauses) parts.push_back(c.normal());
  return util::join(parts, ",");
}

// ================================================================ PEP 508

Result<Requirement> parse_requires_dist(std::string_view text) {
  if (text.size() > longest_line) return make_error(ErrorCode::bad_input, "requirement longer than 4096 characters");
  if (has_control(text)) return make_error(ErrorCode::bad_input, "control character in requirement");
  std::string_view t = util::trim(text);
  if (t.empty()) return make_error(ErrorCode::bad_input, "empty requirement");
  Requirement r;
  r.text = std::string(t);

  // name = [A-Za-z0-9] ([A-Za-z0-9._-]* [A-Za-z0-9])?
  auto name_length = [](std::string_view s) -> std::size_t {
    if (s.empty() || !is_alnum(s[0])) return 0;
    std::size_t end = 0;
    while (end < s.size() && (is_alnum(s[end]) || s[end] == '-' || s[end] == '_' || s[end] == '.')) ++end;
    while (end > 0 && !is_alnum(s[end - 1])) --end;
    return end;
  };
  std::size_t n = name_length(t);
  if (n == 0) return make_error(ErrorCode::bad_input, "requirement without a package name");
  r.name = normalize_package_name(t.substr(0, n));
  std::string_view rest = util::trim(t.substr(n));

  if (!rest.empty() && rest[0] == '[') {
    auto close = rest.find(']');
    if (close == std::string_view::npos) return make_error(ErrorCode::bad_input, "unbalanced brackets in requirement");
    std::string_view inner = util::trim(rest.substr(1, close - 1));
    if (!inner.empty())
      for (const auto& e : util::split(inner, ",")) {
        std::string_view extra = util::trim(e);
        if (extra.empty() || name_length(extra) != extra.size())
          return make_error(ErrorCode::bad_input, "malformed extra in requirement");
        r.extras.push_back(normalize_package_name(extra));
      }
    rest = util::trim(rest.substr(close + 1));
  }

  std::string_view marker;
  bool has_marker = false;
  if (!rest.empty() && rest[0] == '@') {
    // name @ url [ ; marker]: the URL runs to whitespace, and a marker
    // needs whitespace before its ";" (PEP 508's url_req).
    rest = util::trim(rest.substr(1));
    std::size_t end = 0;
    while (end < rest.size() && !is_space(rest[end])) ++end;
    if (end == 0) return make_error(ErrorCode::bad_input, "requirement with '@' but no URL");
    r.url = std::string(rest.substr(0, end));
    rest = util::trim(rest.substr(end));
    if (!rest.empty()) {
      if (rest[0] != ';') return make_error(ErrorCode::bad_input, "unexpected text after the URL");
      marker = rest.substr(1);
      has_marker = true;
    }
  } else {
    auto semicolon = rest.find(';');
    std::string_view spec = util::trim(rest.substr(0, semicolon));
    if (semicolon != std::string_view::npos) {
      marker = rest.substr(semicolon + 1);
      has_marker = true;
    }
    if (!spec.empty() && spec.front() == '(') {
      if (spec.back() != ')') return make_error(ErrorCode::bad_input, "unbalanced parentheses in requirement");
      spec = util::trim(spec.substr(1, spec.size() - 2));
    }
    if (has_any_of(spec, "()")) return make_error(ErrorCode::bad_input, "unbalanced parentheses in requirement");
    auto normal = normalize_pep440_specifiers(spec);
    if (!normal)
      return make_error(ErrorCode::bad_input, "malformed version specifier '" + util::terminal_safe(spec.substr(0, 80)) + "'");
    r.specifiers = std::move(*normal);
  }
  if (has_marker) {
    marker = util::trim(marker);
    if (marker.empty()) return make_error(ErrorCode::bad_input, "';' without a marker");
    auto parsed = parse_marker(marker);
    if (!parsed) return parsed.error();
    r.marker = std::string(marker);
  }
  return r;
}

Result<std::optional<bool>> evaluate_marker(std::string_view marker, const MarkerEnvironment& env) {
  auto parsed = parse_marker(marker);
  if (!parsed) return parsed.error();
  return evaluate_node(*parsed, env);
}

std::optional<bool> applies(const Requirement& r, const MarkerEnvironment& env) {
  if (r.marker.empty()) return true;
  auto v = evaluate_marker(r.marker, env);
  if (!v) return std::nullopt;
  return *v;
}

// ================================================================ conda

Result<Requirement> parse_conda_match_spec(std::string_view spec) {
  if (spec.size() > longest_line) return make_error(ErrorCode::bad_input, "match spec longer than 4096 characters");
  if (has_control(spec)) return make_error(ErrorCode::bad_input, "control character in match spec");
  Requirement r;
  r.kind = Requirement::Kind::conda;
  std::string_view s = util::trim(spec);
  r.text = std::string(s);
  s = util::trim(s.substr(0, s.find('#'))); // a comment
  if (s.empty()) return make_error(ErrorCode::bad_input, "empty match spec");
  if (has_any_of(s, "[]()"))
    return make_error(ErrorCode::unsupported, "match spec with a bracket or parenthesis section");
  // "channel::name ...", "channel/subdir::name ...": the channel is cut off
  // (conda's rsplit(":", 2)).
  if (auto colon = s.rfind(':'); colon != std::string_view::npos) s = s.substr(colon + 1);

  std::size_t name_end = 0;
  while (name_end < s.size() && !is_space(s[name_end]) && !is_operator_char(s[name_end])) ++name_end;
  std::string_view name = s.substr(0, name_end);
  if (name.empty()) return make_error(ErrorCode::bad_input, "match spec without a package name");
  if (!std::all_of(name.begin(), name.end(), [](char c) { return is_alnum(c) || c == '-' || c == '_' || c == '.'; }))
    return make_error(ErrorCode::bad_input, "malformed package name in match spec");
  r.name = util::to_lower(name);

  // Version and build (conda's _parse_version_plus_build): the build is the
  // last word when the word before it does not end with an operator, or
  // follows the last "=" of a single word ("1.2.3=py27_0").
  std::vector<std::string> words;
  for (const auto& w : util::split(util::trim(s.substr(name_end)), " \t"))
    if (!w.empty()) words.push_back(w);
  bool has_build = false;
  constexpr std::string_view build_forbidden = "-=,|<>~";
  constexpr std::string_view operator_end = "=!|,<>~";
  auto build_word = [&](std::string_view w) { // "py34_0", or "=py34_0" after a space
    if (w.size() > 1 && w[0] == '=') w.remove_prefix(1);
    return !has_any_of(w, build_forbidden);
  };
  if (words.size() >= 2 && build_word(words.back()) &&
      operator_end.find(words[words.size() - 2].back()) == std::string_view::npos) {
    words.pop_back();
    has_build = true;
  } else if (words.size() == 1) {
    const std::string& w = words.front();
    auto eq = w.rfind('=');
    if (eq != std::string::npos && eq > 0 && eq + 1 < w.size() && operator_end.find(w[eq - 1]) == std::string_view::npos &&
        !has_any_of(std::string_view(w).substr(eq + 1), build_forbidden)) {
      words.front() = w.substr(0, eq);
      has_build = true;
    }
  }
  std::string version;
  constexpr std::string_view joiners = ",|<>=!~";
  for (std::size_t k = 0; k < words.size(); ++k) {
    if (k > 0 && joiners.find(words[k - 1].back()) == std::string_view::npos &&
        joiners.find(words[k].front()) == std::string_view::npos)
      return make_error(ErrorCode::bad_input, "match spec with version parts not joined by an operator");
    version += words[k];
  }
  version = sanitize_conda_version(std::move(version), has_build);
  if (version == "*") version.clear();
  if (!version.empty() && !is_conda_regex(version) && !CondaSpecParser(version).parse())
    return make_error(ErrorCode::bad_input, "malformed version spec '" + util::terminal_safe(version.substr(0, 80)) + "'");
  r.specifiers = std::move(version);
  return r;
}

std::optional<int> conda_compare(std::string_view a, std::string_view b) {
  auto x = parse_conda_version(a);
  auto y = parse_conda_version(b);
  if (!x || !y) return std::nullopt;
  return conda_order(*x, *y);
}

std::optional<bool> conda_satisfies(std::string_view version, std::string_view version_spec) {
  if (version_spec.size() > longest_line || has_control(version_spec)) return std::nullopt;
  auto v = parse_conda_version(version);
  if (!v) return std::nullopt;
  std::string_view spec = util::trim(version_spec);
  if (spec.empty()) return true;
  if (is_conda_regex(spec)) return std::nullopt; // regular expressions are not evaluated
  auto tree = CondaSpecParser(spec).parse();
  if (!tree) return std::nullopt;
  return conda_node_holds(*tree, *v, util::trim(version));
}

std::optional<bool> satisfies(const Requirement& r, std::string_view version) {
  if (r.kind == Requirement::Kind::conda) return conda_satisfies(version, r.specifiers);
  return pep440_satisfies(version, r.specifiers);
}

} // namespace condacuda::inventory
