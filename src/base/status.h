// Status and StatusOr<T>: the one error model across module boundaries (no exceptions escape a library).
//
//   StatusOr<Trace> t = ImportTrace("run.json");
//   if (!t.ok()) return t.status();          // propagate
//   RETURN_IF_ERROR(WriteFile(path, data));   // early exit on error
//
// A Status carries a code that the CLI maps to an exit code (kInvalidInput -> 2, kInternal -> 3)
// and a one-line message that already names the file, the place and the reason.
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <utility>

#include <fmt/core.h>

namespace cprof {

enum class StatusCode {
  kOk = 0,
  kInvalidInput,   // bad user input: a file, a flag, a value (exit code 2)
  kNotFound,       // a named file or entity does not exist (exit code 2)
  kUnavailable,    // the machine cannot do this (no PMU, no GPU) (exit code 2)
  kResourceLimit,  // a configured limit (memory, depth, ratio) was hit (exit code 2)
  kInternal,       // a bug or an unexpected system failure (exit code 3)
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Returns a copy whose message is prefixed with `context: ` (unchanged when context is empty).
  Status WithContext(const std::string& context) const {
    // A message that already names it ("run.json: no steps found") is not prefixed twice.
    if (ok() || context.empty() || (message_.starts_with(context) && message_.compare(context.size(), 2, ": ") == 0))
      return *this;
    return Status(code_, context + ": " + message_);
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

template <typename... Args>
Status InvalidInput(fmt::format_string<Args...> f, Args&&... args) {
  return Status(StatusCode::kInvalidInput, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
Status NotFound(fmt::format_string<Args...> f, Args&&... args) {
  return Status(StatusCode::kNotFound, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
Status Unavailable(fmt::format_string<Args...> f, Args&&... args) {
  return Status(StatusCode::kUnavailable, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
Status ResourceLimit(fmt::format_string<Args...> f, Args&&... args) {
  return Status(StatusCode::kResourceLimit, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
Status Internal(fmt::format_string<Args...> f, Args&&... args) {
  return Status(StatusCode::kInternal, fmt::format(f, std::forward<Args>(args)...));
}

// A value or the Status explaining why there is none.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  StatusOr(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    assert(!status_.ok() && "StatusOr built from an OK status without a value");
  }

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace cprof

#define CPROF_CONCAT_INNER(a, b) a##b
#define CPROF_CONCAT(a, b) CPROF_CONCAT_INNER(a, b)

#define RETURN_IF_ERROR(expr)                 \
  do {                                        \
    ::cprof::Status _st = (expr);             \
    if (!_st.ok()) return _st;                \
  } while (0)

#define ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                          \
  if (!tmp.ok()) return tmp.status();         \
  lhs = std::move(tmp).value()

#define ASSIGN_OR_RETURN(lhs, expr) \
  ASSIGN_OR_RETURN_IMPL(CPROF_CONCAT(_statusor_, __LINE__), lhs, expr)
