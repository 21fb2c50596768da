#pragma once
// The POSIX toolbox every adapter of the system layer shares: one owner of a
// file descriptor, one mapping from errno to ErrorCode (so that a failure exits
// the same way whichever file saw it), and one atomic writer for files and
// symlinks.
#include <optional>
#include <string>
#include <vector>
#include <string_view>

#include "util/result.hpp"

namespace condacuda::sys {

// Owns a file descriptor; closes it once.
class Fd {
public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  Fd& operator=(Fd&& other) noexcept;
  ~Fd();

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() noexcept;

private:
  int fd_ = -1;
};

// ENOENT and ENOTDIR (the path, or a folder on it, does not exist) are
// not_found; everything else the operating system refuses is io.
ErrorCode error_code_for_errno(int e);
// "<what>: <strerror(e)>" about `path`, with the code above.
Error errno_error(int e, std::string_view what, const std::string& path);

// Writes all of `content` to the open `fd` (retrying short writes and EINTR);
// an error names `path` with `what` ("cannot write").
Status write_all(int fd, std::string_view content, const char* what, const std::string& path);

// Every temporary file or link condacuda creates is named
// "<target><temporary_marker><unique>" in the target's folder.
inline constexpr std::string_view temporary_marker = ".condacuda-tmp-";
// A name for a temporary beside `name` that no other writer uses at the same
// time: "<name>.condacuda-tmp-<pid>-<n>".
std::string temporary_name(const std::string& name);

// Whether a write waits for the disk (fsync) before its rename: what must
// survive a power cut does (the manifest, the hooks, a pinned library); a
// cache need not: one lost or cut short is ignored and rewritten, and a
// first doctor run writes four (on the 2-core VM an fsync took 0.5 to 0.8 ms).
enum class Durability { synced, cache };

// A new empty file beside `name` in the open folder `dir`, named
// temporary_name(name), created exclusively (O_EXCL | O_NOFOLLOW: never
// through a planted link), open for reading and writing, mode 0600; with its name.
struct Temporary {
  Fd fd;
  std::string name;
};
Result<Temporary> create_temporary_at(int dir, const std::string& name, const std::string& shown);
// The temporary's end: fchmod to `mode`, fsync, close, renamed over `name`;
// removed on any failure.
Status commit_temporary_at(int dir, Temporary tmp, const std::string& name, unsigned mode, const std::string& shown,
                           Durability durability = Durability::synced);

// Writes `content` to `path` atomically: a temporary file beside it, created
// exclusively (never through a planted link), fsync, then renamed over the
// target with `mode`. Nothing is left behind on failure.
Status write_file_atomically(const std::string& path, std::string_view content, unsigned mode = 0644,
                             Durability durability = Durability::synced);

// The same for the entry `name` of the open folder `dir` (`shown` is the
// path errors name), the temporary given to `owner` when one is named (by its
// descriptor, before the rename: nothing else can be there yet); and a
// symlink `name` -> `target` written the same way: a temporary link beside it
// renamed over it.
struct FileOwner {
  uid_t uid;
  gid_t gid;
};
Status write_file_at(int dir, const std::string& name, std::string_view content, unsigned mode,
                     const std::string& shown, std::optional<FileOwner> owner = std::nullopt,
                     Durability durability = Durability::synced);
Status write_symlink_at(int dir, const std::string& name, const std::string& target, const std::string& shown);

// Writes `content` to a file the user named (`lock -o FILE`), as `sort -o`
// and compilers do: a symlink is followed (the atomic replace happens at the
// file it leads to, in that file's folder; a dangling one creates its
// target); a regular file or a new path is written atomically, keeping an
// existing file's mode; anything else that exists (a device, a FIFO) is
// opened and written, never replaced: a FIFO nobody reads is an error, never
// a wait; a folder or a socket is an error.
Status write_named_output(const std::string& path, std::string_view content);

// Whether `path` is a folder (links followed).
bool is_directory(const std::string& path);
// Whether something is at `path` (links followed).
bool path_exists(const std::string& path);

// realpath, or the lexically normal path when the file does not exist.
std::string canonical_path(const std::string& path);
// The real path of the running binary (/proc/self/exe).
std::string self_executable();

// The regular files in folder `dir` (links followed, no subfolders), sorted;
// an error when it cannot be listed.
Result<std::vector<std::string>> regular_files_in(const std::string& dir);

// `name` looked up on this process's PATH, as execvp does: the first
// executable regular file; nullopt when none.
std::optional<std::string> find_program(const std::string& name);

} // namespace condacuda::sys
