#include "sys/result_cache.hpp"

#include "sys/dist_info_cache.hpp"
#include "util/sha256.hpp"

namespace condacuda::sys {

namespace {
// Each value is text (encode_cache_text); its key a digest, the file key
// fields zero: the stamps are in the digest. What a value means, and what
// its key is made of, belong to the code that writes it: a change of either
// needs a new format line here.
const CacheFormat result_cache_format{"result cache", "condacuda result cache 1", valid_cache_text};

} // namespace

ResultCache::ResultCache(std::string path, std::string_view program_version)
    : cache_(std::move(path), result_cache_format), version_(std::string(program_version) + "\n") {}

std::string ResultCache::digest_of(std::string_view inputs) const {
  util::Sha256 hash;
  hash.update(version_);
  hash.update(inputs);
  return util::to_hex(hash.finish());
}

std::string ResultCache::default_path() { return default_cache_path("results"); }

void ResultCache::load(std::vector<std::string>& warnings) { cache_.load(warnings); }

void ResultCache::save(std::vector<std::string>& warnings) const { cache_.save(warnings); }

std::optional<std::string> ResultCache::find(std::string_view inputs) {
  auto hit = cache_.find(digest_of(inputs), FileKey{});
  if (!hit) return std::nullopt;
  return decode_cache_text(*hit); // valid: load checked every value
}

void ResultCache::remember(std::string_view inputs, std::string_view value) {
  cache_.store(digest_of(inputs), FileKey{}, encode_cache_text(value));
}

} // namespace condacuda::sys
