#pragma once
// Test support: scratch directories, C fixtures compiled with the system
// compiler, and running programs with an exact environment. Failures throw
// std::runtime_error so doctest reports them in the calling test.
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace fixture {

// A fresh directory under $TMPDIR, removed at scope exit unless the test
// failed... or CONDACUDA_KEEP_TEST_DIRS is set (then its path is printed).
class TempDir {
public:
  explicit TempDir(const std::string& tag = "t");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& rel) const { return path_ + "/" + rel; }

private:
  std::string path_;
};

void write_file(const std::string& path, const std::string& content);
void make_dirs(const std::string& path);
std::string read_file(const std::string& path);
// A condacuda cache file's text ("value\tdev\tino\tsize\tmtime\tctime\tpath"
// lines) with the value of `path` replaced by `value`.
std::string with_cache_value(const std::string& cache_text, const std::string& path, const std::string& value);
// Paths of the entries of `dir` whose name contains `part` (e.g. leftover temporaries).
std::vector<std::string> entries_named(const std::string& dir, const std::string& part);

// gcc <args...>; throws with the compiler's output on failure.
void gcc(const std::vector<std::string>& args);
// Compiles one C source text into a shared library at `out` (-shared -fPIC),
// with extra arguments (e.g. "-Wl,-rpath,...", "-L...", "-lfoo").
void shared_library(const std::string& out, const std::string& source, const std::vector<std::string>& extra = {});
// Compiles one C source text into an executable.
void executable(const std::string& out, const std::string& source, const std::vector<std::string>& extra = {});

struct RunResult {
  int status = -1; // exit status, or 128 + signal
  std::string out, err;
};
// Runs argv with the current environment changed by `env`: a value sets the
// variable, nullopt unsets it. `cwd` empty: the current directory.
RunResult run(const std::vector<std::string>& argv, const std::map<std::string, std::optional<std::string>>& env = {},
              const std::string& cwd = "");

// The dlopen probe built with the tests (tests/tools/dlopen_probe.c).
std::string probe_path();

} // namespace fixture
