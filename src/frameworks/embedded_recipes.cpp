// The recipe book the build compiled from templates/frameworks.yml
// (compiled_recipes.cpp, generated): apart from recipes.cpp, which the
// build-time compiler links without it.
#include "frameworks/recipes.hpp"

namespace condacuda::frameworks {

const RecipeBook& embedded_recipes() {
  static const RecipeBook book = compiled_recipe_book();
  return book;
}

} // namespace condacuda::frameworks
