// Comparing a result with the interpreter's, for --check and the tests.
#include "trapeze/runtime.h"

#include <cmath>
#include <cstdio>

namespace trapeze {

std::string BufferMismatch::str() const {
  std::string where = "element ";
  for (std::int64_t i : index)
    where += "[" + std::to_string(i) + "]";
  char buf[256];
  std::snprintf(buf, sizeof buf, ": expected %.9g, got %.9g (%lld element%s, largest error %.3g)",
                expected, actual, static_cast<long long>(count),
                count == 1 ? " differs" : "s differ", max_error);
  return where + buf;
}

std::optional<BufferMismatch> compare_buffers(const Buffer& expected, const Buffer& actual,
                                              double tolerance) {
  if (expected.type() != actual.type() || expected.extents() != actual.extents())
    throw Error("cannot compare buffers of different shapes: " + expected.describe() + " and " +
                actual.describe());
  const bool exact = is_integer(expected.type());
  std::optional<BufferMismatch> result;
  const std::int64_t n = expected.size();
  for (std::int64_t i = 0; i < n; ++i) {
    const double e = expected.get_as_double(i), a = actual.get_as_double(i);
    if (std::isnan(e) && std::isnan(a)) continue;
    const double error = std::abs(a - e) / std::max(1.0, std::abs(e));
    const bool differs = exact ? a != e : !(error <= tolerance);
    if (!differs) continue;
    if (!result) {
      result = BufferMismatch{};
      std::int64_t rest = i;
      result->index.assign(expected.extents().size(), 0);
      for (std::size_t d = expected.extents().size(); d-- > 0;) {
        result->index[d] = rest % expected.extents()[d];
        rest /= expected.extents()[d];
      }
      result->expected = e;
      result->actual = a;
    }
    ++result->count;
    result->max_error = std::isnan(error) ? INFINITY : std::max(result->max_error, error);
  }
  return result;
}

} // namespace trapeze
