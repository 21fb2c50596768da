#pragma once
// Where this installation keeps its assets: <bin>/../share/condacuda of the
// running binary (`condacuda --print-share-dir`).
#include <string>

namespace condacuda::app {

struct ShareDir {
  std::string path;
  bool exists = false; // an installed condacuda; false in a build tree
};

ShareDir share_dir();

} // namespace condacuda::app
