#pragma once
// The text of results kept between runs (loader::ResultMemo): the material
// a key is digested from, and the fields of a value.
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

namespace condacuda::util {

// Key material: values appended as their bytes, text after its length, so
// that two different inputs never give the same material.
template <class T>
void put_raw(std::string& out, const T& value) {
  static_assert(std::is_trivially_copyable_v<T>);
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}
inline void put_raw_text(std::string& out, std::string_view text) {
  put_raw(out, text.size());
  out.append(text);
}

// A value's fields: a number as "<decimal> ", text as "<length>:<bytes>"
// (any bytes: a symbol name from a hostile file included).
void put_number_field(std::string& out, std::uint64_t number);
void put_text_field(std::string& out, std::string_view text);

// Reads the fields back in order; a field of another kind, or one cut
// short, fails, and the caller takes the whole value for a miss.
class FieldReader {
public:
  explicit FieldReader(std::string_view text) : rest_(text) {}
  bool number(std::uint64_t& value);
  bool text(std::string_view& value);
  bool done() const { return rest_.empty(); }

private:
  std::string_view rest_;
};

} // namespace condacuda::util
