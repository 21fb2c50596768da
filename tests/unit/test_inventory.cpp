#include <doctest/doctest.h>

#include "inventory/components.hpp"
#include "inventory/inventory.hpp"
#include "inventory/records.hpp"
#include "support/fixture.hpp"
#include "sys/env_scan.hpp"

#include <chrono>
#include <filesystem>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sys/dist_info_cache.hpp"

using namespace condacuda::inventory;

TEST_CASE("component classification by file name and soname") {
  CHECK(classify_library("libcusparse.so.12")->id == "cusparse");
  CHECK(classify_library("libcusparseLt.so.0")->id == "cusparselt");
  CHECK(classify_library("libcublasLt.so.13")->id == "cublaslt");
  CHECK(classify_library("libcublas.so.13")->id == "cublas");
  CHECK(classify_library("libcudnn_engines_precompiled.so.9")->id == "cudnn");
  CHECK(classify_library("libnvrtc-builtins.so.13.0")->id == "nvrtc");
  CHECK(classify_library("libnvJitLink.so.12")->soname_is_cuda_major);
  CHECK_FALSE(classify_library("libcusparse.so.12")->soname_is_cuda_major); // .12 in CUDA 12 and 13
  CHECK_FALSE(classify_library("libz.so.1"));
  CHECK_FALSE(classify_library("cusparse.so"));
  CHECK(is_driver_library("libcuda.so.1"));
  CHECK(soname_major("libcudart.so.12.4.127") == 12);
  CHECK(soname_major("libfoo.so") == -1);
  CHECK(looks_like_shared_library("libx.so"));
  CHECK(looks_like_shared_library("_C.cpython-311-x86_64-linux-gnu.so"));
  CHECK(looks_like_shared_library("libx.so.1.2"));
  CHECK_FALSE(looks_like_shared_library("libx.solver"));
  CHECK_FALSE(looks_like_shared_library("x.sol"));
}

TEST_CASE("RECORD, METADATA and conda-meta parsing") {
  auto rec = parse_record("nvidia/cu13/lib/libcusparse.so.12,sha256=CTOf,162565256\n"
                          "\"odd,name.txt\",,\n"
                          "nvidia_cusparse-12.6.3.3.dist-info/RECORD,,\n");
  REQUIRE(rec.size() == 3);
  CHECK(rec[0].path == "nvidia/cu13/lib/libcusparse.so.12");
  CHECK(rec[0].hash == "sha256=CTOf");
  CHECK(rec[0].size == "162565256");
  CHECK(rec[1].path == "odd,name.txt");
  // With a filter, only the entries it keeps (quoted or not) are copied.
  auto libraries = parse_record("a/libx.so.1,sha256=AA,10\n\"b/lib,y.so\",sha256=BB,20\nc/x.h,,\n\"d,e.txt\",,\n",
                                [](std::string_view path) { return path.find(".so") != std::string_view::npos; });
  REQUIRE(libraries.size() == 2);
  CHECK(libraries[0].path == "a/libx.so.1");
  CHECK(libraries[0].hash == "sha256=AA");
  CHECK(libraries[1].path == "b/lib,y.so");
  CHECK(libraries[1].size == "20");
  auto meta = parse_metadata("Metadata-Version: 2.4\nName: nvidia-cusparse\nVersion: 12.6.3.3\n\nName: body\n");
  CHECK(meta.name == "nvidia-cusparse");
  CHECK(meta.version == "12.6.3.3");
  auto pkg = parse_conda_record(R"({"name": "libcusparse", "version": "12.5.8.93", "build": "h0",
    "files": ["lib/libcusparse.so.12"], "depends": ["cuda-version >=12.8,<12.9.0a0", "libnvjitlink"]})");
  REQUIRE(pkg.ok());
  CHECK(pkg->files.size() == 1);
  CHECK(conda_cuda_version_pin(pkg->depends) == 12);
  CHECK_FALSE(parse_conda_record("[1]").ok());
  CHECK_FALSE(parse_conda_record("{\"files\": []}").ok());
  CHECK(normalize_package_name("nvidia_cusparse_cu12") == "nvidia-cusparse-cu12");
  CHECK(wheel_cuda_suffix("nvidia-cusparse-cu12") == 12);
  CHECK(wheel_cuda_suffix("nvidia-nccl-cu13") == 13);
  CHECK(wheel_cuda_suffix("cupy-cuda12x") == std::nullopt);
  CHECK(wheel_cuda_suffix("nvidia-cusparse") == std::nullopt);
}

TEST_CASE("the dist-info cache keeps what parses the same as the whole file") {
  auto shared_library = [](std::string_view path) { return path.ends_with(".so.12"); };
  const std::string record = "a/libx.so.12,sha256=AA,10\r\n\"b/lib,y.so.12\",,\nc/x.h,,\n\n\"d,e.txt\",,\nlast/libz.so.12,,";
  const std::string kept = kept_record_lines(record, shared_library);
  CHECK(kept == "a/libx.so.12,sha256=AA,10\r\n\"b/lib,y.so.12\",,\nlast/libz.so.12,,\n");
  const auto whole = parse_record(record, shared_library), part = parse_record(kept, shared_library);
  REQUIRE(part.size() == 3);
  for (std::size_t i = 0; i < whole.size(); ++i)
    CHECK((part[i].path == whole[i].path && part[i].hash == whole[i].hash && part[i].size == whole[i].size));

  // A continuation extends the header before it: kept after a Requires-Dist,
  // dropped after another header (else it would extend the Requires-Dist
  // before that one). Name and Version: the first of each.
  const std::string metadata = "Metadata-Version: 2.4\r\nName: nvidia-cusparse\r\nRequires-Dist: nvidia-nvjitlink\r\n"
                               "  ==13.*\r\nSummary: a\r\n  long summary\r\nVersion: 12.6.3.3\r\nName: other\r\n"
                               "requires-dist: numpy\r\n\r\nName: body\nRequires-Dist: not-a-header\n";
  const std::string kept_meta = kept_metadata_lines(metadata);
  CHECK(kept_meta == "Name: nvidia-cusparse\r\nRequires-Dist: nvidia-nvjitlink\r\n  ==13.*\r\nVersion: 12.6.3.3\r\n"
                     "Name: other\r\nrequires-dist: numpy\r\n");
  const Metadata m = parse_metadata(metadata), k = parse_metadata(kept_meta);
  CHECK(k.name == "nvidia-cusparse");
  CHECK(k.version == "12.6.3.3");
  CHECK(k.requires_dist == std::vector<std::string>{"nvidia-nvjitlink ==13.*", "numpy"});
  CHECK((k.name == m.name && k.version == m.version && k.requires_dist == m.requires_dist));

  // Values hold any text on one line; only the escapes written are read.
  const std::string odd = "a%b\tc\r\nd%25";
  CHECK(condacuda::sys::encode_cache_text(odd) == "a%25b%09c%0D%0Ad%2525");
  CHECK(condacuda::sys::decode_cache_text(condacuda::sys::encode_cache_text(odd)) == odd);
  for (const char* bad : {"%", "%2", "%41", "%0a", "a\tb", "%zz"}) CHECK_FALSE(condacuda::sys::decode_cache_text(bad));
}

TEST_CASE("the env scan with the dist-info cache: a file is read again only when its key changes") {
  fixture::TempDir t("dist-info-cache");
  const std::string dist = t / "lib/python3.11/site-packages/nvidia_cusparse-12.6.3.3.dist-info";
  fixture::write_file(dist + "/METADATA", "Metadata-Version: 2.4\nName: nvidia-cusparse\nVersion: 12.6.3.3\n\nbody\n");
  fixture::write_file(dist + "/RECORD", "nvidia/cu13/lib/libcusparse.so.12,sha256=AA,10\nnvidia/cu13/include/x.h,,\n");
  const std::string cache = t / "cache/dist-info";
  std::vector<std::string> warnings;
  auto scan = [&](condacuda::sys::DistInfoCache& c) {
    auto snap = condacuda::sys::scan_env(t.path(), &c);
    REQUIRE(snap.ok());
    REQUIRE(snap->distributions.size() == 1);
    return snap->distributions.front();
  };
  // Files changed less than a second ago are not kept: their timestamps could repeat.
  {
    condacuda::sys::DistInfoCache fresh(cache);
    CHECK(scan(fresh).name == "nvidia-cusparse");
    fresh.save(warnings);
    CHECK_FALSE(std::filesystem::exists(cache));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  {
    condacuda::sys::DistInfoCache first(cache);
    first.load(warnings);
    const Distribution d = scan(first);
    CHECK(d.version == "12.6.3.3");
    REQUIRE(d.files.size() == 1);
    CHECK(d.files[0].hash == "sha256=AA");
    first.save(warnings);
  }
  const std::string text = fixture::read_file(cache);
  CHECK(text.starts_with("condacuda dist-info cache 1\n"));
  CHECK(text.find("Name: nvidia-cusparse%0AVersion: 12.6.3.3%0A\t") != std::string::npos); // the headers parsed, no body
  CHECK(text.find("libcusparse.so.12,sha256=AA,10%0A\t") != std::string::npos);           // no header file
  // A kept value is used as it is: planted, it names another distribution.
  fixture::write_file(cache, fixture::with_cache_value(text, dist + "/METADATA", "Name: planted%0AVersion: 1%0A"));
  {
    condacuda::sys::DistInfoCache planted(cache);
    planted.load(warnings);
    CHECK(scan(planted).name == "planted");
  }
  // A cache another user owns could say anything: ignored, with a warning.
  if (::geteuid() == 0) {
    REQUIRE(::chown(cache.c_str(), 4242, 4242) == 0);
    warnings.clear();
    condacuda::sys::DistInfoCache foreign(cache);
    foreign.load(warnings);
    CHECK(warnings.size() == 1);
    CHECK(scan(foreign).name == "nvidia-cusparse");
    REQUIRE(::chown(cache.c_str(), 0, 0) == 0);
  }
  // The same size and mtime, other bytes: the ctime changed, and the file is read again.
  struct stat before {};
  REQUIRE(::stat((dist + "/METADATA").c_str(), &before) == 0);
  fixture::write_file(dist + "/METADATA", "Metadata-Version: 2.4\nName: nvidia-cusparsf\nVersion: 12.6.3.3\n\nbody\n");
  const struct timespec times[2] = {before.st_atim, before.st_mtim};
  REQUIRE(::utimensat(AT_FDCWD, (dist + "/METADATA").c_str(), times, 0) == 0);
  {
    condacuda::sys::DistInfoCache changed(cache);
    changed.load(warnings);
    CHECK(scan(changed).name == "nvidia-cusparsf");
  }
  // A damaged cache is a miss, with a warning.
  fixture::write_file(cache, fixture::with_cache_value(text, dist + "/METADATA", "Name: x%0"));
  {
    warnings.clear();
    condacuda::sys::DistInfoCache damaged(cache);
    damaged.load(warnings);
    CHECK(warnings.size() == 1);
    CHECK(scan(damaged).name == "nvidia-cusparsf");
  }
}

TEST_CASE("inventory of a scanned env: owners, CUDA majors and their evidence, consumers, aliases") {
  fixture::TempDir t("inv");
  std::string sp = t / "lib/python3.11/site-packages";
  auto lib = [&](const std::string& rel, const std::string& soname, const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args{"-Wl,-soname," + soname};
    args.insert(args.end(), extra.begin(), extra.end());
    fixture::shared_library(t / rel, "int f_" + std::to_string(rel.size()) + "(void) { return 1; }\n", args);
  };
  fixture::write_file(t / "conda-meta/history", "");
  // A CUDA 13 wheel (no -cuNN suffix): the cu13 folder tells the major.
  lib("lib/python3.11/site-packages/nvidia/cu13/lib/libnvJitLink.so.13", "libnvJitLink.so.13");
  lib("lib/python3.11/site-packages/nvidia/cu13/lib/libcusparse.so.12", "libcusparse.so.12",
      {"-L" + sp + "/nvidia/cu13/lib", "-Wl,--no-as-needed", "-l:libnvJitLink.so.13"});
  fixture::write_file(sp + "/nvidia_cusparse-12.6.3.3.dist-info/METADATA", "Name: nvidia-cusparse\nVersion: 12.6.3.3\n");
  fixture::write_file(sp + "/nvidia_cusparse-12.6.3.3.dist-info/RECORD", "nvidia/cu13/lib/libcusparse.so.12,,\n");
  // A conda package pinned through cuda-version, with a soname symlink.
  lib("targets/x86_64-linux/lib/libcufft.so.11.2.1", "libcufft.so.11");
  std::filesystem::create_directories(t / "lib");
  std::filesystem::create_symlink("../targets/x86_64-linux/lib/libcufft.so.11.2.1", t / "lib/libcufft.so.11");
  fixture::write_file(t / "conda-meta/libcufft-11.2.1.3-h0.json",
                      R"({"name": "libcufft", "version": "11.2.1.3", "build": "h0",
                          "files": ["lib/libcufft.so.11", "targets/x86_64-linux/lib/libcufft.so.11.2.1"],
                          "depends": ["cuda-version >=12.4,<12.5.0a0"]})");
  // An unowned library whose soname gives the major; a consumer.
  lib("lib/libcudart.so.12", "libcudart.so.12");
  fixture::shared_library(sp + "/pkg/_ext.so", "int x(void) { return 0; }\n",
                          {"-L" + sp + "/nvidia/cu13/lib", "-Wl,--no-as-needed", "-l:libcusparse.so.12", "-Wl,-rpath-link," + sp + "/nvidia/cu13/lib"});
  fixture::write_file(t / "conda-meta/broken.json", "{ not json");

  auto snap = condacuda::sys::scan_env(t.path());
  REQUIRE(snap.ok());
  Inventory inv = build_inventory(*snap);
  auto find = [&](const std::string& soname) -> const Library& {
    const Library* l = inv.find_by_soname(soname);
    REQUIRE(l != nullptr);
    return *l;
  };
  CHECK(find("libcusparse.so.12").cuda_major == 13);
  CHECK(find("libcusparse.so.12").cuda_major_source == "cuNN folder");
  CHECK(find("libcusparse.so.12").package == "nvidia-cusparse");
  CHECK(find("libnvJitLink.so.13").manager.empty()); // no RECORD lists it
  CHECK(find("libcufft.so.11").cuda_major == 12);
  CHECK(find("libcufft.so.11").cuda_major_source == "cuda-version pin");
  CHECK(find("libcufft.so.11").names == std::vector<std::string>{"lib/libcufft.so.11"});
  CHECK(find("libcufft.so.11").manager == "conda");
  CHECK(find("libcudart.so.12").cuda_major_source == "soname");
  REQUIRE(inv.consumers.size() == 1);
  CHECK(inv.consumers[0].needs == std::vector<std::string>{"libcusparse.so.12"});
  CHECK(inv.cuda_summary() == "mixed");
  CHECK(inv.warnings.size() == 1); // the broken conda-meta record, named
}
