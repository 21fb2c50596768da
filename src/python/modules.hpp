#pragma once
// Where Python's import system finds a module on sys.path, and what
// glob.glob finds in one folder: what a framework's preloads use to turn a
// module or a pattern into a file to open (docs/frameworks.md). Pure: the
// file system only through PathProbe.
//
// Sources: CPython Lib/importlib/_bootstrap_external.py (FileFinder.find_spec:
// in each path entry a package folder with __init__ wins, then a module
// file, then a bare folder, which is a namespace portion;
// PathFinder._get_spec: the first regular package or module ends the
// search, portions are collected), Lib/glob.py and Lib/fnmatch.py.
#include <optional>
#include <string>
#include <vector>

#include "python/sys_path.hpp"

namespace condacuda::python {

struct ModuleSpec {
  bool found = false;
  bool package = false;          // a package (regular or namespace)
  bool namespace_package = false;
  std::string origin;            // the module's file (__init__.py for a regular package); "" for a namespace
  std::vector<std::string> path; // __path__ of a package: its folder(s), in order
  std::string entry;             // the sys.path entry it was found under (top-level search)
};

// The extension-module and source suffixes FileFinder tries, in its order,
// for CPython `version_tag` on x86-64 Linux ("3.11": .cpython-311-x86_64-linux-gnu.so, .abi3.so, .so, .py, .pyc).
std::vector<std::string> module_suffixes(int major, int minor);

// importlib.util.find_spec(name): a dotted name, each part looked up in the
// __path__ of its parent (the top level in sys.path's folders). A part
// that is a plain module ends the walk (it has no __path__).
ModuleSpec find_module(const std::string& dotted_name, const std::vector<SysPathEntry>& sys_path, const std::string& cwd,
                       int major, int minor, PathProbe& probe);

// fnmatch.fnmatchcase: '*', '?', '[...]' (with '!' negation and ranges).
bool fnmatch(const std::string& name, const std::string& pattern);

// glob.glob(folder + "/" + pattern) for a pattern without '/': the names of
// `folder` it matches, in readdir order (glob does not sort); a name
// starting with '.' only when the pattern does. Each result is
// `folder_as_written + "/" + name`.
std::vector<std::string> glob_in(const std::string& folder_as_written, const std::string& folder_on_disk,
                                 const std::string& pattern, PathProbe& probe);

// repr() of a list of str, as Python prints it ("['', '/usr/lib/python311.zip']"):
// what torch's ValueError shows of sys.path. Undecodable bytes print as the
// surrogate escapes Python's file system encoding gives them ('\udcff').
std::string repr_str_list(const std::vector<std::string>& items);

} // namespace condacuda::python
