// The interpreter's expression evaluator: an expression compiled into a flat
// list of steps, each of which computes a column of values (one per lane) for
// a stretch of one row, so that the per-node dispatch is paid once per row
// rather than once per point.
#pragma once

#include "trapeze/pipeline.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace trapeze::runtime {

/// Lanes of one evaluation: at most this many points of a row at a time.
inline constexpr int kMaxLanes = 1024;

/// A full array the interpreter reads: a stage's buffer or an input, over its box.
struct StoredArray {
  const void* data = nullptr;
  ScalarType type = ScalarType::Float32;
  Box box;                           ///< the domain the array covers
  std::vector<std::int64_t> strides; ///< in elements (an input's: any, as the caller's layout)
};

/// The array behind an access (a stage computed earlier, or an input).
using ArrayLookup = std::function<const StoredArray&(const ir::Access&)>;

/// Values of one node for the lanes of a row stretch. Integers (bool
/// included) are held as int64 wrapped to the node's width; floats as double,
/// float32 values rounded to float32 after every operation.
struct Column {
  std::vector<std::int64_t> ints;
  std::vector<double> floats;
};

/// One expression, ready to be evaluated row stretch by row stretch.
class RowProgram {
public:
  /// `vars` are the variables in scope, outermost first; the last one runs
  /// along the row. Parameters take their values from `params` (bound).
  RowProgram(const Expr& e, const std::vector<std::string>& vars, const ParamValues& params,
             const ArrayLookup& lookup);

  /// Evaluates lanes [begin, end) of the stretch whose row variable starts at
  /// `row_start`; `outer` holds the values of the other variables (one per
  /// variable, the last entry unused). Where `mask` is given, memory is read
  /// only on the lanes whose mask is non-zero (other lanes of an access read
  /// as 0). Returns the root's column (valid until the next run).
  const Column& run(const std::int64_t* outer, std::int64_t row_start, int begin, int end,
                    const std::uint8_t* mask);

  /// The type of the expression.
  ScalarType type() const { return type_; }

  /// One node of the expression (internal to the evaluator).
  struct Step {
    const ir::ExprNode* node = nullptr;
    int a = -1, b = -1, c = -1;         ///< operand steps
    std::vector<int> args;              ///< Access: the step of each index
    std::vector<std::uint8_t> clamped;  ///< Access: 1 where the index is data-dependent
    const StoredArray* array = nullptr; ///< Access: what it reads
    int var = -1;                       ///< VarRef: position among the variables
    bool constant = false;              ///< filled once, at construction
    bool uniform = false;               ///< the same value on every lane
    bool all_lanes = false;             ///< needed on every lane, even if uniform
    bool contiguous = false;            ///< the row variable plus a uniform value
    int contiguous_dim = -1;            ///< Access: the one lane-dependent, contiguous index
  };

private:
  void access(const Step& s, Column& out, int begin, int end, const std::uint8_t* mask);

  ScalarType type_;
  std::vector<Step> steps_;
  std::vector<Column> columns_; ///< one per step
  int row_var_ = -1;
};

/// Reads element `i` of a typed array as a column value.
std::int64_t load_integer(const void* data, ScalarType t, std::int64_t i);
double load_float(const void* data, ScalarType t, std::int64_t i);
/// Writes a column value (already of type `t`) to element `i`.
void store_integer(void* data, ScalarType t, std::int64_t i, std::int64_t v);
void store_float(void* data, ScalarType t, std::int64_t i, double v);

} // namespace trapeze::runtime
