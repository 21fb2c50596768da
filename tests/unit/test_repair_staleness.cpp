// repair/staleness: the recorded plan against today's. The hooks put the
// recorded folders first on LD_LIBRARY_PATH in their order, and the order
// decides which copy of a soname a search finds: the same folders in another
// order are a stale repair as much as a folder more or less.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "repair/staleness.hpp"
#include "support/fixture.hpp"
#include "sys/disk_file_view.hpp"
#include "sys/machine.hpp"

using namespace condacuda;

namespace {

repair::RepairPlan plan_with_folders(const std::vector<std::string>& folders) {
  repair::RepairPlan plan;
  for (const auto& f : folders) plan.folders.push_back({f, {}});
  return plan;
}

repair::Manifest recorded_with_folders(const std::vector<std::string>& folders) {
  repair::Manifest m;
  m.folders = folders;
  return m;
}

const std::string cusparse = "lib/python3.11/site-packages/nvidia/cusparse/lib";
const std::string nvjitlink = "lib/python3.11/site-packages/nvidia/nvjitlink/lib";
const std::string cublas = "lib/python3.11/site-packages/nvidia/cublas/lib";

} // namespace

TEST_CASE("plan_difference: the recorded folders in another order (the same count) are stale") {
  const auto recorded = recorded_with_folders({nvjitlink, cusparse, cublas});
  CHECK(repair::plan_difference(recorded, plan_with_folders({nvjitlink, cusparse, cublas})).empty());
  const auto swapped = repair::plan_difference(recorded, plan_with_folders({cusparse, nvjitlink, cublas}));
  const std::vector<std::string> swapped_order = {"folder order: " + cusparse + ", " + nvjitlink + ", " + cublas};
  CHECK_MESSAGE(swapped == swapped_order,
                "the same folders in another order are not reported as a stale repair");
  const auto rotated = repair::plan_difference(recorded, plan_with_folders({cublas, nvjitlink, cusparse}));
  const std::vector<std::string> rotated_order = {"folder order: " + cublas + ", " + nvjitlink + ", " + cusparse};
  CHECK_MESSAGE(rotated == rotated_order,
                "the same folders rotated are not reported as a stale repair");
}

TEST_CASE("plan_difference: a folder more or less is named, and the order line only comes with the same folders") {
  const auto recorded = recorded_with_folders({nvjitlink, cusparse});
  CHECK(repair::plan_difference(recorded, plan_with_folders({nvjitlink, cusparse, cublas})) ==
        std::vector<std::string>{"+ folder " + cublas});
  CHECK(repair::plan_difference(recorded, plan_with_folders({cusparse})) == std::vector<std::string>{"- folder " + nvjitlink});
  // Another folder in place of one (the same count): the change, not an order.
  CHECK(repair::plan_difference(recorded, plan_with_folders({cublas, cusparse})) ==
        std::vector<std::string>{"+ folder " + cublas, "- folder " + nvjitlink});
}

TEST_CASE("the stale-repair finding shows the order today's plan has") {
  const auto difference = repair::plan_difference(recorded_with_folders({nvjitlink, cusparse}),
                                                  plan_with_folders({cusparse, nvjitlink}));
  const auto f = repair::stale_repair_finding("/envs/demo", difference);
  CHECK(f.code == doctor::code::stale_repair);
  CHECK(f.severity == doctor::Severity::warning);
  CHECK(std::find(f.evidence.begin(), f.evidence.end(), "  folder order: " + cusparse + ", " + nvjitlink) != f.evidence.end());
}

// dangling_links, on real files: a link repair made is dangling when its
// target is gone, or when its folder holds nothing but repair's links (pip
// removed the package around it); a link whose target is there, in a folder
// with the package's own files, is not.
TEST_CASE("dangling_links: the target gone, or the link alone in its folder") {
  fixture::TempDir dir("stale");
  const std::string p = dir.path();
  fixture::make_dirs(p + "/" + cusparse);
  fixture::make_dirs(p + "/" + nvjitlink);
  fixture::make_dirs(p + "/" + cublas);
  fixture::write_file(p + "/" + nvjitlink + "/libnvJitLink.so.12", "library");
  fixture::write_file(p + "/" + cusparse + "/libcusparse.so.12", "library");
  auto link_entry = [](const std::string& path, const std::string& target) {
    repair::ManifestEntry e;
    e.path = path;
    e.kind = repair::ManifestEntry::Kind::symlink;
    e.target = target;
    return e;
  };
  repair::Manifest m;
  // Kept: the target exists, its folder has the package's file.
  m.entries.push_back(link_entry(cusparse + "/libnvJitLink.so.12", "../../nvjitlink/lib/libnvJitLink.so.12"));
  // Dangling: its target was never there (uninstalled since).
  m.entries.push_back(link_entry(cusparse + "/libcublasLt.so.12", "../../cublas/lib/libcublasLt.so.12"));
  // Alone: the target exists but the folder has only condacuda's link.
  m.entries.push_back(link_entry(cublas + "/libnvJitLink.so.12", "../../nvjitlink/lib/libnvJitLink.so.12"));
  m.entries.push_back({"etc/conda/activate.d/condacuda.sh", repair::ManifestEntry::Kind::file, "sha", "", "", ""});
  const std::map<std::string, std::vector<std::string>> names{
      {cusparse, {"libcusparse.so.12", "libnvJitLink.so.12", "libcublasLt.so.12"}},
      {cublas, {"libnvJitLink.so.12"}},
  };
  sys::DiskFileView files{sys::host_machine()};
  CHECK(repair::dangling_links(m, p, files, names) ==
        std::vector<std::string>{cusparse + "/libcublasLt.so.12", cublas + "/libnvJitLink.so.12"});
  // Without the names of a link's folder, only a missing target counts.
  CHECK(repair::dangling_links(m, p, files, {}) == std::vector<std::string>{cusparse + "/libcublasLt.so.12"});
}
