// python/sys_path and python/modules: sys.path as CPython's site builds it,
// module lookup and glob (the real interpreter is the oracle in
// e2e.sys_path_oracle; these pin the rules one by one).
#include <doctest/doctest.h>

#include "python/modules.hpp"
#include "python/sys_path.hpp"
#include "support/memory_probe.hpp"

using namespace condacuda;
using condacuda::test::MemoryProbe;

namespace {
python::Interpreter conda_python() {
  python::Interpreter in;
  in.major = 3, in.minor = 11;
  in.executable = "/env/bin/python3.11";
  in.prefix = in.base_prefix = "/env";
  return in;
}
python::PythonLaunch launch_in(const std::string& home) {
  python::PythonLaunch l;
  l.home = home;
  l.cwd = "/work";
  return l;
}
std::vector<std::string> paths(const std::vector<python::SysPathEntry>& entries) {
  std::vector<std::string> out;
  for (const auto& e : entries) out.push_back(e.path);
  return out;
}
} // namespace

TEST_CASE("abspath: joined to the working directory, then normpath") {
  CHECK(python::abspath("", "/work") == "/work");
  CHECK(python::abspath("rel", "/work") == "/work/rel");
  CHECK(python::abspath("/a/./b//c/", "/work") == "/a/b/c");
  CHECK(python::abspath("/a/b/../c", "/work") == "/a/c");
  CHECK(python::abspath("../x", "/work/sub") == "/work/x");
  CHECK(python::abspath("/..", "/work") == "/");
  CHECK(python::abspath("//a/b", "/work") == "//a/b"); // posixpath keeps exactly two leading slashes
  CHECK(python::abspath("///a", "/work") == "/a");
}

TEST_CASE("a conda env's python: PYTHONPATH, the stdlib, the user site, then the env's site-packages") {
  MemoryProbe probe;
  probe.dir("/env/lib/python3.11/site-packages");
  probe.dir("/home/u/.local/lib/python3.11/site-packages");
  auto launch = launch_in("/home/u");
  launch.pythonpath = ":rel:/abs/x::/abs/x";
  const auto sp = python::build_sys_path(conda_python(), launch, probe);
  CHECK(paths(sp) == std::vector<std::string>{"", "/work", "/work/rel", "/abs/x", "/env/lib/python311.zip", "/env/lib/python3.11",
                                              "/env/lib/python3.11/lib-dynload", "/home/u/.local/lib/python3.11/site-packages",
                                              "/env/lib/python3.11/site-packages"});
  CHECK(sp[0].origin == python::PathOrigin::script_dir);
  CHECK(sp[1].origin == python::PathOrigin::pythonpath);
  CHECK(sp[7].origin == python::PathOrigin::user_site);
  CHECK(sp[8].origin == python::PathOrigin::env_site);
}

TEST_CASE("the user site: off with PYTHONNOUSERSITE (unless -E), a set-id process, or a missing folder; PYTHONUSERBASE moves it") {
  MemoryProbe probe;
  probe.dir("/env/lib/python3.11/site-packages");
  probe.dir("/home/u/.local/lib/python3.11/site-packages");
  probe.dir("/base/lib/python3.11/site-packages");
  auto launch = launch_in("/home/u");
  auto count_user = [&](const python::PythonLaunch& l) {
    int n = 0;
    for (const auto& e : python::build_sys_path(conda_python(), l, probe)) n += e.origin == python::PathOrigin::user_site;
    return n;
  };
  CHECK(count_user(launch) == 1);
  launch.no_user_site = true;
  CHECK(count_user(launch) == 0);
  launch.ignore_environment = true; // -E: PYTHONNOUSERSITE is not read
  CHECK(count_user(launch) == 1);
  launch = launch_in("/home/u");
  launch.setid = true;
  CHECK(count_user(launch) == 0);
  launch = launch_in("/nobody");
  CHECK(count_user(launch) == 0);
  launch.pythonuserbase = "/base";
  CHECK(count_user(launch) == 1);
  launch = launch_in("/home/u");
  launch.home.reset();
  launch.passwd_home = "/home/u/";
  CHECK(count_user(launch) == 1);
}

TEST_CASE("a venv: its site-packages before the user site; without system site packages no user site and no base") {
  MemoryProbe probe;
  probe.dir("/venv/lib/python3.11/site-packages");
  probe.dir("/home/u/.local/lib/python3.11/site-packages");
  probe.dir("/usr/lib/python3.11/site-packages");
  python::Interpreter in = conda_python();
  in.prefix = "/venv";
  in.base_prefix = "/usr";
  in.venv = true;
  in.include_system_site_packages = true;
  auto sp = paths(python::build_sys_path(in, launch_in("/home/u"), probe));
  CHECK(sp == std::vector<std::string>{"", "/usr/lib/python311.zip", "/usr/lib/python3.11", "/usr/lib/python3.11/lib-dynload",
                                       "/venv/lib/python3.11/site-packages", "/home/u/.local/lib/python3.11/site-packages",
                                       "/usr/lib/python3.11/site-packages"});
  in.include_system_site_packages = false;
  sp = paths(python::build_sys_path(in, launch_in("/home/u"), probe));
  CHECK(sp.back() == "/venv/lib/python3.11/site-packages");
  CHECK(sp.size() == 5);
}

TEST_CASE("Debian's site.py: dist-packages, /usr/local first, site-packages only in a venv") {
  MemoryProbe probe;
  probe.dir("/usr/local/lib/python3.11/dist-packages");
  probe.dir("/usr/lib/python3/dist-packages");
  probe.dir("/v/lib/python3.11/site-packages");
  python::Interpreter in = conda_python();
  in.site = python::SiteFlavour::debian;
  in.prefix = in.base_prefix = "/usr";
  auto sp = paths(python::build_sys_path(in, launch_in("/nobody"), probe));
  CHECK(sp == std::vector<std::string>{"", "/usr/lib/python311.zip", "/usr/lib/python3.11", "/usr/lib/python3.11/lib-dynload",
                                       "/usr/local/lib/python3.11/dist-packages", "/usr/lib/python3/dist-packages"});
  in.prefix = "/v";
  in.venv = in.include_system_site_packages = true;
  sp = paths(python::build_sys_path(in, launch_in("/nobody"), probe));
  CHECK(sp[4] == "/v/lib/python3.11/site-packages");
  CHECK(sp[5] == "/usr/local/lib/python3.11/dist-packages");
}

TEST_CASE(".pth files: sorted, folders that exist appended after their site folder, comments and import lines skipped") {
  MemoryProbe probe;
  const std::string site = "/env/lib/python3.11/site-packages";
  probe.file(site + "/z.pth", "/extra/z\n");
  probe.file(site + "/a.pth", "# comment\n\nimport os; os.getcwd()\nsub\r\n/extra/missing\n../../../../extra/up  \n/extra/z\n");
  probe.dir(site + "/sub");
  probe.dir("/extra/z");
  probe.dir("/extra/up");
  probe.file(site + "/not-a.pthx", "/extra/up\n");
  auto sp = python::build_sys_path(conda_python(), launch_in("/nobody"), probe);
  auto p = paths(sp);
  REQUIRE(p.size() == 8);
  CHECK(p[4] == site);
  CHECK(p[5] == site + "/sub");
  CHECK(p[6] == "/extra/up"); // relative lines are joined to the site folder
  CHECK(p[7] == "/extra/z");      // added once, by a.pth, though z.pth names it too
  CHECK(sp[7].origin == python::PathOrigin::pth);
  CHECK(sp[7].pth_file == site + "/a.pth");
  // a site.py with gh-113659 skips hidden .pth files; an older one reads them
  probe.file(site + "/.hidden.pth", "/extra/hidden\n");
  probe.dir("/extra/hidden");
  auto with_hidden = paths(python::build_sys_path(conda_python(), launch_in("/nobody"), probe));
  CHECK(std::find(with_hidden.begin(), with_hidden.end(), "/extra/hidden") != with_hidden.end());
  python::Interpreter newer = conda_python();
  newer.skips_hidden_pth = true;
  auto skipped = paths(python::build_sys_path(newer, launch_in("/nobody"), probe));
  CHECK(std::find(skipped.begin(), skipped.end(), "/extra/hidden") == skipped.end());
}

TEST_CASE("find_module: a regular package wins over namespace portions before it; a module file over a bare folder") {
  MemoryProbe probe;
  probe.dir("/a/nvidia/cublas/lib");          // namespace portion of nvidia in /a
  probe.file("/b/nvidia/__init__.py");        // regular nvidia in /b
  probe.dir("/b/nvidia/cusparse/lib");
  probe.dir("/c/nvidia/cublas");
  probe.file("/c/nvidia/cublas/__init__.py");
  std::vector<python::SysPathEntry> sp{{"/a", python::PathOrigin::pythonpath, ""},
                                       {"/b", python::PathOrigin::user_site, ""},
                                       {"/c", python::PathOrigin::env_site, ""}};
  auto nvidia = python::find_module("nvidia", sp, "/", 3, 11, probe);
  CHECK(nvidia.found);
  CHECK_FALSE(nvidia.namespace_package);
  CHECK(nvidia.path == std::vector<std::string>{"/b/nvidia"});
  // nvidia is /b's: nvidia.cublas is looked up only there, as a namespace portion? No: /b has no cublas.
  CHECK_FALSE(python::find_module("nvidia.cublas", sp, "/", 3, 11, probe).found);
  auto cusparse = python::find_module("nvidia.cusparse", sp, "/", 3, 11, probe);
  CHECK(cusparse.namespace_package);
  CHECK(cusparse.path == std::vector<std::string>{"/b/nvidia/cusparse"});
  // Without /b, nvidia is a namespace over /a and /c.
  sp.erase(sp.begin() + 1);
  auto ns = python::find_module("nvidia", sp, "/", 3, 11, probe);
  CHECK(ns.namespace_package);
  CHECK(ns.path == std::vector<std::string>{"/a/nvidia", "/c/nvidia"});
  auto cublas = python::find_module("nvidia.cublas", sp, "/", 3, 11, probe);
  CHECK_FALSE(cublas.namespace_package); // /c's regular package beats /a's portion
  CHECK(cublas.path == std::vector<std::string>{"/c/nvidia/cublas"});
  CHECK(cublas.entry == "/a"); // the top level was found first under /a
  // a module file beats a bare folder of the same name in one entry
  probe.file("/d/mod.cpython-311-x86_64-linux-gnu.so");
  probe.dir("/d/mod");
  auto mod = python::find_module("mod", {{"/d", python::PathOrigin::env_site, ""}}, "/", 3, 11, probe);
  CHECK(mod.origin == "/d/mod.cpython-311-x86_64-linux-gnu.so");
  CHECK_FALSE(mod.package);
  CHECK_FALSE(python::find_module("mod.sub", {{"/d", python::PathOrigin::env_site, ""}}, "/", 3, 11, probe).found);
}

TEST_CASE("fnmatch and glob_in: torch's patterns, hidden names, readdir order") {
  CHECK(python::fnmatch("libcublas.so.12", "libcublas.so.*[0-9]"));
  CHECK(python::fnmatch("libcublas.so.12.1.3", "libcublas.so.*[0-9]"));
  CHECK_FALSE(python::fnmatch("libcublas.so.12.alt", "libcublas.so.*[0-9]"));
  CHECK_FALSE(python::fnmatch("libcublas.so", "libcublas.so.*[0-9]"));
  CHECK(python::fnmatch("libcublasLt.so.12", "libcublas*.so.*[0-9]"));
  CHECK(python::fnmatch("a]", "[!b]]"));
  CHECK_FALSE(python::fnmatch("b]", "[!b]]"));
  CHECK(python::fnmatch("[x", "[x"));   // an unclosed '[' is literal
  CHECK(python::fnmatch("x-", "x[a-]")); // a trailing '-' is literal
  CHECK(python::fnmatch("q", "[a-z]"));
  CHECK_FALSE(python::fnmatch("Q", "[a-z]"));
  MemoryProbe probe;
  probe.file("/s/nvidia/cublas/lib/libcublas.so.12.9");
  probe.file("/s/nvidia/cublas/lib/libcublas.so.12");
  probe.file("/s/nvidia/cublas/lib/.libcublas.so.12");
  auto hits = python::glob_in("nvidia/cublas/lib", "/s/nvidia/cublas/lib", "libcublas.so.*[0-9]", probe);
  CHECK(hits == std::vector<std::string>{"nvidia/cublas/lib/libcublas.so.12.9", "nvidia/cublas/lib/libcublas.so.12"});
  CHECK(python::glob_in("/s/none", "/s/none", "*", probe).empty());
  CHECK(python::glob_in("/s/nvidia/cublas/lib", "/s/nvidia/cublas/lib", "libcublas.so.12", probe) ==
        std::vector<std::string>{"/s/nvidia/cublas/lib/libcublas.so.12"});
}
