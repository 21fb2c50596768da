// sys/system_cuda: the node's own CUDA folders, found under a scratch root
// laid out as a node (the function takes the root to look under).
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
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

TEST_CASE("system_cuda_dirs with folder verdicts: a folder is listed again only when a name in it changes") {
  fixture::TempDir root("system-cuda-verdicts");
  const std::string r = root.path();
  fixture::write_file(root / "usr/local/cuda-12.4/lib64/libcublas.so.12", "");
  fixture::write_file(root / "opt/other/lib/libfoo.so.1", "");
  fixture::write_file(root / "etc/ld.so.conf.d/a.conf", "/opt/other/lib\n");
  const std::string cache = r + "/cache/system-folders";
  const std::vector<std::string> expected{r + "/usr/local/cuda-12.4/lib64"};
  std::vector<std::string> warnings;
  // Folders changed less than a second ago are not kept: their timestamps could repeat.
  {
    sys::FolderVerdicts fresh(cache);
    CHECK(sys::system_cuda_dirs(r, &fresh) == expected);
    fresh.save(warnings);
    CHECK_FALSE(std::filesystem::exists(cache));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  {
    sys::FolderVerdicts first(cache);
    first.load(warnings);
    CHECK(sys::system_cuda_dirs(r, &first) == expected);
    first.save(warnings);
  }
  const std::string text = fixture::read_file(cache);
  CHECK(text.starts_with("condacuda system folder cache 1\n"));
  CHECK(text.find("cuda\t") != std::string::npos);
  CHECK(text.find("\t" + r + "/opt/other/lib\n") != std::string::npos);

  // A kept verdict is used as it is: planted, it lists a folder that holds no CUDA library.
  fixture::write_file(cache, fixture::with_cache_value(text, r + "/opt/other/lib", "cuda"));
  {
    sys::FolderVerdicts planted(cache);
    planted.load(warnings);
    CHECK(sys::system_cuda_dirs(r, &planted) == std::vector<std::string>{r + "/usr/local/cuda-12.4/lib64", r + "/opt/other/lib"});
  }
  // A name added to the folder changes its key: the folder is listed again, and the verdict is its own.
  fixture::write_file(root / "opt/other/lib/libbar.so.2", "");
  {
    sys::FolderVerdicts changed(cache);
    changed.load(warnings);
    CHECK(sys::system_cuda_dirs(r, &changed) == expected);
  }
  // A damaged cache is a miss, with a warning.
  fixture::write_file(cache, "condacuda system folder cache 1\nmaybe\t1\t2\t3\t4\t5\t" + r + "/opt/other/lib\n");
  {
    warnings.clear();
    sys::FolderVerdicts damaged(cache);
    damaged.load(warnings);
    CHECK(warnings.size() == 1);
    CHECK(sys::system_cuda_dirs(r, &damaged) == expected);
  }
  CHECK(warnings.size() == 1);
}
