#pragma once
// Where this installation keeps its parts, found from the running binary so
// that an unpacked tarball or a wheel works wherever it lands: the assets in
// <bin>/../share/condacuda (`condacuda --print-share-dir`), the GPU child in
// <bin>/../libexec/condacuda (docs/portable.md).
#include <string>

namespace condacuda::app {

struct ShareDir {
  std::string path;
  bool exists = false; // an installed condacuda; false in a build tree
};

ShareDir share_dir();

// The GPU child of `check` and of `--gpu auto|visible`, a program of its own:
// it must dlopen the driver and the env's libraries, which the static
// condacuda cannot (docs/portable.md). <bin>/../libexec/condacuda/condacuda-probe
// when installed, else <bin>/condacuda-probe (a build tree); the installed
// path when neither exists, so that the failure to start it names where it
// belongs.
std::string probe_executable();

} // namespace condacuda::app
