#pragma once
// Expected errors are values: a Result<T> holds either a T or an Error. Library
// code never exits and never throws for expected conditions; the CLI maps
// Error::code to an exit status in one place (cli/common.cpp, exit_code_for).
#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace condacuda {

enum class ErrorCode {
  bad_input,   // the user's input is wrong: unknown env, bad flag value, unreadable lock
  not_found,   // a file or env that should exist does not
  io,          // the operating system refused (permissions, disk full, ...)
  corrupt,     // a file exists but its content is malformed (ELF, cache, YAML, JSON)
  unsupported, // well-formed input condacuda does not handle (ELF32, big-endian, ...)
  conflict,    // a path condacuda wants is taken by something it did not create
  busy,        // another condacuda holds the prefix lock
  internal,    // a bug in condacuda
};

const char* to_string(ErrorCode code);

struct Error {
  ErrorCode code = ErrorCode::internal;
  std::string message; // one line, lower case start, no trailing period
  std::string path;    // the file concerned, when there is one

  // "path: message" or "message".
  std::string describe() const;
};

inline Error make_error(ErrorCode code, std::string message, std::string path = {}) {
  return Error{code, std::move(message), std::move(path)};
}

template <class T>
class [[nodiscard]] Result {
public:
  Result(T value) : state_(std::move(value)) {}
  Result(Error error) : state_(std::move(error)) {}

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { assert(ok()); return std::get<0>(state_); }
  const T& value() const& { assert(ok()); return std::get<0>(state_); }
  T&& value() && { assert(ok()); return std::get<0>(std::move(state_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const { assert(!ok()); return std::get<1>(state_); }

private:
  std::variant<T, Error> state_;
};

// Result<void>: success or an Error.
struct Ok {};
using Status = Result<Ok>;
inline Status ok_status() { return Ok{}; }

} // namespace condacuda
