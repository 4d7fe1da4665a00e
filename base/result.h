#pragma once
// Result<T>: a value or an Error. Used everywhere outside plugin outcomes (which use
// framework::Status). An Error carries a human-readable message that names the object and field,
// and a small code that says what the caller may do next, so that no caller matches message
// text:
//   kInvalid      the input is wrong (a config field, a malformed object); fix it and retry.
//   kNotFound     the thing named does not exist (a file, a kind the reader does not know).
//   kUnavailable  a peer did not answer or answered with a transient failure; retry later.
//   kConflict     the object changed under us (HTTP 409, a stale resourceVersion).
//   kInternal     a bug or an impossible state.
//
// Propagation:
//   BERTH_RETURN_IF_ERROR(expr);           // expr is a Result<T> or an Ok; returns its Error
//   BERTH_ASSIGN_OR_RETURN(auto x, expr);  // x = *expr, or returns expr's Error

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace berth {

enum class ErrorCode { kInvalid, kNotFound, kUnavailable, kConflict, kInternal };

std::string_view ErrorCodeName(ErrorCode code);

struct Error {
  std::string message;
  ErrorCode code = ErrorCode::kInvalid;

  // The same error with `prefix: ` in front of its message (adds context on the way up).
  Error Wrap(std::string_view prefix) const& {
    return Error{std::string(prefix) + ": " + message, code};
  }
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT: implicit by design
  Result(Error error) : v_(std::move(error)) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const std::string& error() const { return std::get<1>(v_).message; }
  ErrorCode code() const { return std::get<1>(v_).code; }
  const Error& status() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

// Result<void> equivalent.
class [[nodiscard]] Ok {
 public:
  Ok() = default;
  Ok(Error error) : error_(std::move(error)) {}  // NOLINT
  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }
  const std::string& error() const { return error_->message; }
  ErrorCode code() const { return error_->code; }
  const Error& status() const { return *error_; }

 private:
  std::optional<Error> error_;
};

inline std::string_view ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalid:
      return "Invalid";
    case ErrorCode::kNotFound:
      return "NotFound";
    case ErrorCode::kUnavailable:
      return "Unavailable";
    case ErrorCode::kConflict:
      return "Conflict";
    case ErrorCode::kInternal:
      return "Internal";
  }
  return "Unknown";
}

}  // namespace berth

#define BERTH_RESULT_CONCAT_INNER(a, b) a##b
#define BERTH_RESULT_CONCAT(a, b) BERTH_RESULT_CONCAT_INNER(a, b)

#define BERTH_RETURN_IF_ERROR(expr)                         \
  do {                                                      \
    auto&& berth_result_ = (expr);                          \
    if (!berth_result_.ok()) return berth_result_.status(); \
  } while (0)

#define BERTH_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return tmp.status();               \
  lhs = std::move(*tmp)

#define BERTH_ASSIGN_OR_RETURN(lhs, expr) \
  BERTH_ASSIGN_OR_RETURN_IMPL(BERTH_RESULT_CONCAT(berth_result_, __LINE__), lhs, expr)
