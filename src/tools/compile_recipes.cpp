// Build-time program: turns templates/frameworks.yml into C++ that builds the
// same frameworks::RecipeBook (frameworks::compiled_recipe_book,
// frameworks/recipes.hpp). yaml-cpp took 3.3 ms on the book, as long as a
// whole repeated doctor run of the demo env; the parse now happens once,
// here, with the parser the tests check the book with, and a broken book
// fails the build.
//   usage: condacuda_compile_recipes FRAMEWORKS.yml OUT.cpp
#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "frameworks/recipes.hpp"
#include "tools/cpp_literal.hpp"

namespace {
using namespace condacuda::frameworks;
using condacuda::tools::cpp_literal;

std::string strings(const std::vector<std::string>& v) {
  std::string out = "{";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + cpp_literal(v[i]);
  return out + "}";
}

std::string steps(const std::vector<Step>& v);

// A Step as an aggregate: kind, arg, mode, missing, body, when_maps_contains, modules, pathfinder.
std::string step(const Step& s) {
  std::ostringstream o;
  o << "Step{StepKind(" << static_cast<int>(s.kind) << "), " << cpp_literal(s.arg) << ", loader::Visibility("
    << static_cast<int>(s.mode) << "), Missing(" << static_cast<int>(s.missing) << "), " << steps(s.body) << ", "
    << cpp_literal(s.when_maps_contains) << ", " << strings(s.modules) << ", " << (s.pathfinder ? "true" : "false") << "}";
  return o.str();
}

std::string steps(const std::vector<Step>& v) {
  std::string out = "std::vector<Step>{";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + step(v[i]);
  return out + "}";
}

void framework(std::ostringstream& s, const Framework& f) {
  s << "  {\n    Framework f;\n"
    << "    f.name = " << cpp_literal(f.name) << ";\n"
    << "    f.statement = " << cpp_literal(f.statement) << ";\n"
    << "    f.module = " << cpp_literal(f.module) << ";\n"
    << "    f.distributions = " << strings(f.distributions) << ";\n"
    << "    f.failure = FailureMeans(" << static_cast<int>(f.failure) << ");\n";
  for (const auto& [name, rows] : f.lists) {
    s << "    f.lists[" << cpp_literal(name) << "] = {";
    for (std::size_t i = 0; i < rows.size(); ++i) s << (i ? ", " : "") << strings(rows[i]);
    s << "};\n";
  }
  for (const auto& [name, search] : f.searches)
    s << "    f.searches[" << cpp_literal(name) << "] = Search{" << cpp_literal(search.requires_folder) << ", "
      << strings(search.globs) << "};\n";
  for (const auto& r : f.recipes)
    s << "    f.recipes.push_back(Recipe{" << cpp_literal(r.id) << ", " << cpp_literal(r.releases) << ", "
      << cpp_literal(r.source) << ", " << (r.inferred ? "true" : "false") << ", " << cpp_literal(r.search) << ", "
      << steps(r.steps) << "});\n";
  s << "    book.frameworks.push_back(std::move(f));\n  }\n";
}

std::string source_for(const RecipeBook& book) {
  std::ostringstream s;
  s << "// Generated from templates/frameworks.yml by src/tools/compile_recipes.cpp. Do not edit.\n"
    << "#include \"frameworks/recipes.hpp\"\n\n"
    << "namespace condacuda::frameworks {\n\n"
    << "RecipeBook compiled_recipe_book() {\n"
    << "  RecipeBook book;\n";
  for (const auto& f : book.frameworks) framework(s, f);
  for (const auto& [name, lib] : book.pathfinder)
    s << "  book.pathfinder[" << cpp_literal(name) << "] = PathfinderLib{" << strings(lib.sonames) << ", " << strings(lib.dirs)
      << ", " << strings(lib.deps) << "};\n";
  s << "  return book;\n}\n\n";
  // The top-level modules, without building the book (a python env with no framework asks only this).
  std::vector<std::string> tops;
  for (const auto& f : book.frameworks) {
    const std::string top = f.module.substr(0, f.module.find('.'));
    if (std::find(tops.begin(), tops.end(), top) == tops.end()) tops.push_back(top);
  }
  s << "std::span<const std::string_view> compiled_top_level_modules() {\n"
    << "  static constexpr std::string_view tops[] = {";
  for (std::size_t i = 0; i < tops.size(); ++i) s << (i ? ", " : "") << cpp_literal(tops[i]);
  s << "};\n  return tops;\n}\n\n} // namespace condacuda::frameworks\n";
  return s.str();
}
} // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s FRAMEWORKS.yml OUT.cpp\n", argv[0]);
    return 2;
  }
  const auto yaml = condacuda::tools::read_file(argv[1]);
  if (!yaml) {
    std::fprintf(stderr, "%s: cannot read\n", argv[1]);
    return 1;
  }
  auto book = parse_recipes(*yaml, "templates/frameworks.yml");
  if (!book) {
    std::fprintf(stderr, "%s\n", book.error().describe().c_str());
    return 1;
  }
  if (!condacuda::tools::write_if_changed(argv[2], source_for(*book))) {
    std::fprintf(stderr, "%s: cannot write\n", argv[2]);
    return 1;
  }
  return 0;
}
