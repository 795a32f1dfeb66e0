// Comparing a result with the interpreter's, for --check and the tests.
#include "trapeze/runtime.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>

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

namespace {

// Bit-for-bit equality of two float values, where every NaN is the same
// value and +0 equals -0 (as the interpreter and the generated code round
// them alike, but need not produce the same NaN payload or zero sign through
// min and max).
bool same_float(double e, double a) {
  if (std::isnan(e) || std::isnan(a)) return std::isnan(e) && std::isnan(a);
  return e == a;
}

double largest_magnitude(const Buffer& b) {
  double m = 0;
  for (std::int64_t i = 0; i < b.size(); ++i) {
    const double v = std::abs(b.get_as_double(i));
    if (std::isfinite(v)) m = std::max(m, v);
  }
  return m;
}

} // namespace

std::optional<BufferMismatch> compare_buffers(const Buffer& expected_given,
                                              const Buffer& actual_given, double tolerance) {
  if (expected_given.type() != actual_given.type() ||
      expected_given.extents() != actual_given.extents())
    throw Error("cannot compare buffers of different shapes: " + expected_given.describe() +
                " and " + actual_given.describe());
  // Element i in row-major order is element i of the array (views are copied).
  const Buffer expected = expected_given.dense(), actual = actual_given.dense();
  const bool exact = is_integer(expected.type()) || tolerance == 0;
  const double scale = exact ? 0 : largest_magnitude(expected);
  std::optional<BufferMismatch> result;
  const std::int64_t n = expected.size();
  for (std::int64_t i = 0; i < n; ++i) {
    const double e = expected.get_as_double(i), a = actual.get_as_double(i);
    if (same_float(e, a)) continue;
    const double error = std::abs(a - e) / (scale > 0 ? scale : 1.0);
    if (!exact && std::isfinite(a) && std::isfinite(e) && std::abs(a - e) <= tolerance * scale)
      continue;
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

double output_tolerance(const Pipeline& p, const ir::Function& output,
                        const std::set<std::string>& reassociated, double reduction_tolerance) {
  // The stages `output` reads, transitively (stages() is in topological order).
  std::set<const ir::Function*> feeding = {&output};
  for (auto it = p.stages().rbegin(); it != p.stages().rend(); ++it) {
    if (!feeding.count(it->get())) continue;
    if (reassociated.count((*it)->name())) return reduction_tolerance;
    for (const ir::FunctionPtr& producer : p.producer_stages(**it))
      feeding.insert(producer.get());
  }
  return 0;
}

std::optional<std::pair<std::string, BufferMismatch>>
compare_outputs(const Pipeline& p, const BufferMap& expected, const BufferMap& actual,
                const std::set<std::string>& reassociated, double reduction_tolerance) {
  for (const auto& out : p.outputs()) {
    const auto e = expected.find(out->name()), a = actual.find(out->name());
    if (e == expected.end() || a == actual.end())
      throw Error("compare_outputs: output '" + out->name() + "' is missing");
    if (auto m = compare_buffers(e->second, a->second,
                                 output_tolerance(p, *out, reassociated, reduction_tolerance)))
      return std::pair{out->name(), *m};
  }
  return std::nullopt;
}

} // namespace trapeze
