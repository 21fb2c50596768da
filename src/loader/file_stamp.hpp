#pragma once
#include <cstdint>
#include <string>

#include "util/memo_text.hpp"

namespace condacuda::loader {

// A file's identity across runs: device, inode, size, mtime and ctime in
// nanoseconds, what the system layer's caches key files by (a rewrite changes
// size or mtime, a replacement the inode, and touch -d cannot set ctime
// back). A later run that sees the same stamp sees the same bytes. All zero
// when there is none to give: no file, or one changed within the last
// second, whose timestamps cannot vouch for it yet.
struct FileStamp {
  std::uint64_t dev = 0, ino = 0, size = 0;
  std::int64_t mtime_ns = 0, ctime_ns = 0;
  bool known() const { return mtime_ns != 0 || ctime_ns != 0 || ino != 0; }
  bool operator==(const FileStamp&) const = default;
};

// A stamp as key material for a ResultMemo (util/memo_text.hpp).
inline void put_stamp(std::string& out, const FileStamp& s) {
  util::put_raw(out, s.dev);
  util::put_raw(out, s.ino);
  util::put_raw(out, s.size);
  util::put_raw(out, s.mtime_ns);
  util::put_raw(out, s.ctime_ns);
}

} // namespace condacuda::loader
