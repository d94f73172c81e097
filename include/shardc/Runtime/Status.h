//===- Status.h - success or an error message -------------------*- C++ -*-===//
//
// The runtime reports errors as values, not exceptions (the compiler is built
// without them), and without LLVM (the runtime layer links no LLVM/MLIR).
//
//===----------------------------------------------------------------------===//

#ifndef SHARDC_RUNTIME_STATUS_H
#define SHARDC_RUNTIME_STATUS_H

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace shardc {

/// Success, or an error with a one-line message meant for the user.
class [[nodiscard]] Status {
public:
  static Status success() { return Status(); }
  static Status error(std::string message) { return Status(std::move(message)); }

  bool ok() const { return !message_.has_value(); }
  /// The error message; only valid when !ok().
  const std::string &message() const { return *message_; }

private:
  Status() = default;
  explicit Status(std::string message) : message_(std::move(message)) {}
  std::optional<std::string> message_;
};

/// A value of type T, or the error that prevented computing it.
template <typename T> class [[nodiscard]] StatusOr {
public:
  StatusOr(T value) : value_(std::move(value)), status_(Status::success()) {}
  StatusOr(Status status) : status_(std::move(status)) {
    assert(!status_.ok() && "StatusOr built from a success status");
  }

  bool ok() const { return status_.ok(); }
  const Status &status() const { return status_; }
  const std::string &message() const { return status_.message(); }
  T &value() { return *value_; }
  const T &value() const { return *value_; }
  T &operator*() { return *value_; }
  const T &operator*() const { return *value_; }
  T *operator->() { return &*value_; }
  const T *operator->() const { return &*value_; }

private:
  std::optional<T> value_;
  Status status_;
};

} // namespace shardc

#endif // SHARDC_RUNTIME_STATUS_H
