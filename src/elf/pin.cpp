#include "elf/pin.hpp"

#include <algorithm>

namespace condacuda::elf {

std::vector<std::uint64_t> runpath_tag_offsets(const ElfObject& object) {
  return object.dynamic_entry_offsets(runpath_tag);
}

std::optional<std::string> pin_refusal(const ElfObject& object) {
  const auto runpaths = object.dynamic_entry_offsets(runpath_tag);
  const auto rpaths = object.dynamic_entry_offsets(rpath_tag);
  if (runpaths.empty() || rpaths.empty() || rpaths.back() < runpaths.back()) return std::nullopt;
  return "it has a DT_RPATH entry ('" + std::string(object.dynamic().rpath.value_or("")) +
         "', dormant beside its DT_RUNPATH) after its last DT_RUNPATH: once flipped, ld.so would keep that one, "
         "the last DT_RPATH it reads, and not the pinned search path";
}

std::string tag_bytes(std::int64_t tag) {
  std::string out(8, '\0');
  auto v = static_cast<std::uint64_t>(tag);
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
  return out;
}

Result<std::vector<BytePatch>> retag_patches(std::string_view bytes, const TagEdit& edit) {
  std::vector<BytePatch> out;
  const std::string was = tag_bytes(edit.from), now = tag_bytes(edit.to);
  for (std::uint64_t at : edit.offsets) {
    if (at > bytes.size() || bytes.size() - at < 8)
      return make_error(ErrorCode::corrupt, "dynamic entry at offset " + std::to_string(at) + " is past the end of the file");
    if (bytes.compare(at, 8, was) != 0 ||
        std::any_of(out.begin(), out.end(), [&](const BytePatch& p) { return p.offset == at; }))
      return make_error(ErrorCode::corrupt, "the dynamic entry at offset " + std::to_string(at) + " is not tag " +
                                                std::to_string(edit.from) + " (the file changed)");
    out.push_back({at, now});
  }
  return out;
}

Result<std::string> apply_patches(std::string_view bytes, const std::vector<BytePatch>& patches) {
  std::string out(bytes);
  for (const auto& p : patches) {
    if (p.offset > out.size() || out.size() - p.offset < p.bytes.size())
      return make_error(ErrorCode::corrupt, "a patch at offset " + std::to_string(p.offset) + " is past the end of the file");
    out.replace(p.offset, p.bytes.size(), p.bytes);
  }
  return out;
}

Result<std::string> retag(std::string_view bytes, const std::vector<std::uint64_t>& offsets, std::int64_t from,
                          std::int64_t to) {
  auto patches = retag_patches(bytes, {offsets, from, to});
  if (!patches) return patches.error();
  return apply_patches(bytes, *patches);
}

RetagHasher::RetagHasher(TagEdit edit)
    : offsets_(std::move(edit.offsets)), was_(tag_bytes(edit.from)), now_(tag_bytes(edit.to)) {
  std::sort(offsets_.begin(), offsets_.end());
  for (std::size_t i = 1; i < offsets_.size(); ++i)
    if (offsets_[i] - offsets_[i - 1] < 8) broken_ = true; // given twice, or overlapping
}

void RetagHasher::update(std::string_view piece) {
  std::uint64_t at = fed_;
  fed_ += piece.size();
  if (!edited_) {
    if (offsets_.empty() || fed_ <= offsets_.front()) {
      plain_.update(piece); // before the first offset: one message for both
      return;
    }
    const auto shared = static_cast<std::size_t>(offsets_.front() - at);
    plain_.update(piece.substr(0, shared));
    edited_ = plain_; // the edited message forks here
    piece.remove_prefix(shared);
    at += shared;
  }
  plain_.update(piece);
  // The first tag that ends after `at`; the piece changes only where tags lie.
  auto it = std::upper_bound(offsets_.begin(), offsets_.end(), at, [](std::uint64_t a, std::uint64_t o) { return a < o + 8; });
  if (it == offsets_.end() || *it >= at + piece.size()) {
    edited_->update(piece);
    return;
  }
  std::string changed(piece);
  for (; it != offsets_.end() && *it < at + piece.size(); ++it)
    for (std::uint64_t i = std::max(*it, at); i < std::min(*it + 8, at + piece.size()); ++i) {
      char& c = changed[static_cast<std::size_t>(i - at)];
      if (c != was_[static_cast<std::size_t>(i - *it)]) broken_ = true;
      c = now_[static_cast<std::size_t>(i - *it)];
    }
  edited_->update(changed);
}

RetagHasher::Digests RetagHasher::finish() {
  Digests out;
  out.sha256 = util::to_hex(plain_.finish());
  const bool fits = offsets_.empty() || (fed_ >= 8 && offsets_.back() <= fed_ - 8);
  if (!offsets_.empty() && edited_ && fits && !broken_) out.retagged_sha256 = util::to_hex(edited_->finish());
  else if (offsets_.empty()) out.retagged_sha256 = out.sha256;
  return out;
}

} // namespace condacuda::elf
