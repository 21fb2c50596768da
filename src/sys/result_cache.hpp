#pragma once
// The loader model's results kept between runs (loader::ResultMemo): what
// binding the symbols of a root's closure left unbound, keyed by the SHA-256
// of everything it read, the stamps of the files included. A repeated doctor
// run looks no symbol up.
//
// Kept in $XDG_CACHE_HOME/condacuda/results, beside the load checks, with
// their rules: a cache another user owns, or others may write, is ignored,
// and a damaged one is rewritten; a value that does not fit the files it
// names is a miss, computed again. Files changed less than a second ago have
// no stamp, so nothing that read them is kept.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "loader/file_system_view.hpp"
#include "sys/hash_cache.hpp"

namespace condacuda::sys {

class ResultCache final : public loader::ResultMemo {
public:
  // `path` "": nothing read or kept (--no-cache). `program_version` is
  // hashed into every key: another release may compute another result from
  // the same files.
  ResultCache(std::string path, std::string_view program_version);
  static std::string default_path();      // "" when there is no cache folder
  void load(std::vector<std::string>& warnings);
  void save(std::vector<std::string>& warnings) const;

  std::optional<std::string> find(std::string_view inputs) override;
  void remember(std::string_view inputs, std::string_view value) override;

private:
  std::string digest_of(std::string_view inputs) const;
  HashCache cache_;
  std::string version_;
};

} // namespace condacuda::sys
