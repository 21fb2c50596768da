#pragma once
// Reads, writes and deletes inside an env prefix that cannot leave it. An env
// is untrusted input (condacuda runs as root inside `conda install`): every
// path is relative and confined by its spelling (util::is_confined_relative_path),
// and is walked one component at a time from a descriptor of the prefix with
// O_NOFOLLOW | O_DIRECTORY, so that a symbolic link planted on the way
// (etc/conda -> /etc) is reported, never followed. Files are opened
// O_NONBLOCK | O_NOFOLLOW and read only when regular: a FIFO never blocks.
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "elf/pin.hpp"
#include "repair/changes.hpp"
#include "sys/posix.hpp"
#include "util/result.hpp"

namespace condacuda::sys {

class PrefixTree {
public:
  // The prefix itself is opened as given (links in its own path are the
  // user's choice); errors: not a folder, unreadable.
  static Result<PrefixTree> open(const std::string& prefix);

  const std::string& path() const { return path_; }

  // The exclusive lock that serialises repair and undo on this env: flock on
  // the prefix folder itself, so that it needs nothing created before it and
  // is never deleted (where a folder cannot be flocked, as on NFS: on the
  // env's conda-meta/history or pyvenv.cfg). Held until this PrefixTree is
  // destroyed (or the process ends). A holder past `wait` gives
  // ErrorCode::busy, naming its pid.
  Status lock(std::chrono::milliseconds wait);

  // What `rel` is, without following a link anywhere on its path; a regular
  // file is read (never blocking) and hashed; one over `max_bytes` is `other`.
  repair::PathState state(const std::string& rel, std::uint64_t max_bytes = 1u << 20) const;

  // The content of the regular file `rel`, nullopt when absent. Errors: not
  // a regular file (a FIFO is never opened for reading), larger than
  // `max_bytes`, behind a link, unreadable.
  Result<std::optional<std::string>> read_file(const std::string& rel, std::uint64_t max_bytes) const;

  // What a library to pin is: the SHA-256 of the regular file `rel` and that
  // of the file with `edit` made (elf::RetagHasher), read in bounded pieces,
  // never whole (sys/file_copy.hpp). With `through_link`, `rel` must be a
  // symlink (reached without links on its way) and the regular file it leads
  // to, anywhere (a package cache outside the env), is read, never blocking;
  // `link_text` is the link's text. nullopt when `rel` is absent (or, with
  // through_link, not a symlink). Errors: not a regular file, behind a link
  // (without through_link), larger than `max_bytes`, unreadable.
  struct Digests {
    std::string link_text;
    std::string sha256;
    std::string retagged_sha256; // "" when the edit cannot be made
  };
  Result<std::optional<Digests>> digests(const std::string& rel, const elf::TagEdit& edit, bool through_link,
                                         std::uint64_t max_bytes) const;
  // `to` replaced atomically by a copy of the regular file `from` (reached as
  // digests() reaches it, with `link_text` the link's text when through a
  // link) with `edit` made, and from's permission bits: copied to a
  // temporary beside `to` (sys::copy_file_sparse: a reflink where the file
  // system has one, holes kept), the tags checked and written (pwrite), the
  // copy hashed in pieces, fsync, renamed over `to`. false, with nothing
  // written, when `from` is not what was expected: absent, another link,
  // other tags at the offsets, a copy whose SHA-256 is not `sha256`.
  struct EditedCopy {
    std::string from;
    bool through_link = false;
    std::string link_text;
    std::string to;
    elf::TagEdit edit; // no offsets: a plain copy
    std::string sha256;
  };
  Result<bool> write_edited_copy(const EditedCopy& copy, std::uint64_t max_bytes);
  // The (device, inode) of `rel` itself (a link is not followed); nullopt
  // when it cannot be reached.
  std::optional<std::pair<std::uint64_t, std::uint64_t>> identity(const std::string& rel) const;
  // SHA-256 of the regular file `rel`, read in pieces; "" when it is absent,
  // not a regular file, behind a link or unreadable.
  std::string file_sha256(const std::string& rel) const;

  // A new name `to` for the regular file `from` (link(2), never following a
  // link; `to` must not exist): true when linked, false when the file system
  // cannot (another device, no hard links there).
  Result<bool> hard_link(const std::string& from, const std::string& to);
  // `to` becomes another name of the file `from` (the same inode), atomically:
  // a temporary link beside `to` renamed over it. false as for hard_link.
  Result<bool> replace_with_link(const std::string& from, const std::string& to);

  // mkdir of `rel`, whose parent must be a folder reached without links: true
  // when created, false when a folder is already there.
  Result<bool> make_directory(const std::string& rel);
  // A file or a symlink at `rel`, replaced atomically: a temporary beside it
  // (sys::temporary_marker) renamed over it in the same folder.
  Status write_file(const std::string& rel, std::string_view content, unsigned mode = 0644);
  Status write_symlink(const std::string& rel, const std::string& target);
  // Appends `text` to the regular file `rel`, created when absent; a link, a
  // FIFO or anything else there is an error, never opened for writing.
  Status append_file(const std::string& rel, std::string_view text);
  // unlink; already gone is not an error.
  Status remove_file(const std::string& rel);
  // Sets the mtime of folder `rel` (reached without links) to now.
  Status touch_folder(const std::string& rel);
  // rmdir when empty; anything else is left.
  void remove_directory_if_empty(const std::string& rel);
  // The names in folder `rel` ("" for the prefix), sorted; nullopt when it
  // cannot be listed (absent, behind a link).
  std::optional<std::vector<std::string>> list(const std::string& rel) const;
  // Renames `from` to `to` in one step, both in the same folder; fails when
  // `to` exists (RENAME_NOREPLACE): a folder can be built under a temporary
  // name and appear whole.
  Status rename_new(const std::string& from, const std::string& to);
  // Removes the temporaries an interrupted run left in folder `rel_dir` (""
  // for the prefix itself): files and links named "<name>.condacuda-tmp-...",
  // and folders so named with what they hold (never following a link).
  // Returns their names. A folder that is absent or behind a link is left alone.
  std::vector<std::string> remove_temporaries(const std::string& rel_dir);

private:
  PrefixTree(Fd root, std::string path) : root_(std::move(root)), path_(std::move(path)) {}
  // The env's owner for what was created at `leaf` in `dir` when it is still
  // of `type` (S_IFDIR, S_IFLNK; a link itself, never its target), or for the
  // open file `fd`; no-op unless owner_ is set. A refusal (root squashed on
  // NFS) leaves the file as created: still the env's, owned by its writer.
  void give_to_owner(int dir, const std::string& leaf, unsigned type) const;
  void give_to_owner(int fd) const;
  // The folder that holds `rel`'s last component, opened component by
  // component without following links; `leaf` receives that component.
  Result<Fd> parent_of(const std::string& rel, std::string& leaf) const;
  // The folder `rel` itself ("" for the prefix), opened the same way.
  Result<Fd> folder(const std::string& rel) const;
  Error unreachable(const std::string& rel, const std::string& component, int e) const;
  // The regular file `rel` opened for reading as digests() opens it.
  struct Source {
    Fd fd;
    std::string link_text;
    unsigned mode = 0644;
    std::uint64_t size = 0;
  };
  Result<std::optional<Source>> open_source(const std::string& rel, bool through_link, std::uint64_t max_bytes) const;

  Fd root_;
  std::string path_;
  // Who the files condacuda creates here belong to. Run as root (inside
  // `conda install`, or `sudo condacuda repair`) on an env that root does not
  // own, what it creates (folders, hooks, manifests, links, pinned copies) is
  // given to the prefix's owner and group, as the rest of the env is: the
  // user can still update or remove it. Otherwise (unset), or for another
  // name of an existing file (a hard link keeps its inode's owner), nothing
  // changes.
  std::optional<FileOwner> owner_;
  Fd lock_fd_; // the marker file locked where the folder cannot be
};

} // namespace condacuda::sys
