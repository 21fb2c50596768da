#pragma once
// An elf::TableSource over given bytes: what the system layer's pread gives
// (sys::DescriptorCopies), changed or refused where a case needs it.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "elf/table_source.hpp"

namespace fixture {

struct BytesSource final : condacuda::elf::TableSource {
  std::vector<std::byte> bytes;
  bool refuse;
  mutable int copies = 0;
  BytesSource(std::vector<std::byte> b, bool refuse_copies) : bytes(std::move(b)), refuse(refuse_copies) {}
  bool copy(std::uint64_t offset, std::span<std::byte> out) const override {
    ++copies;
    if (refuse || offset > bytes.size() || bytes.size() - offset < out.size()) return false;
    std::memcpy(out.data(), bytes.data() + offset, out.size());
    return true;
  }
};

} // namespace fixture
