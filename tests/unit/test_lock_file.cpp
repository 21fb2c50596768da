// The lockfile format: render (deterministic, version first, fixed key order),
// parse (version dispatch, errors with line and column), golden files good and
// bad, round trips, and the diff `lock --check` prints.
#include <doctest/doctest.h>

#include "util/strings.hpp"

#include <cstdlib>
#include <filesystem>

#include "lock/diff.hpp"
#include "lock/lockfile.hpp"
#include "report/lock_report.hpp"
#include "support/fixture.hpp"

using namespace condacuda;
using namespace condacuda::lock;

namespace {
std::string fixture_path(const std::string& name) { return std::string(CONDACUDA_SOURCE_DIR) + "/tests/fixtures/lock/" + name; }

LockedComponent component(const std::string& id, const std::string& soname, const std::string& folder, const std::string& package,
                          const std::string& version, char hash_digit, const std::string& release) {
  LockedComponent c;
  c.component = id;
  c.soname = soname;
  c.path = "lib/python3.11/site-packages/nvidia/" + folder + "/lib/" + soname;
  c.manager = "pip";
  c.package = package;
  c.version = version;
  c.sha256 = std::string(64, hash_digit);
  c.toolkit = true;
  c.cuda_major = 12;
  c.cuda_release = release;
  return c;
}

// The demo env's lock, by value (the golden file tests/fixtures/lock/good.lock.yml).
Lockfile sample() {
  Lockfile l;
  l.env = "demo: env #1"; // quoting matters
  l.release_table = "condacuda-releases-2025.1";
  l.release_table_sha256 = std::string(64, 'e');
  l.alignment.series = "12.4";
  l.alignment.aligned = true;
  l.alignment.rules = {
      {"symbols", RuleResult::pass, "12.1",
       {"4 versioned references between the env's libraries checked",
        "libcusparse.so.12 -> libnvJitLink.so.12 (pip nvidia-nvjitlink-cu12 12.4.127): 4 symbols of version libnvJitLink.so.12, all defined"}},
      {"same-major", RuleResult::pass, "", {"CUDA 12: nvidia-cusparse-cu12 12.1.0.106 (from wheel name)"}},
      {"releases", RuleResult::pass, "", {"nvJitLink 12.4 >= 12.1: libnvJitLink.so.12 for libcusparse.so.12"}},
      {"driver", RuleResult::skipped, "", {"no NVIDIA driver visible"}},
  };
  l.components = {
      component("cudart", "libcudart.so.12", "cuda_runtime", "nvidia-cuda-runtime-cu12", "12.1.105", 'a', "12.1"),
      component("cusparse", "libcusparse.so.12", "cusparse", "nvidia-cusparse-cu12", "12.1.0.106", 'b', "12.1"),
      component("nvjitlink", "libnvJitLink.so.12", "nvjitlink", "nvidia-nvjitlink-cu12", "12.4.127", 'c', "12.4"),
  };
  l.components[1].build = "conda_build_0"; // a conda build string survives the round trip
  return l;
}

std::string render(const Lockfile& l) {
  auto text = render_lock(l, "0.1.0");
  REQUIRE(text.ok());
  return *text;
}

util::Json as_json(const Lockfile& l) { return report::lock_json(l, env::EnvRecord{l.env, "/envs/" + l.env, env::EnvKind::conda, ""}, ""); }
bool same(const Lockfile& a, const Lockfile& b) { return render(a) == render(b) && as_json(a) == as_json(b); }
} // namespace

TEST_CASE("lockfile: header comment, `version: 1` first, fixed key order, same value -> same bytes") {
  std::string text = render(sample());
  CHECK(text == render(sample()));
  CHECK(text.rfind("# condacuda lockfile:", 0) == 0);
  CHECK(text.find("condacuda lock --check") != std::string::npos);
  CHECK(text.find("@") == std::string::npos); // every placeholder expanded
  // The first line that is not a comment is the version.
  std::size_t pos = 0;
  while (text.compare(pos, 1, "#") == 0) pos = text.find('\n', pos) + 1;
  CHECK(text.compare(pos, 11, "version: 1\n") == 0);
  auto order = [&](std::initializer_list<const char*> keys) {
    std::size_t last = 0;
    for (const char* k : keys) {
      std::size_t at = text.find(k, last);
      REQUIRE_MESSAGE(at != std::string::npos, k);
      last = at;
    }
  };
  order({"\nversion:", "\nenv:", "\nrelease_table:", "\nalignment:", "\n  series:", "\n  aligned:", "\n  rules:", "\ncomponents:"});
  order({"- component: cusparse", "soname:", "path:", "manager:", "package:", "version:", "build:", "sha256:", "toolkit:",
         "cuda_major:", "cuda_release:"});
  CHECK(text.find("series: \"12.4\"") != std::string::npos); // a version stays a string
  CHECK(text.find("/tmp") == std::string::npos);
}

TEST_CASE("lockfile golden file: render matches it, and it reads back to the same value") {
  std::string golden = fixture_path("good.lock.yml");
  if (std::getenv("CONDACUDA_UPDATE_GOLDEN")) fixture::write_file(golden, render(sample()));
  std::string text = fixture::read_file(golden);
  CHECK(text == render(sample()));
  auto parsed = parse_lock(text, "good.lock.yml");
  REQUIRE(parsed.ok());
  CHECK(same(*parsed, sample()));
  CHECK(parsed->components[1].build == "conda_build_0");
  CHECK(parsed->components[0].build.empty());
  CHECK(parsed->env == "demo: env #1");
  CHECK(diff_locks(*parsed, sample()).matches());
}

TEST_CASE("lockfile bad golden files: each is refused with where and why") {
  struct Case {
    const char* file;
    ErrorCode code;
    const char* message;
  };
  const Case cases[] = {
      {"bad-yaml.lock.yml", ErrorCode::corrupt, "invalid YAML at line 6, column 11: end of sequence flow not found"},
      {"bad-not-a-lock.yml", ErrorCode::corrupt, "not a condacuda lock"},
      {"bad-empty.lock.yml", ErrorCode::corrupt, "not a condacuda lock"},
      {"bad-version.lock.yml", ErrorCode::unsupported, "line 1, column 10: lock format version 2 is not supported"},
      {"bad-sha256.lock.yml", ErrorCode::corrupt, "components[0]: 'sha256' is not 64 lower-case hex digits"},
      {"bad-missing-path.lock.yml", ErrorCode::corrupt, "components[0]: 'path' is missing"},
      {"bad-result.lock.yml", ErrorCode::corrupt, "alignment.rules[0]: 'result' is not pass, fail, unknown or skipped"},
      {"bad-aligned.lock.yml", ErrorCode::corrupt, "alignment: 'aligned' is not true or false"},
  };
  for (const auto& c : cases) {
    auto parsed = parse_lock(fixture::read_file(fixture_path(c.file)), c.file);
    REQUIRE_MESSAGE(!parsed.ok(), c.file);
    CHECK_MESSAGE(parsed.error().code == c.code, c.file);
    CHECK_MESSAGE(parsed.error().path == c.file, c.file);
    CHECK_MESSAGE(parsed.error().message.find(c.message) != std::string::npos, c.file << ": " << parsed.error().message);
  }
}

TEST_CASE("lock --check diff: added, removed, version, sha256, verdict; notes that are not drift") {
  Lockfile locked = sample(), now = sample();
  CHECK(diff_locks(locked, now).matches());

  now.env = "moved-clone";
  now.alignment.rules[3] = {"driver", RuleResult::pass, "", {"driver 580.65.06 ..."}}; // a GPU node vs CI: not drift
  LockDiff notes_only = diff_locks(locked, now);
  CHECK(notes_only.matches());
  CHECK(notes_only.notes.size() == 2);

  now = sample();
  now.components.erase(now.components.begin());                         // cudart removed
  now.components[0].version = "12.3.1.170";                              // cusparse upgraded
  now.components[1].sha256 = std::string(64, 'd');                       // nvjitlink rewritten
  now.components.push_back(now.components[0]);
  now.components.back().path = "lib/extra/libcusparse.so.12";            // a second copy appeared
  now.alignment.aligned = false;
  now.alignment.rules[0].result = RuleResult::fail;
  now.alignment.rules[0].evidence.push_back("libcusparse.so.12 -> libnvJitLink.so.12: 4 symbols, 1 missing: __nvJitLinkAddData_12_4");
  LockDiff d = diff_locks(locked, now);
  CHECK_FALSE(d.matches());
  std::vector<std::string> kinds;
  for (const auto& c : d.changes) kinds.push_back(to_string(c.kind));
  CHECK(kinds == std::vector<std::string>{"added", "removed", "version", "sha256", "verdict", "verdict"});
  CHECK(d.changes[2].locked == "pip nvidia-cusparse-cu12 12.1.0.106 conda_build_0");
  CHECK(d.changes[4].what == "rule symbols");
  REQUIRE(d.changes[4].why.size() == 1);
  CHECK(d.changes[4].why[0].find("1 missing") != std::string::npos);
  CHECK(d.changes[5].what == "aligned");

  std::string text = report::lock_check_text(d, "cuda.lock.yml", "demo", report::Style{});
  CHECK(text.find("cuda.lock.yml: env 'demo' has drifted: 6 changes") == 0);
  // Wider than 100 columns: each change's locked and current values on lines of their own under it.
  CHECK(text.find("\n  removed  cudart lib/python3.11/site-packages/nvidia/cuda_runtime/lib/libcudart.so.12\n"
                  "      LOCKED  pip nvidia-cuda-runtime-cu12 12.1.105\n      NOW     -\n") != std::string::npos);
  CHECK(text.find("aaaaaaaaaaaaaaaa") == std::string::npos); // only changed hashes are shown
  auto sha_line = text.substr(text.find("\n  sha256 "), 200);
  CHECK(sha_line.find("\n      LOCKED  cccccccccccccccc\n      NOW     dddddddddddddddd\n") != std::string::npos);
  CHECK(text.find("\n  rule symbols now: libcusparse.so.12 -> libnvJitLink.so.12: 4 symbols, 1 missing") != std::string::npos);
  auto j = report::lock_check_json(d, "cuda.lock.yml", env::EnvRecord{"demo", "/envs/demo", env::EnvKind::conda, ""});
  CHECK(j.string_at("lock") == "cuda.lock.yml");
  CHECK(j.get("env")->string_at("prefix") == "/envs/demo");
  CHECK(j.string_at("schema") == "condacuda.lock-check/1");
  CHECK_FALSE(j.get("matches")->as_bool(true));
  CHECK(j.get("changes")->as_array().size() == 6);
}

TEST_CASE("lock --check here: the driver rule fails here (never drift), loads of locked libraries, the outcome") {
  Lockfile locked = sample(), now = sample();
  // A lock made where no driver was visible, checked with a driver too old: not drift, a rule that fails here.
  now.alignment.aligned = false;
  now.alignment.rules[3] = {"driver", RuleResult::fail, "",
                            {"driver 450.80 (branch 450, from --driver) < 525, the minimum for CUDA 12.x",
                             "the CUDA 12.4.1 installer bundles driver 550.54.15"}};
  LockDiff d = diff_locks(locked, now);
  CHECK(d.matches());
  REQUIRE(d.rules_here.size() == 1);
  CHECK(d.rules_here[0].rule == "driver");
  CHECK(d.rules_here[0].locked == "skipped");
  CHECK(d.rules_here[0].why == std::vector<std::string>{"driver 450.80 (branch 450, from --driver) < 525, the minimum for CUDA 12.x"});
  CHECK(check_outcome(d, {}) == CheckOutcome::does_not_load);
  CHECK(std::string(to_string(check_outcome(d, {}))) == "does-not-load");
  // Passed when locked (a GPU node), fails here: still the machine's, not the env's.
  locked.alignment.rules[3] = {"driver", RuleResult::pass, "", {"driver 580.65.06 ..."}};
  d = diff_locks(locked, now);
  CHECK(d.matches());
  CHECK(d.rules_here.size() == 1);
  CHECK(d.rules_here[0].locked == "pass");
  // Failed when locked and fails here: it fails here all the same.
  d = diff_locks(now, now);
  CHECK(d.rules_here.size() == 1);
  CHECK(check_outcome(d, {}) == CheckOutcome::does_not_load);
  // Failed when locked, passes here: a note.
  d = diff_locks(now, sample());
  CHECK(d.matches());
  CHECK(d.rules_here.empty());
  CHECK(check_outcome(d, {}) == CheckOutcome::matches);

  // Loads: only locked libraries count, one line each, in the lock's order; the component filled from the lock.
  const std::string cusparse = sample().components[1].path;
  std::vector<LoadFailure> found = {
      {"lib/python3.11/site-packages/demotorch/_C.so", "", "undefined-symbol", "consumer error", "fix c"},
      {cusparse, "", "undefined-symbol", "undefined symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12", "fix a"},
      {cusparse, "cusparse", "not-found", "second finding", "fix b"},
  };
  LoadsHere loads;
  loads.ld_library_path = "/opt/cuda-12.0/lib64";
  loads.failures = locked_load_failures(sample(), found);
  REQUIRE(loads.failures.size() == 1);
  CHECK(loads.failures[0].component == "cusparse");
  CHECK(loads.failures[0].code == "undefined-symbol");
  CHECK(loads.failures[0].fix == "fix a");
  LockDiff clean = diff_locks(sample(), sample());
  CHECK(check_outcome(clean, loads) == CheckOutcome::does_not_load);
  CHECK(check_outcome(clean, {}) == CheckOutcome::matches);
  LockDiff drift = clean;
  drift.changes.push_back({ChangeKind::sha256, "x", "a", "b", {}});
  CHECK(check_outcome(drift, loads) == CheckOutcome::drift); // drift first

  std::string text = report::lock_check_text(clean, "cuda.lock.yml", "demo", report::Style{}, loads);
  CHECK(text.find("cuda.lock.yml: env 'demo' matches (3 libraries, aligned to 12.4) but does not load here\n") == 0);
  CHECK(text.find("1 locked library does not load with this shell's LD_LIBRARY_PATH (/opt/cuda-12.0/lib64)") != std::string::npos);
  // (a line longer than 100 columns goes on under itself, 4 in)
  CHECK(util::replace_all(text, "\n    undefined", " undefined").find("\n  undefined-symbol cusparse " + cusparse +
                                                                     ": undefined symbol: __nvJitLinkAddData_12_1") != std::string::npos);
  CHECK(text.find("\n    fix: fix a\n") != std::string::npos);
  std::string rule_text = report::lock_check_text(diff_locks(sample(), now), "cuda.lock.yml", "demo", report::Style{});
  CHECK(rule_text.find(" but does not load here\n") != std::string::npos);
  CHECK(rule_text.find("\n  rule driver fails here (skipped when locked): driver 450.80 (branch 450, from --driver) < 525") !=
        std::string::npos);
  auto j = report::lock_check_json(clean, "cuda.lock.yml", env::EnvRecord{"demo", "/envs/demo", env::EnvKind::conda, ""}, loads);
  CHECK_FALSE(j.get("matches")->as_bool(true));
  CHECK(j.get("loads_here")->string_at("ld_library_path") == "/opt/cuda-12.0/lib64");
  CHECK_FALSE(j.get("loads_here")->get("loads")->as_bool(true));
  CHECK(j.get("loads_here")->get("failures")->as_array()[0].string_at("component") == "cusparse");
}

TEST_CASE("lock JSON carries the same content with a schema") {
  auto j = report::lock_json(sample(), env::EnvRecord{"demo", "/envs/demo", env::EnvKind::conda, ""}, "");
  CHECK(j.string_at("schema") == "condacuda.lock/2");
  CHECK(j.get("version")->as_int() == 1);
  CHECK(j.get("alignment")->string_at("series") == "12.4");
  CHECK(j.get("components")->as_array().size() == 3);
  CHECK(j.get("components")->as_array()[1].string_at("build") == "conda_build_0");
  CHECK(j.get("components")->as_array()[0].get("build")->is_null());
}
