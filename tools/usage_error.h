// A mistake in how the command line was used: an unknown app, parameter or
// option value. It exits with 2, where a trapeze::Error (the pipeline, the
// schedule or the data is wrong) exits with 1 (README.md, "Exit codes").
#pragma once

#include <stdexcept>
#include <string>

namespace trapeze::cli {

class UsageError : public std::runtime_error {
public:
  explicit UsageError(const std::string& message) : std::runtime_error(message) {}
};

} // namespace trapeze::cli
