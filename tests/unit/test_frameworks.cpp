// frameworks/: the recipe book (templates/frameworks.yml) and its parser,
// which recipe a release gets, and how the installed frameworks are found
// on sys.path with the facts their recipes read. The recipes' runs are
// checked against the real imports in e2e.programs_harness.
#include <doctest/doctest.h>

#include <algorithm>

#include "frameworks/installed.hpp"
#include "frameworks/recipes.hpp"
#include "python/modules.hpp"
#include "support/memory_probe.hpp"
#include "util/embedded.hpp"

using namespace condacuda;
using condacuda::test::MemoryProbe;

namespace {
std::string recipe_id(const char* framework, const std::string& version) {
  const auto* f = frameworks::embedded_recipes().find(framework);
  REQUIRE(f);
  const auto* r = f->recipe_for(version);
  return r ? r->id : "";
}

std::string parse_error(const std::string& yaml) {
  auto r = frameworks::parse_recipes(yaml, "t.yml");
  return r ? "" : r.error().message;
}

const char* minimal = "version: 1\nframeworks:\n  - name: x\n    statement: import x\n    module: x\n    distributions: [x]\n"
                      "    failure: import-error\n    recipes:\n      - id: x-1\n        releases: \">=1\"\n        source: s\n"
                      "        steps:\n";
} // namespace

TEST_CASE("the embedded recipe book parses, with torch, jax and cupy, every list and search its steps name") {
  const auto& book = frameworks::embedded_recipes();
  for (const char* name : {"torch", "jax", "cupy"}) CHECK(book.find(name));
  CHECK(book.pathfinder.count("cutensor"));
  CHECK(book.pathfinder.at("cusolver").deps == std::vector<std::string>{"nvJitLink", "cusparse", "cublasLt", "cublas"});
  for (const auto& f : book.frameworks)
    for (const auto& r : f.recipes) {
      CHECK_MESSAGE(!r.source.empty(), r.id);
      std::vector<const frameworks::Step*> steps;
      for (const auto& s : r.steps) {
        steps.push_back(&s);
        for (const auto& b : s.body) steps.push_back(&b);
        for (const auto& b : s.body)
          for (const auto& c : b.body) steps.push_back(&c);
      }
      for (const auto* s : steps) {
        if (s->kind != frameworks::StepKind::preload && s->kind != frameworks::StepKind::raise_unless_named &&
            s->kind != frameworks::StepKind::preload_modules && s->kind != frameworks::StepKind::load_sonames)
          continue;
        for (const char* major : {"12", "13"}) {
          std::string list = s->arg;
          if (auto at = list.find("{major}"); at != std::string::npos) list.replace(at, 7, major);
          CHECK_MESSAGE(f.lists.count(list), std::string(r.id + " names list " + list));
        }
        if (s->kind == frameworks::StepKind::preload) CHECK_MESSAGE(f.searches.count(r.search), r.id);
      }
    }
}

TEST_CASE("the compiled recipe book is what the parser makes of templates/frameworks.yml") {
  auto text = util::embedded_asset("templates/frameworks.yml");
  REQUIRE(text);
  auto parsed = frameworks::parse_recipes(*text, "templates/frameworks.yml");
  REQUIRE(parsed);
  CHECK(*parsed == frameworks::embedded_recipes());
  auto changed = *parsed;
  changed.frameworks.front().recipes.front().steps.front().mode = loader::Visibility::local;
  CHECK_FALSE(changed == frameworks::embedded_recipes()); // the comparison sees a step's mode
  std::vector<std::string> tops;
  for (const auto& f : parsed->frameworks) {
    const std::string top = f.module.substr(0, f.module.find('.'));
    if (std::find(tops.begin(), tops.end(), top) == tops.end()) tops.push_back(top);
  }
  const auto compiled = frameworks::compiled_top_level_modules();
  CHECK(std::vector<std::string>(compiled.begin(), compiled.end()) == tops);
  CHECK(tops == std::vector<std::string>{"torch", "jax_plugins", "cupy"});
}

TEST_CASE("a release gets the recipe of its range; one outside every range gets none") {
  CHECK(recipe_id("torch", "2.1.2") == "torch-2.1");
  CHECK(recipe_id("torch", "2.4.1+cu121") == "torch-2.1");
  CHECK(recipe_id("torch", "2.5.0") == "torch-2.5.0");
  CHECK(recipe_id("torch", "2.5.1+cu124") == "torch-2.5.1");
  CHECK(recipe_id("torch", "2.6.0+cu124") == "torch-2.6");
  CHECK(recipe_id("torch", "2.8.0") == "torch-2.7");
  CHECK(recipe_id("torch", "2.9.1+cu130") == "torch-2.9");
  CHECK(recipe_id("torch", "2.10.0") == "torch-2.10");
  CHECK(recipe_id("torch", "2.13.0") == "torch-2.11");
  CHECK(recipe_id("torch", "2.14.1") == "torch-2.14");
  CHECK(recipe_id("torch", "2.15.0") == "");
  CHECK(recipe_id("torch", "1.13.1") == "");
  CHECK(recipe_id("torch", "not a version") == "");
  CHECK(recipe_id("jax", "0.4.30") == "jax-0.4.30");
  CHECK(recipe_id("jax", "0.6.1") == "jax-0.6.1");
  CHECK(recipe_id("jax", "0.6.2") == "jax-0.6.2");
  CHECK(recipe_id("jax", "0.11.0") == "jax-0.7");
  CHECK(recipe_id("jax", "0.4.26") == "");
  CHECK(recipe_id("cupy", "13.6.0") == "cupy-13");
  CHECK(recipe_id("cupy", "14.2.0") == "cupy-14");
  CHECK(recipe_id("cupy", "12.3.0") == "");
}

TEST_CASE("the recipe parser: clear errors for a book that is not one") {
  CHECK(parse_error(std::string(minimal) + "          - open: a.so\n") == "");
  CHECK(parse_error("version: 2\nframeworks: []\n").find("not a condacuda recipe book") != std::string::npos);
  CHECK(parse_error(std::string(minimal) + "          - open: a.so\n            import: b\n").find("exactly one action") !=
        std::string::npos);
  CHECK(parse_error(std::string(minimal) + "          - frobnicate: a\n").find("exactly one action") != std::string::npos);
  CHECK(parse_error(std::string(minimal) + "          - open: a.so\n            mode: sideways\n").find("'mode'") != std::string::npos);
  CHECK(parse_error(std::string(minimal) + "          - import: b\n            on_error: []\n").find("'on_error'") != std::string::npos);
  std::string bad = minimal;
  bad.replace(bad.find(">=1"), 3, ">>1");
  CHECK(parse_error(bad + "          - open: a.so\n").find("not PEP 440") != std::string::npos);
  CHECK(parse_error(std::string(minimal) + "          - open: a.so\n        search: nowhere\n").find("no search named") !=
        std::string::npos);
  std::string deep = minimal;
  std::string indent = "          ";
  for (int i = 0; i < 10; ++i) {
    deep += indent + "- guard:\n";
    indent += "    ";
  }
  deep += indent + "- open: a.so\n";
  CHECK(parse_error(deep).find("nested more than 8") != std::string::npos);
}

TEST_CASE("torch.version.cuda from torch/version.py, both spellings; None and other lines give none") {
  CHECK(frameworks::torch_version_cuda("__version__ = '2.6.0'\ncuda = '12.4'\n") == "12.4");
  CHECK(frameworks::torch_version_cuda("from typing import Optional\ncuda: Optional[str] = \"13.0\"\nhip = None\n") == "13.0");
  CHECK(frameworks::torch_version_cuda("cuda: Optional[str] = None\n") == "");
  CHECK(frameworks::torch_version_cuda("cudnn = '9'\ncuda_arch = '8.0'\n") == "");
  CHECK(frameworks::torch_version_cuda("") == "");
}

TEST_CASE("cupy/.data/_wheel.json: the CUDA key, the packaging, each preload's version and files") {
  auto w = frameworks::parse_cupy_wheel(
      R"({"cuda": "12.x", "packaging": "pip", "cutensor": {"version": "2.0.2", "filenames": ["libcutensor.so.2.0.2"]}})");
  REQUIRE(w);
  CHECK(w->cuda == "12.x");
  CHECK(w->packaging == "pip");
  REQUIRE(w->libs.count("cutensor"));
  CHECK(w->libs.at("cutensor").filenames == std::vector<std::string>{"libcutensor.so.2.0.2"});
  CHECK_FALSE(frameworks::parse_cupy_wheel("[1, 2]"));
  CHECK_FALSE(frameworks::parse_cupy_wheel("{\"cuda\": "));
}

TEST_CASE("find_frameworks: the first sys.path entry with the module wins, its dist-info gives the release") {
  auto probe = std::make_shared<MemoryProbe>();
  const std::string user = "/home/u/.local/lib/python3.11/site-packages", env = "/env/lib/python3.11/site-packages";
  probe->file(env + "/torch/__init__.py");
  probe->file(env + "/torch/version.py", "cuda = '12.4'\n");
  probe->file(env + "/torch-2.6.0+cu124.dist-info/METADATA", "Metadata-Version: 2.1\nName: torch\nVersion: 2.6.0+cu124\n");
  probe->file(env + "/jax_plugins/xla_cuda12/__init__.py");
  probe->file(env + "/jax_cuda12_pjrt-0.7.0.dist-info/METADATA", "Name: jax-cuda12-pjrt\nVersion: 0.7.0\n");
  probe->file(env + "/cupy/__init__.py");
  probe->file(env + "/cupy/.data/_wheel.json", R"({"cuda": "13.x", "packaging": "pip"})");
  probe->file(env + "/cupy_cuda13x-14.2.0.dist-info/METADATA", "Name: cupy-cuda13x\nVersion: 14.2.0\n");
  frameworks::PythonView view;
  view.interpreter.major = 3, view.interpreter.minor = 11;
  view.launch.cwd = "/work";
  view.probe = probe;
  view.sys_path = {{user, python::PathOrigin::user_site, ""}, {env, python::PathOrigin::env_site, ""}};
  auto found = frameworks::find_frameworks(frameworks::embedded_recipes(), view);
  REQUIRE(found.size() == 3);
  CHECK(found[0].framework->name == "torch");
  CHECK(found[0].version == "2.6.0+cu124");
  CHECK(found[0].cuda_version == "12.4");
  CHECK(found[0].cuda_major == 12);
  CHECK(found[0].recipe->id == "torch-2.6");
  CHECK(found[0].origin == python::PathOrigin::env_site);
  CHECK(found[1].framework->name == "jax");
  CHECK(found[1].distribution == "jax-cuda12-pjrt");
  CHECK(found[1].cuda_major == 12);
  CHECK(found[1].recipe->id == "jax-0.7");
  CHECK(found[2].cuda_major == 13);
  CHECK(found[2].recipe->id == "cupy-14");
  // An older torch in the user site is the one `import torch` gets; no dist-info there: no release, no recipe.
  probe->file(user + "/torch/__init__.py");
  found = frameworks::find_frameworks(frameworks::embedded_recipes(), view);
  CHECK(found[0].origin == python::PathOrigin::user_site);
  CHECK(found[0].version == "");
  CHECK(found[0].recipe == nullptr);
}

TEST_CASE("NVIDIA libraries on sys.path outside the env, with the wheel whose RECORD lists them") {
  auto probe = std::make_shared<MemoryProbe>();
  const std::string user = "/home/u/.local/lib/python3.11/site-packages", env = "/env/lib/python3.11/site-packages";
  probe->file(user + "/nvidia/nvjitlink/lib/libnvJitLink.so.12");
  probe->file(user + "/nvidia_nvjitlink_cu12-12.0.140.dist-info/METADATA", "Name: nvidia-nvjitlink-cu12\nVersion: 12.0.140\n");
  probe->file(user + "/nvidia_nvjitlink_cu12-12.0.140.dist-info/RECORD",
              "nvidia/nvjitlink/lib/libnvJitLink.so.12,sha256=x,1\nnvidia/__init__.py,,\n");
  probe->file(env + "/nvidia/nvjitlink/lib/libnvJitLink.so.12");
  frameworks::PythonView view;
  view.launch.cwd = "/work";
  view.probe = probe;
  view.sys_path = {{user, python::PathOrigin::user_site, ""}, {env, python::PathOrigin::env_site, ""}};
  auto libs = frameworks::nvidia_libraries_outside(view, "/env");
  REQUIRE(libs.size() == 1);
  CHECK(libs[0].file == "nvidia/nvjitlink/lib/libnvJitLink.so.12");
  CHECK(libs[0].wheel == "nvidia-nvjitlink-cu12");
  CHECK(libs[0].version == "12.0.140");
  CHECK(libs[0].before_env_site);
  std::swap(view.sys_path[0], view.sys_path[1]);
  CHECK_FALSE(frameworks::nvidia_libraries_outside(view, "/env").at(0).before_env_site);
}

TEST_CASE("repr of sys.path as torch's ValueError prints it") {
  CHECK(python::repr_str_list({}) == "[]");
  CHECK(python::repr_str_list({"", "/usr/lib/python311.zip"}) == "['', '/usr/lib/python311.zip']");
  CHECK(python::repr_str_list({"it's"}) == "[\"it's\"]");
  CHECK(python::repr_str_list({"a'b\"c"}) == "['a\\'b\"c']");
  CHECK(python::repr_str_list({"t\tn\nb\\"}) == "['t\\tn\\nb\\\\']");
  CHECK(python::repr_str_list({"caf\xc3\xa9", "\x01", std::string("\xff")}) == "['caf\xc3\xa9', '\\x01', '\\udcff']");
}
