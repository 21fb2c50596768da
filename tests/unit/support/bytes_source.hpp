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
  mutable std::vector<std::uint64_t> offsets; // of each copy asked for, in order
  BytesSource(std::vector<std::byte> b, bool refuse_copies) : bytes(std::move(b)), refuse(refuse_copies) {}
  // How many copies began inside [start, end).
  int copies_in(std::uint64_t start, std::uint64_t end) const {
    int n = 0;
    for (auto o : offsets) n += o >= start && o < end;
    return n;
  }
  bool copy(std::uint64_t offset, std::span<std::byte> out) const override {
    ++copies;
    offsets.push_back(offset);
    if (refuse || offset > bytes.size() || bytes.size() - offset < out.size()) return false;
    std::memcpy(out.data(), bytes.data() + offset, out.size());
    return true;
  }
};

} // namespace fixture
