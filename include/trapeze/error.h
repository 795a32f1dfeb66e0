// The two error channels of trapeze.
//
//  * trapeze::Error is a user error: the pipeline, a schedule, a parameter or a
//    buffer is wrong. Its message names the user's stage, the access and the
//    region involved, where the stage was defined, and how to fix it.
//  * trapeze::InternalError is a bug in trapeze itself (an invariant that did
//    not hold). Its message carries trapeze's own file:line and the condition.
//
// Both are exceptions: nothing a user writes makes trapeze abort the process.
#pragma once

#include <stdexcept>
#include <string>

namespace trapeze {

/// A place in the user's source, captured with default arguments at the DSL
/// call site. (std::source_location is unavailable with clang 14 + libstdc++.)
struct SourceLocation {
  const char* file = nullptr;
  int line = 0;

  static constexpr SourceLocation current(const char* file = __builtin_FILE(),
                                          int line = __builtin_LINE()) {
    return SourceLocation{file, line};
  }
  bool known() const { return file != nullptr && line > 0; }
  /// "file.cpp:12", with the directory stripped; "<unknown>" if not known.
  std::string str() const;
};

/// A user error. what() is the complete, human-readable message.
class Error : public std::runtime_error {
public:
  explicit Error(const std::string& message) : std::runtime_error(message) {}
};

/// A violated internal invariant: a bug in trapeze.
class InternalError : public std::logic_error {
public:
  explicit InternalError(const std::string& message) : std::logic_error(message) {}
};

namespace detail {
[[noreturn]] void throw_internal_error(const char* file, int line, const char* condition,
                                       const std::string& message);
} // namespace detail

} // namespace trapeze

/// Checks an internal invariant; throws trapeze::InternalError naming file:line.
#define TRAPEZE_ASSERT(cond, msg)                                                                  \
  do {                                                                                             \
    if (!(cond)) ::trapeze::detail::throw_internal_error(__FILE__, __LINE__, #cond, (msg));        \
  } while (false)
