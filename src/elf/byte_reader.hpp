#pragma once
// The one bounds-checked reader all binary input goes through (ELF files,
// /etc/ld.so.cache). Every read names an offset and a length and is checked with
// `offset <= size && n <= size - offset` (no pointer arithmetic that can wrap);
// fields are little-endian and read with memcpy, so alignment does not matter.
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
    const char* start = reinterpret_cast<const char*>(data_.data()) + offset;
    return start[text.size()] == '\0' && std::memcmp(start, text.data(), text.size()) == 0 &&
           std::memchr(text.data(), 0, text.size()) == nullptr; // a NUL inside `text` ends cstring's string before it
  }

  // A NUL-terminated string starting at offset that must end before `limit`
  // (an exclusive bound, e.g. the end of the string table). nullopt when the
  // start is out of range or no NUL occurs before the limit.
  std::optional<std::string_view> cstring(std::uint64_t offset, std::uint64_t limit) const {
    if (limit > data_.size()) limit = data_.size();
    if (offset >= limit) return std::nullopt;
    const char* start = reinterpret_cast<const char*>(data_.data()) + offset;
    const void* nul = std::memchr(start, 0, static_cast<std::size_t>(limit - offset));
    if (!nul) return std::nullopt;
    return std::string_view(start, static_cast<std::size_t>(static_cast<const char*>(nul) - start));
  }

  std::optional<std::span<const std::byte>> bytes(std::uint64_t offset, std::uint64_t n) const {
    if (!has(offset, n)) return std::nullopt;
    return data_.subspan(static_cast<std::size_t>(offset), static_cast<std::size_t>(n));
  }

  // A reader over [offset, offset + n), or nullopt when out of range.
  std::optional<ByteReader> sub(std::uint64_t offset, std::uint64_t n) const {
    auto b = bytes(offset, n);
    if (!b) return std::nullopt;
    return ByteReader(*b);
  }

  std::span<const std::byte> span() const { return data_; }

private:
  template <class T>
  std::optional<T> read(std::uint64_t offset) const {
    static_assert(std::endian::native == std::endian::little,
                  "condacuda reads little-endian files on little-endian hosts only");
    if (!has(offset, sizeof(T))) return std::nullopt;
    T value;
    std::memcpy(&value, data_.data() + offset, sizeof(T));
    return value;
  }

  std::span<const std::byte> data_;
};

} // namespace condacuda::elf
