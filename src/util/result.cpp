#include "util/result.hpp"

namespace condacuda {

const char* to_string(ErrorCode code) {
  switch (code) {
  case ErrorCode::bad_input: return "bad_input";
  case ErrorCode::not_found: return "not_found";
  case ErrorCode::io: return "io";
  case ErrorCode::corrupt: return "corrupt";
  case ErrorCode::unsupported: return "unsupported";
  case ErrorCode::conflict: return "conflict";
  case ErrorCode::busy: return "busy";
  case ErrorCode::internal: return "internal";
  }
  return "internal";
}

std::string Error::describe() const {
  if (path.empty()) return message;
  return path + ": " + message;
}

} // namespace condacuda
