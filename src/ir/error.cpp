// Formatting of source locations and internal errors.
#include "trapeze/error.h"

#include <string_view>

namespace trapeze {

std::string SourceLocation::str() const {
  if (!known()) return "<unknown>";
  std::string_view path(file);
  const auto slash = path.find_last_of('/');
  if (slash != std::string_view::npos) path.remove_prefix(slash + 1);
  return std::string(path) + ":" + std::to_string(line);
}

namespace detail {
void throw_internal_error(const char* file, int line, const char* condition,
                          const std::string& message) {
  throw InternalError("internal error in trapeze at " + SourceLocation{file, line}.str() +
                      ": condition '" + condition + "' failed: " + message +
                      " (this is a bug in trapeze; please report it with the pipeline)");
}
} // namespace detail

} // namespace trapeze
