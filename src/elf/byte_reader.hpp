#pragma once
// The one bounds-checked reader all binary input goes through (ELF files,
// /etc/ld.so.cache). Every read names an offset and a length and is checked with
// `offset <= size && n <= size - offset` (no pointer arithmetic that can wrap);
// fields are little-endian and read with memcpy, so alignment does not matter.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string_view>

namespace condacuda::elf {

class ByteReader {
public:
  ByteReader() = default;
  explicit ByteReader(std::span<const std::byte> data) : data_(data) {}
  // `head`: a copy of data's first bytes. Reads that lie inside it come from
  // it: a file's first page read with pread(2) is never faulted in through
  // the map (elf/elf_object.hpp FileBytes). The bounds are data's either way.
  ByteReader(std::span<const std::byte> data, std::span<const std::byte> head)
      : data_(data), head_(head.size() <= data.size() ? head : head.first(data.size())) {}
  ByteReader(const void* data, std::size_t size)
      : data_(static_cast<const std::byte*>(data), size) {}

  std::uint64_t size() const { return data_.size(); }

  bool has(std::uint64_t offset, std::uint64_t n) const {
    return offset <= data_.size() && n <= data_.size() - offset;
  }

  std::optional<std::uint8_t> u8(std::uint64_t offset) const { return read<std::uint8_t>(offset); }
  std::optional<std::uint16_t> u16(std::uint64_t offset) const { return read<std::uint16_t>(offset); }
  std::optional<std::uint32_t> u32(std::uint64_t offset) const { return read<std::uint32_t>(offset); }
  std::optional<std::uint64_t> u64(std::uint64_t offset) const { return read<std::uint64_t>(offset); }
  std::optional<std::int32_t> i32(std::uint64_t offset) const { return read<std::int32_t>(offset); }
  std::optional<std::int64_t> i64(std::uint64_t offset) const { return read<std::int64_t>(offset); }

  // Whether cstring(offset, limit) would be `text`, decided in place: the
  // bytes of `text` then a NUL, all before `limit`, without measuring the
  // string first (a lookup compares many names that differ early).
  bool cstring_equals(std::uint64_t offset, std::uint64_t limit, std::string_view text) const {
    if (limit > data_.size()) limit = data_.size();
    if (offset >= limit || limit - offset < text.size() + 1) return false;
    const char* start = reinterpret_cast<const char*>(at(offset, text.size() + 1));
    return start[text.size()] == '\0' && std::memcmp(start, text.data(), text.size()) == 0 &&
           std::memchr(text.data(), 0, text.size()) == nullptr; // a NUL inside `text` ends cstring's string before it
  }

  // A NUL-terminated string starting at offset that must end before `limit`
  // (an exclusive bound, e.g. the end of the string table). nullopt when the
  // start is out of range or no NUL occurs before the limit.
  std::optional<std::string_view> cstring(std::uint64_t offset, std::uint64_t limit) const {
    if (limit > data_.size()) limit = data_.size();
    if (offset >= limit) return std::nullopt;
    if (offset < head_.size()) {
      // Ended inside the copy: read there; else the map says where it ends.
      const char* start = reinterpret_cast<const char*>(head_.data()) + offset;
      const std::uint64_t in_head = std::min<std::uint64_t>(limit, head_.size()) - offset;
      if (const void* nul = std::memchr(start, 0, static_cast<std::size_t>(in_head)))
        return std::string_view(start, static_cast<std::size_t>(static_cast<const char*>(nul) - start));
    }
    const char* start = reinterpret_cast<const char*>(data_.data()) + offset;
    const void* nul = std::memchr(start, 0, static_cast<std::size_t>(limit - offset));
    if (!nul) return std::nullopt;
    return std::string_view(start, static_cast<std::size_t>(static_cast<const char*>(nul) - start));
  }

  std::optional<std::span<const std::byte>> bytes(std::uint64_t offset, std::uint64_t n) const {
    if (!has(offset, n)) return std::nullopt;
    return std::span<const std::byte>(at(offset, n), static_cast<std::size_t>(n));
  }

  // A reader over [offset, offset + n), or nullopt when out of range.
  std::optional<ByteReader> sub(std::uint64_t offset, std::uint64_t n) const {
    auto b = bytes(offset, n);
    if (!b) return std::nullopt;
    return ByteReader(*b);
  }

  // The bytes read (the map, not the head's copy).
  std::span<const std::byte> span() const { return data_; }
  std::span<const std::byte> head() const { return head_; }

private:
  template <class T>
  std::optional<T> read(std::uint64_t offset) const {
    static_assert(std::endian::native == std::endian::little,
                  "condacuda reads little-endian files on little-endian hosts only");
    if (!has(offset, sizeof(T))) return std::nullopt;
    T value;
    std::memcpy(&value, at(offset, sizeof(T)), sizeof(T));
    return value;
  }

  // Where [offset, offset + n) is read, has(offset, n) being true: the
  // head's copy when it holds all of it.
  const std::byte* at(std::uint64_t offset, std::uint64_t n) const {
    return n <= head_.size() && offset <= head_.size() - n ? head_.data() + offset : data_.data() + offset;
  }

  std::span<const std::byte> data_;
  std::span<const std::byte> head_;
};

} // namespace condacuda::elf
