#include "frameworks/recipes.hpp"

#include "inventory/requirements.hpp"
#include "util/yaml.hpp"

namespace condacuda::frameworks {

const char* to_string(StepKind kind) {
  switch (kind) {
  case StepKind::open: return "open";
  case StepKind::raise_unless_named: return "raise_unless_named";
  case StepKind::preload: return "preload";
  case StepKind::guard: return "guard";
  case StepKind::import_module: return "import";
  case StepKind::import_all: return "import_all";
  case StepKind::preload_modules: return "preload_modules";
  case StepKind::import_first: return "import_first";
  case StepKind::load_sonames: return "load_sonames";
  case StepKind::cupy_preload: return "cupy_preload";
  }
  return "";
}

const Recipe* Framework::recipe_for(const std::string& version) const {
  for (const auto& r : recipes)
    if (inventory::pep440_satisfies(version, r.releases).value_or(false)) return &r;
  return nullptr;
}

const Framework* RecipeBook::find(const std::string& name) const {
  for (const auto& f : frameworks)
    if (f.name == name) return &f;
  return nullptr;
}

namespace {
Error bad(const std::string& source, const std::string& what) { return make_error(ErrorCode::corrupt, what, source); }
std::string at(const YAML::Node& n) { return util::yaml_position(n.Mark()); }

Result<std::string> scalar(const YAML::Node& parent, const char* key, const std::string& source) {
  YAML::Node v = parent[key];
  if (!v || !v.IsScalar()) return bad(source, std::string("'") + key + "' is missing or not a scalar at " + at(parent));
  return v.Scalar();
}

Result<std::vector<std::string>> scalars(const YAML::Node& node, const std::string& what, const std::string& source) {
  if (!node || !node.IsSequence()) return bad(source, what + " is not a list at " + at(node));
  std::vector<std::string> out;
  for (const auto& v : node) {
    if (!v.IsScalar()) return bad(source, what + " has an entry that is not a scalar at " + at(v));
    out.push_back(v.Scalar());
  }
  return out;
}

const std::map<std::string, StepKind>& step_keys() {
  static const std::map<std::string, StepKind> keys{
      {"open", StepKind::open},
      {"raise_unless_named", StepKind::raise_unless_named},
      {"preload", StepKind::preload},
      {"guard", StepKind::guard},
      {"import", StepKind::import_module},
      {"import_all", StepKind::import_all},
      {"preload_modules", StepKind::preload_modules},
      {"import_first", StepKind::import_first},
      {"load_sonames", StepKind::load_sonames},
      {"cupy_preload", StepKind::cupy_preload},
  };
  return keys;
}

Result<std::vector<Step>> parse_steps(const YAML::Node& node, const std::string& source, int depth);

Result<Step> parse_step(const YAML::Node& node, const std::string& source, int depth) {
  if (!node.IsMap()) return bad(source, "a step is not a mapping at " + at(node));
  Step step;
  int actions = 0;
  for (const auto& [key, kind] : step_keys()) {
    if (!node[key]) continue;
    ++actions;
    step.kind = kind;
    if (kind == StepKind::guard) {
      auto body = parse_steps(node[key], source, depth + 1);
      if (!body) return body.error();
      step.body = std::move(*body);
    } else if (kind == StepKind::import_first) {
      auto modules = scalars(node[key], "'import_first'", source);
      if (!modules) return modules.error();
      step.modules = std::move(*modules);
    } else {
      auto arg = scalar(node, key.c_str(), source);
      if (!arg) return arg.error();
      step.arg = *arg;
    }
  }
  if (actions != 1) return bad(source, "a step needs exactly one action at " + at(node));
  if (node["mode"]) {
    auto mode = scalar(node, "mode", source);
    if (!mode || (*mode != "global" && *mode != "local")) return bad(source, "'mode' is not global or local at " + at(node));
    step.mode = *mode == "global" ? loader::Visibility::global : loader::Visibility::local;
  }
  if (node["missing"]) {
    auto missing = scalar(node, "missing", source);
    if (!missing || (*missing != "raise" && *missing != "skip")) return bad(source, "'missing' is not raise or skip at " + at(node));
    step.missing = *missing == "raise" ? Missing::raise : Missing::skip;
  }
  if (node["when_maps_contains"]) {
    auto text = scalar(node, "when_maps_contains", source);
    if (!text) return text.error();
    step.when_maps_contains = *text;
  }
  if (node["pathfinder"]) step.pathfinder = node["pathfinder"].as<bool>();
  if (node["on_error"]) {
    if (step.kind != StepKind::open) return bad(source, "'on_error' belongs to an open step at " + at(node));
    auto body = parse_steps(node["on_error"], source, depth + 1);
    if (!body) return body.error();
    step.body = std::move(*body);
  }
  return step;
}

Result<std::vector<Step>> parse_steps(const YAML::Node& node, const std::string& source, int depth) {
  if (depth > 8) return bad(source, "steps nested more than 8 deep at " + at(node));
  if (!node || !node.IsSequence()) return bad(source, "'steps' is not a list at " + at(node));
  std::vector<Step> out;
  for (const auto& s : node) {
    auto step = parse_step(s, source, depth);
    if (!step) return step.error();
    out.push_back(std::move(*step));
  }
  return out;
}

Result<Recipe> parse_recipe(const YAML::Node& node, const Framework& f, const std::string& source) {
  if (!node.IsMap()) return bad(source, "a recipe is not a mapping at " + at(node));
  Recipe r;
  for (auto [key, field] : {std::pair{"id", &r.id}, std::pair{"releases", &r.releases}, std::pair{"source", &r.source}}) {
    auto v = scalar(node, key, source);
    if (!v) return v.error();
    *field = *v;
  }
  if (!inventory::normalize_pep440_specifiers(r.releases))
    return bad(source, "recipe " + r.id + ": releases '" + r.releases + "' are not PEP 440 specifiers");
  if (node["inferred"]) r.inferred = node["inferred"].as<bool>();
  if (node["search"]) {
    auto s = scalar(node, "search", source);
    if (!s) return s.error();
    if (!f.searches.count(*s)) return bad(source, "recipe " + r.id + ": no search named '" + *s + "'");
    r.search = *s;
  }
  auto steps = parse_steps(node["steps"], source, 0);
  if (!steps) return steps.error();
  r.steps = std::move(*steps);
  return r;
}

Status parse_lists(const YAML::Node& node, Framework& f, const std::string& source) {
  if (!node) return ok_status();
  if (!node.IsMap()) return bad(source, f.name + ": 'lists' is not a mapping at " + at(node));
  for (const auto& kv : node) {
    auto& rows = f.lists[kv.first.as<std::string>()];
    if (!kv.second.IsSequence()) return bad(source, f.name + ": a list is not a list at " + at(kv.second));
    for (const auto& row : kv.second) {
      auto values = scalars(row, "a list row", source);
      if (!values) return values.error();
      if (values->empty()) return bad(source, f.name + ": an empty list row at " + at(row));
      rows.push_back(std::move(*values));
    }
  }
  return ok_status();
}

Status parse_searches(const YAML::Node& node, Framework& f, const std::string& source) {
  if (!node) return ok_status();
  if (!node.IsMap()) return bad(source, f.name + ": 'searches' is not a mapping at " + at(node));
  for (const auto& kv : node) {
    Search s;
    if (kv.second["requires"]) s.requires_folder = kv.second["requires"].as<std::string>();
    auto globs = scalars(kv.second["globs"], "'globs'", source);
    if (!globs) return globs.error();
    s.globs = std::move(*globs);
    f.searches[kv.first.as<std::string>()] = std::move(s);
  }
  return ok_status();
}

Result<Framework> parse_framework(const YAML::Node& node, const std::string& source) {
  if (!node.IsMap()) return bad(source, "a framework is not a mapping at " + at(node));
  Framework f;
  for (auto [key, field] : {std::pair{"name", &f.name}, std::pair{"statement", &f.statement}, std::pair{"module", &f.module}}) {
    auto v = scalar(node, key, source);
    if (!v) return v.error();
    *field = *v;
  }
  auto dists = scalars(node["distributions"], "'distributions'", source);
  if (!dists) return dists.error();
  f.distributions = std::move(*dists);
  auto failure = scalar(node, "failure", source);
  if (!failure || (*failure != "import-error" && *failure != "cpu-fallback"))
    return bad(source, f.name + ": 'failure' is not import-error or cpu-fallback");
  f.failure = *failure == "import-error" ? FailureMeans::import_error : FailureMeans::cpu_fallback;
  if (auto s = parse_lists(node["lists"], f, source); !s) return s.error();
  if (auto s = parse_searches(node["searches"], f, source); !s) return s.error();
  if (!node["recipes"] || !node["recipes"].IsSequence()) return bad(source, f.name + ": 'recipes' is not a list");
  for (const auto& r : node["recipes"]) {
    auto recipe = parse_recipe(r, f, source);
    if (!recipe) return recipe.error();
    f.recipes.push_back(std::move(*recipe));
  }
  return f;
}

Status parse_pathfinder(const YAML::Node& node, RecipeBook& book, const std::string& source) {
  if (!node) return ok_status();
  if (!node.IsMap()) return bad(source, "'pathfinder' is not a mapping at " + at(node));
  for (const auto& kv : node) {
    PathfinderLib lib;
    for (auto [key, field] : {std::pair{"sonames", &lib.sonames}, std::pair{"dirs", &lib.dirs}, std::pair{"deps", &lib.deps}}) {
      if (!kv.second[key] && std::string(key) == "deps") continue;
      auto v = scalars(kv.second[key], std::string("'") + key + "'", source);
      if (!v) return v.error();
      *field = std::move(*v);
    }
    book.pathfinder[kv.first.as<std::string>()] = std::move(lib);
  }
  return ok_status();
}
} // namespace

Result<RecipeBook> parse_recipes(std::string_view yaml_text, const std::string& source_name) {
  auto loaded = util::load_yaml(yaml_text);
  if (!loaded) return bad(source_name, loaded.error().message);
  try {
    const YAML::Node& root = *loaded;
    if (!root.IsMap() || !root["version"] || root["version"].as<std::string>() != "1")
      return bad(source_name, "not a condacuda recipe book (expected a mapping starting with 'version: 1')");
    RecipeBook book;
    if (!root["frameworks"] || !root["frameworks"].IsSequence()) return bad(source_name, "'frameworks' is missing or not a list");
    for (const auto& f : root["frameworks"]) {
      auto framework = parse_framework(f, source_name);
      if (!framework) return framework.error();
      book.frameworks.push_back(std::move(*framework));
    }
    if (auto s = parse_pathfinder(root["pathfinder"], book, source_name); !s) return s.error();
    return book;
  } catch (const YAML::Exception& e) {
    return bad(source_name, "ill-typed value at " + util::yaml_position(e.mark) + ": " + e.msg);
  }
}

} // namespace condacuda::frameworks
