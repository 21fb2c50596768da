// Test-only front end to repair::render_hooks and the quoting functions, for the shell
// suites (tests/shell/test_hooks_*.sh), which run the result in real shells.
//
//   condacuda_render_hooks PREFIX FOLDER...   writes every shell's hooks under PREFIX, then
//                                             sets the mtime of PREFIX/etc/condacuda (made
//                                             when absent) as repair does last: the hooks'
//                                             staleness stamp
//   condacuda_render_hooks --quote SHELL S    prints S quoted for SHELL (posix|fish|csh),
//                                             without a trailing newline
// Exit status: 0 done; 1 render or write error (message on stderr); 2 bad usage.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "repair/hooks.hpp"

namespace fs = std::filesystem;
using condacuda::repair::Shell;

namespace {

int usage() {
  std::cerr << "usage: condacuda_render_hooks PREFIX FOLDER...\n"
               "       condacuda_render_hooks --quote posix|fish|csh STRING\n";
  return 2;
}

int print_quoted(std::string_view shell_name, std::string_view s) {
  Shell shell = Shell::posix;
  if (shell_name == "fish")
    shell = Shell::fish;
  else if (shell_name == "csh")
    shell = Shell::csh;
  else if (shell_name != "posix")
    return usage();
  std::cout << condacuda::repair::quote_for(shell, s);
  return 0;
}

bool write_file(const fs::path& path, const std::string& content) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec) return false;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
  return static_cast<bool>(out.flush());
}

int render(const fs::path& prefix, std::vector<std::string> folders) {
  condacuda::repair::HookSpec spec{std::move(folders), "test"};
  const std::vector<Shell> shells(condacuda::repair::all_shells().begin(), condacuda::repair::all_shells().end());
  auto files = condacuda::repair::render_hooks(spec, shells);
  if (!files) {
    std::cerr << "condacuda_render_hooks: " << files.error().describe() << '\n';
    return 1;
  }
  for (const auto& file : *files) {
    if (!write_file(prefix / file.relative_path, file.content)) {
      std::cerr << "condacuda_render_hooks: cannot write " << (prefix / file.relative_path).string() << '\n';
      return 1;
    }
  }
  std::error_code ec;
  const fs::path stamp = prefix / "etc/condacuda";
  fs::create_directories(stamp, ec);
  if (!ec) fs::last_write_time(stamp, fs::file_time_type::clock::now(), ec);
  if (ec) {
    std::cerr << "condacuda_render_hooks: cannot set the stamp " << stamp.string() << ": " << ec.message() << '\n';
    return 1;
  }
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() == 3 && args[0] == "--quote") return print_quoted(args[1], args[2]);
  if (args.size() < 2 || args[0].starts_with("--")) return usage();
  return render(args[0], std::vector<std::string>(args.begin() + 1, args.end()));
}
