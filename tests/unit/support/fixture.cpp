#include "support/fixture.hpp"

#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <poll.h>
#include <sstream>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace fixture {

TempDir::TempDir(const std::string& tag) {
  const char* base = std::getenv("TMPDIR");
  std::string templ = std::string(base && *base ? base : "/tmp") + "/condacuda-" + tag + "-XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) throw std::runtime_error("mkdtemp failed");
  path_ = buf.data();
}

TempDir::~TempDir() {
  if (std::getenv("CONDACUDA_KEEP_TEST_DIRS")) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

void make_dirs(const std::string& path) { std::filesystem::create_directories(path); }

void write_file(const std::string& path, const std::string& content) {
  auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent);
  std::ofstream f(path, std::ios::binary);
  f << content;
  if (!f) throw std::runtime_error("cannot write " + path);
}

std::vector<std::string> entries_named(const std::string& dir, const std::string& part) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().filename().string().find(part) != std::string::npos) out.push_back(e.path().string());
  return out;
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::string with_cache_value(const std::string& cache_text, const std::string& path, const std::string& value) {
  std::string out;
  for (std::size_t start = 0; start < cache_text.size();) {
    const std::size_t end = cache_text.find('\n', start);
    std::string line = cache_text.substr(start, end - start);
    if (line.ends_with("\t" + path)) line = value + line.substr(line.find('\t'));
    out += line + "\n";
    start = end == std::string::npos ? cache_text.size() : end + 1;
  }
  return out;
}

namespace {
void drain(int fd, std::string& out) {
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
}
} // namespace

RunResult run(const std::vector<std::string>& argv, const std::map<std::string, std::optional<std::string>>& env,
              const std::string& cwd) {
  int out_pipe[2], err_pipe[2];
  if (pipe(out_pipe) || pipe(err_pipe)) throw std::runtime_error("pipe failed");
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    std::string key = kv.substr(0, kv.find('='));
    if (env.count(key)) continue;
    env_strings.push_back(kv);
  }
  for (const auto& [k, v] : env)
    if (v) env_strings.push_back(k + "=" + *v);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    close(out_pipe[0]);
    close(err_pipe[0]);
    if (!cwd.empty() && chdir(cwd.c_str()) != 0) _exit(126);
    std::vector<char*> args, envp;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    for (const auto& e : env_strings) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    execve(argv[0].c_str(), args.data(), envp.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  RunResult r;
  // Read both pipes without deadlocking on a full one.
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_fds = 2;
  while (open_fds > 0) {
    if (poll(fds, 2, -1) < 0) break;
    for (auto& f : fds) {
      if (f.fd < 0 || !(f.revents & (POLLIN | POLLHUP))) continue;
      char buf[4096];
      ssize_t n = ::read(f.fd, buf, sizeof buf);
      if (n <= 0) {
        close(f.fd);
        f.fd = -1;
        --open_fds;
      } else {
        (f.fd == fds[0].fd ? r.out : r.err).append(buf, static_cast<std::size_t>(n));
      }
    }
  }
  int status = 0;
  waitpid(pid, &status, 0);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  (void)drain;
  return r;
}

void gcc(const std::vector<std::string>& args) {
  std::vector<std::string> argv{"/usr/bin/gcc"};
  argv.insert(argv.end(), args.begin(), args.end());
  RunResult r = run(argv);
  if (r.status != 0) {
    std::string cmd;
    for (const auto& a : argv) cmd += a + " ";
    throw std::runtime_error("compiler failed: " + cmd + "\n" + r.err);
  }
}

void shared_library(const std::string& out, const std::string& source, const std::vector<std::string>& extra) {
  std::string src = out + ".c";
  write_file(src, source);
  std::vector<std::string> args{"-shared", "-fPIC", "-o", out, src};
  args.insert(args.end(), extra.begin(), extra.end());
  gcc(args);
}

void executable(const std::string& out, const std::string& source, const std::vector<std::string>& extra) {
  std::string src = out + ".c";
  write_file(src, source);
  std::vector<std::string> args{"-o", out, src};
  args.insert(args.end(), extra.begin(), extra.end());
  gcc(args);
}

std::string probe_path() { return CONDACUDA_DLOPEN_PROBE; }

} // namespace fixture
