// sys/system_cuda: the node's own CUDA folders, found under a scratch root
// laid out as a node (the function takes the root to look under).
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "sys/system_cuda.hpp"
#include "support/fixture.hpp"

using namespace condacuda;

TEST_CASE("system_cuda_dirs: /usr/local/cuda*, once each through links, and ld.so.conf.d folders holding a CUDA library") {
  fixture::TempDir root("system-cuda");
  const std::string r = root.path();
  fixture::write_file(root / "usr/local/cuda-12.4/lib64/libcublas.so.12", "");
  std::filesystem::create_directory_symlink("cuda-12.4", r + "/usr/local/cuda"); // the same folder again
  fixture::write_file(root / "usr/local/cuda-12.4/lib/README", "");              // no library: not one
  fixture::write_file(root / "opt/other/lib/libfoo.so.1", "");                   // not CUDA
  fixture::write_file(root / "opt/cudalib/libcudart.so.12", "");
  for (int i = 0; i < 300; ++i) fixture::write_file(root / ("opt/cudalib/libz" + std::to_string(i) + ".so"), "");
  fixture::write_file(root / "etc/ld.so.conf.d/x86_64-linux-gnu.conf",
                      "# a comment\n/opt/other/lib\n\n/opt/cudalib\ninclude /etc/elsewhere/*.conf\n/opt/missing\n");
  CHECK(sys::system_cuda_dirs(r) == std::vector<std::string>{r + "/usr/local/cuda/lib64", r + "/opt/cudalib"});

  fixture::TempDir empty("system-cuda-none");
  CHECK(sys::system_cuda_dirs(empty.path()).empty());
}
