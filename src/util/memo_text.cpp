#include "util/memo_text.hpp"

#include <charconv>

namespace condacuda::util {

void put_number_field(std::string& out, std::uint64_t number) {
  out += std::to_string(number);
  out += ' ';
}

void put_text_field(std::string& out, std::string_view text) {
  out += std::to_string(text.size());
  out += ':';
  out.append(text);
}

namespace {
// A decimal number ending at `end` (not included); nullopt-like false when
// there is none, or it overflows.
bool leading_number(std::string_view& rest, char end, std::uint64_t& value) {
  const std::size_t stop = rest.find(end);
  if (stop == 0 || stop == std::string_view::npos) return false;
  auto [last, ec] = std::from_chars(rest.data(), rest.data() + stop, value);
  if (ec != std::errc() || last != rest.data() + stop) return false;
  rest.remove_prefix(stop + 1);
  return true;
}
} // namespace

bool FieldReader::number(std::uint64_t& value) { return leading_number(rest_, ' ', value); }

bool FieldReader::text(std::string_view& value) {
  std::uint64_t size = 0;
  std::string_view rest = rest_;
  if (!leading_number(rest, ':', size) || size > rest.size()) return false;
  value = rest.substr(0, size);
  rest_ = rest.substr(size);
  return true;
}

} // namespace condacuda::util
