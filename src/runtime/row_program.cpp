// The interpreter's row-at-a-time expression evaluator. Every operation is
// written out plainly in the semantics of expr.h; the loops over lanes are
// simple enough for the C++ compiler to vectorize.
#include "runtime/row_program.h"

#include "trapeze/ir_visitor.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

namespace trapeze::runtime {

using namespace ir;

namespace {

using i64 = std::int64_t;
using u64 = std::uint64_t;

// Two's complement arithmetic without undefined behaviour: through uint64.
inline i64 add_wrapped(i64 a, i64 b) {
  return static_cast<i64>(static_cast<u64>(a) + static_cast<u64>(b));
}
inline i64 sub_wrapped(i64 a, i64 b) {
  return static_cast<i64>(static_cast<u64>(a) - static_cast<u64>(b));
}
inline i64 mul_wrapped(i64 a, i64 b) {
  return static_cast<i64>(static_cast<u64>(a) * static_cast<u64>(b));
}

// Integer division semantics of expr.h; by zero gives 0, and x / -1 is -x
// (wrapped), which avoids the one overflowing case of C++'s operator/.
inline i64 floor_div(i64 a, i64 b) {
  if (b == 0) return 0;
  if (b == -1) return sub_wrapped(0, a);
  i64 q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}
inline i64 floor_mod(i64 a, i64 b) {
  if (b == 0 || b == -1) return 0;
  const i64 r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
inline i64 trunc_div(i64 a, i64 b) {
  if (b == 0) return 0;
  if (b == -1) return sub_wrapped(0, a);
  return a / b;
}
inline i64 trunc_mod(i64 a, i64 b) { return (b == 0 || b == -1) ? 0 : a % b; }

inline double round_f32(double v) { return static_cast<double>(static_cast<float>(v)); }

// A float converted to an integer type: truncation toward zero. Values out of
// the type's range (and NaN) are undefined in the DSL; here they saturate
// (NaN gives 0) so that the interpreter itself has no undefined behaviour.
i64 float_to_integer(ScalarType t, double v) {
  if (t == ScalarType::Bool) return v != 0.0 ? 1 : 0;
  if (std::isnan(v)) return 0;
  double lo = 0, hi = 0;
  switch (t) {
  case ScalarType::UInt8: lo = 0, hi = 255; break;
  case ScalarType::UInt16: lo = 0, hi = 65535; break;
  case ScalarType::Int16: lo = -32768, hi = 32767; break;
  case ScalarType::Int32: lo = -2147483648.0, hi = 2147483647.0; break;
  default: // int64: the bounds are +-2^63, of which only -2^63 is representable
    if (v >= 9223372036854775808.0) return std::numeric_limits<i64>::max();
    if (v <= -9223372036854775808.0) return std::numeric_limits<i64>::min();
    return static_cast<i64>(v);
  }
  return static_cast<i64>(std::clamp(std::trunc(v), lo, hi));
}

// An integer converted to a float type (int64 to float32 rounds once).
double integer_to_float(ScalarType t, i64 v) {
  if (t == ScalarType::Float32) return static_cast<double>(static_cast<float>(v));
  return static_cast<double>(v);
}

// Wraps lanes [begin, end) of an integer column to the width of `t`.
void wrap_lanes(ScalarType t, i64* v, int begin, int end) {
  switch (t) {
  case ScalarType::Int64: return;
  case ScalarType::Int32:
    for (int l = begin; l < end; ++l)
      v[l] = static_cast<std::int32_t>(v[l]);
    return;
  default:
    for (int l = begin; l < end; ++l)
      v[l] = wrap_integer(t, v[l]);
    return;
  }
}

void round_lanes(ScalarType t, double* v, int begin, int end) {
  if (t != ScalarType::Float32) return;
  for (int l = begin; l < end; ++l)
    v[l] = round_f32(v[l]);
}

template <typename F> void lanes_ii(const i64* a, const i64* b, i64* out, int begin, int end, F f) {
  for (int l = begin; l < end; ++l)
    out[l] = f(a[l], b[l]);
}
template <typename F>
void lanes_ff(const double* a, const double* b, double* out, int begin, int end, F f) {
  for (int l = begin; l < end; ++l)
    out[l] = f(a[l], b[l]);
}
template <typename F>
void lanes_ff_i(const double* a, const double* b, i64* out, int begin, int end, F f) {
  for (int l = begin; l < end; ++l)
    out[l] = f(a[l], b[l]) ? 1 : 0;
}

void integer_binary(BinaryOp op, ScalarType t, const i64* a, const i64* b, i64* out, int begin,
                    int end) {
  switch (op) {
  case BinaryOp::Add:
    lanes_ii(a, b, out, begin, end, [](i64 x, i64 y) { return add_wrapped(x, y); });
    break;
  case BinaryOp::Sub:
    lanes_ii(a, b, out, begin, end, [](i64 x, i64 y) { return sub_wrapped(x, y); });
    break;
  case BinaryOp::Mul:
    lanes_ii(a, b, out, begin, end, [](i64 x, i64 y) { return mul_wrapped(x, y); });
    break;
  case BinaryOp::Div:
    lanes_ii(a, b, out, begin, end, [](i64 x, i64 y) { return floor_div(x, y); });
    break;
  case BinaryOp::Mod:
    lanes_ii(a, b, out, begin, end, [](i64 x, i64 y) { return floor_mod(x, y); });
    break;
  case BinaryOp::TruncDiv:
    lanes_ii(a, b, out, begin, end, [](i64 x, i64 y) { return trunc_div(x, y); });
    break;
  case BinaryOp::TruncMod:
    lanes_ii(a, b, out, begin, end, [](i64 x, i64 y) { return trunc_mod(x, y); });
    break;
  case BinaryOp::Min:
    lanes_ii(a, b, out, begin, end, [](i64 x, i64 y) { return y < x ? y : x; });
    break;
  case BinaryOp::Max:
    lanes_ii(a, b, out, begin, end, [](i64 x, i64 y) { return x < y ? y : x; });
    break;
  case BinaryOp::EQ:
    lanes_ii(a, b, out, begin, end, [](i64 x, i64 y) -> i64 { return x == y; });
    return;
  case BinaryOp::NE:
    lanes_ii(a, b, out, begin, end, [](i64 x, i64 y) -> i64 { return x != y; });
    return;
  case BinaryOp::LT:
    lanes_ii(a, b, out, begin, end, [](i64 x, i64 y) -> i64 { return x < y; });
    return;
  case BinaryOp::LE:
    lanes_ii(a, b, out, begin, end, [](i64 x, i64 y) -> i64 { return x <= y; });
    return;
  case BinaryOp::GT:
    lanes_ii(a, b, out, begin, end, [](i64 x, i64 y) -> i64 { return x > y; });
    return;
  case BinaryOp::GE:
    lanes_ii(a, b, out, begin, end, [](i64 x, i64 y) -> i64 { return x >= y; });
    return;
  case BinaryOp::And:
    lanes_ii(a, b, out, begin, end, [](i64 x, i64 y) -> i64 { return (x != 0) & (y != 0); });
    return;
  case BinaryOp::Or:
    lanes_ii(a, b, out, begin, end, [](i64 x, i64 y) -> i64 { return (x != 0) | (y != 0); });
    return;
  case BinaryOp::Pow: TRAPEZE_ASSERT(false, "pow of integers");
  }
  wrap_lanes(t, out, begin, end);
}

// a - b*floor(a/b), every step rounded to the type.
double float_mod(ScalarType t, double a, double b) {
  if (t == ScalarType::Float32) {
    const double q = std::floor(round_f32(a / b));
    return round_f32(a - round_f32(b * q));
  }
  return a - b * std::floor(a / b);
}

// Float arithmetic; comparisons write bools into `bools` instead.
void float_binary(BinaryOp op, ScalarType t, const double* a, const double* b, double* out,
                  i64* bools, int begin, int end) {
  switch (op) {
  case BinaryOp::Add:
    lanes_ff(a, b, out, begin, end, [](double x, double y) { return x + y; });
    break;
  case BinaryOp::Sub:
    lanes_ff(a, b, out, begin, end, [](double x, double y) { return x - y; });
    break;
  case BinaryOp::Mul:
    lanes_ff(a, b, out, begin, end, [](double x, double y) { return x * y; });
    break;
  case BinaryOp::Div:
    lanes_ff(a, b, out, begin, end, [](double x, double y) { return x / y; });
    break;
  case BinaryOp::Mod:
    lanes_ff(a, b, out, begin, end, [t](double x, double y) { return float_mod(t, x, y); });
    return;
  case BinaryOp::Min:
    lanes_ff(a, b, out, begin, end, [](double x, double y) { return y < x ? y : x; });
    return;
  case BinaryOp::Max:
    lanes_ff(a, b, out, begin, end, [](double x, double y) { return x < y ? y : x; });
    return;
  case BinaryOp::Pow:
    if (t == ScalarType::Float32)
      lanes_ff(a, b, out, begin, end, [](double x, double y) {
        return static_cast<double>(std::pow(static_cast<float>(x), static_cast<float>(y)));
      });
    else
      lanes_ff(a, b, out, begin, end, [](double x, double y) { return std::pow(x, y); });
    return;
  case BinaryOp::EQ:
    lanes_ff_i(a, b, bools, begin, end, [](double x, double y) { return x == y; });
    return;
  case BinaryOp::NE:
    lanes_ff_i(a, b, bools, begin, end, [](double x, double y) { return x != y; });
    return;
  case BinaryOp::LT:
    lanes_ff_i(a, b, bools, begin, end, [](double x, double y) { return x < y; });
    return;
  case BinaryOp::LE:
    lanes_ff_i(a, b, bools, begin, end, [](double x, double y) { return x <= y; });
    return;
  case BinaryOp::GT:
    lanes_ff_i(a, b, bools, begin, end, [](double x, double y) { return x > y; });
    return;
  case BinaryOp::GE:
    lanes_ff_i(a, b, bools, begin, end, [](double x, double y) { return x >= y; });
    return;
  case BinaryOp::TruncDiv:
  case BinaryOp::TruncMod:
  case BinaryOp::And:
  case BinaryOp::Or: TRAPEZE_ASSERT(false, "integer-only op on floats");
  }
  // + - * / computed in double and rounded once equal the float32 operation.
  round_lanes(t, out, begin, end);
}

// The float function of a float32 operand (std::exp(float), ...), or the
// double one of a float64 operand.
template <typename F32, typename F64> void
float_function(ScalarType t, const double* a, double* out, int begin, int end, F32 f32, F64 f64) {
  if (t == ScalarType::Float32) {
    for (int l = begin; l < end; ++l)
      out[l] = static_cast<double>(f32(static_cast<float>(a[l])));
  } else {
    for (int l = begin; l < end; ++l)
      out[l] = f64(a[l]);
  }
}

void float_unary(UnaryOp op, ScalarType t, const double* a, double* out, int begin, int end) {
  switch (op) {
  case UnaryOp::Neg:
    for (int l = begin; l < end; ++l)
      out[l] = -a[l];
    return;
  case UnaryOp::Abs:
    for (int l = begin; l < end; ++l)
      out[l] = std::fabs(a[l]);
    return;
  case UnaryOp::Sqrt:
    return float_function(
        t, a, out, begin, end, [](float x) { return std::sqrt(x); },
        [](double x) { return std::sqrt(x); });
  case UnaryOp::Exp:
    return float_function(
        t, a, out, begin, end, [](float x) { return std::exp(x); },
        [](double x) { return std::exp(x); });
  case UnaryOp::Log:
    return float_function(
        t, a, out, begin, end, [](float x) { return std::log(x); },
        [](double x) { return std::log(x); });
  case UnaryOp::Floor:
    return float_function(
        t, a, out, begin, end, [](float x) { return std::floor(x); },
        [](double x) { return std::floor(x); });
  case UnaryOp::Ceil:
    return float_function(
        t, a, out, begin, end, [](float x) { return std::ceil(x); },
        [](double x) { return std::ceil(x); });
  case UnaryOp::Sin:
    return float_function(
        t, a, out, begin, end, [](float x) { return std::sin(x); },
        [](double x) { return std::sin(x); });
  case UnaryOp::Cos:
    return float_function(
        t, a, out, begin, end, [](float x) { return std::cos(x); },
        [](double x) { return std::cos(x); });
  case UnaryOp::Not: break;
  }
  TRAPEZE_ASSERT(false, "not of a float");
}

void integer_unary(UnaryOp op, ScalarType t, const i64* a, i64* out, int begin, int end) {
  switch (op) {
  case UnaryOp::Not:
    for (int l = begin; l < end; ++l)
      out[l] = a[l] == 0 ? 1 : 0;
    return;
  case UnaryOp::Neg:
    for (int l = begin; l < end; ++l)
      out[l] = sub_wrapped(0, a[l]);
    break;
  case UnaryOp::Abs:
    for (int l = begin; l < end; ++l)
      out[l] = a[l] < 0 ? sub_wrapped(0, a[l]) : a[l];
    break;
  default: TRAPEZE_ASSERT(false, "float op with an integer type");
  }
  wrap_lanes(t, out, begin, end);
}

void cast(ScalarType to, ScalarType from, const Column& in, Column& out, int begin, int end) {
  if (is_float(to)) {
    double* o = out.floats.data();
    if (is_float(from)) {
      const double* v = in.floats.data();
      for (int l = begin; l < end; ++l)
        o[l] = v[l];
      round_lanes(to, o, begin, end);
    } else {
      const i64* v = in.ints.data();
      for (int l = begin; l < end; ++l)
        o[l] = integer_to_float(to, v[l]);
    }
    return;
  }
  i64* o = out.ints.data();
  if (is_float(from)) {
    const double* v = in.floats.data();
    for (int l = begin; l < end; ++l)
      o[l] = float_to_integer(to, v[l]);
  } else {
    const i64* v = in.ints.data();
    for (int l = begin; l < end; ++l)
      o[l] = v[l];
    wrap_lanes(to, o, begin, end);
  }
}

template <typename T, typename V> void gather(const void* data, const i64* offsets, V* out,
                                              int begin, int end, const std::uint8_t* mask) {
  const T* d = static_cast<const T*>(data);
  if (!mask) {
    for (int l = begin; l < end; ++l)
      out[l] = static_cast<V>(d[offsets[l]]);
  } else {
    for (int l = begin; l < end; ++l)
      out[l] = mask[l] ? static_cast<V>(d[offsets[l]]) : V(0);
  }
}

template <typename V> void gather_typed(ScalarType t, const void* data, const i64* offsets, V* out,
                                        int begin, int end, const std::uint8_t* mask) {
  switch (t) {
  case ScalarType::Bool: return gather<bool>(data, offsets, out, begin, end, mask);
  case ScalarType::UInt8: return gather<std::uint8_t>(data, offsets, out, begin, end, mask);
  case ScalarType::UInt16: return gather<std::uint16_t>(data, offsets, out, begin, end, mask);
  case ScalarType::Int16: return gather<std::int16_t>(data, offsets, out, begin, end, mask);
  case ScalarType::Int32: return gather<std::int32_t>(data, offsets, out, begin, end, mask);
  case ScalarType::Int64: return gather<std::int64_t>(data, offsets, out, begin, end, mask);
  case ScalarType::Float32: return gather<float>(data, offsets, out, begin, end, mask);
  case ScalarType::Float64: return gather<double>(data, offsets, out, begin, end, mask);
  }
}

template <typename T, typename V>
void load_contiguous(const void* data, std::int64_t start, V* out, int begin, int end) {
  const T* d = static_cast<const T*>(data) + start;
  for (int l = begin; l < end; ++l)
    out[l] = static_cast<V>(d[l - begin]);
}

template <typename V> void load_contiguous_typed(ScalarType t, const void* data, std::int64_t start,
                                                 V* out, int begin, int end) {
  switch (t) {
  case ScalarType::Bool: return load_contiguous<bool>(data, start, out, begin, end);
  case ScalarType::UInt8: return load_contiguous<std::uint8_t>(data, start, out, begin, end);
  case ScalarType::UInt16: return load_contiguous<std::uint16_t>(data, start, out, begin, end);
  case ScalarType::Int16: return load_contiguous<std::int16_t>(data, start, out, begin, end);
  case ScalarType::Int32: return load_contiguous<std::int32_t>(data, start, out, begin, end);
  case ScalarType::Int64: return load_contiguous<std::int64_t>(data, start, out, begin, end);
  case ScalarType::Float32: return load_contiguous<float>(data, start, out, begin, end);
  case ScalarType::Float64: return load_contiguous<double>(data, start, out, begin, end);
  }
}

} // namespace

std::int64_t load_integer(const void* data, ScalarType t, std::int64_t i) {
  switch (t) {
  case ScalarType::Bool: return static_cast<const bool*>(data)[i] ? 1 : 0;
  case ScalarType::UInt8: return static_cast<const std::uint8_t*>(data)[i];
  case ScalarType::UInt16: return static_cast<const std::uint16_t*>(data)[i];
  case ScalarType::Int16: return static_cast<const std::int16_t*>(data)[i];
  case ScalarType::Int32: return static_cast<const std::int32_t*>(data)[i];
  case ScalarType::Int64: return static_cast<const std::int64_t*>(data)[i];
  default: break;
  }
  TRAPEZE_ASSERT(false, "load_integer of a float array");
}

double load_float(const void* data, ScalarType t, std::int64_t i) {
  if (t == ScalarType::Float32) return static_cast<const float*>(data)[i];
  TRAPEZE_ASSERT(t == ScalarType::Float64, "load_float of an integer array");
  return static_cast<const double*>(data)[i];
}

void store_integer(void* data, ScalarType t, std::int64_t i, std::int64_t v) {
  switch (t) {
  case ScalarType::Bool: static_cast<bool*>(data)[i] = v != 0; return;
  case ScalarType::UInt8:
    static_cast<std::uint8_t*>(data)[i] = static_cast<std::uint8_t>(v);
    return;
  case ScalarType::UInt16:
    static_cast<std::uint16_t*>(data)[i] = static_cast<std::uint16_t>(v);
    return;
  case ScalarType::Int16:
    static_cast<std::int16_t*>(data)[i] = static_cast<std::int16_t>(v);
    return;
  case ScalarType::Int32:
    static_cast<std::int32_t*>(data)[i] = static_cast<std::int32_t>(v);
    return;
  case ScalarType::Int64: static_cast<std::int64_t*>(data)[i] = v; return;
  default: break;
  }
  TRAPEZE_ASSERT(false, "store_integer to a float array");
}

void store_float(void* data, ScalarType t, std::int64_t i, double v) {
  if (t == ScalarType::Float32) {
    static_cast<float*>(data)[i] = static_cast<float>(v);
    return;
  }
  TRAPEZE_ASSERT(t == ScalarType::Float64, "store_float to an integer array");
  static_cast<double*>(data)[i] = v;
}

RowProgram::RowProgram(const Expr& e, const std::vector<std::string>& vars,
                       const ParamValues& params, const ArrayLookup& lookup)
    : type_(e.type()), row_var_(static_cast<int>(vars.size()) - 1) {
  // Post-order; a node shared within the expression is computed once.
  std::unordered_map<const ExprNode*, int> seen;
  std::function<int(const Expr&)> add = [&](const Expr& n) -> int {
    if (auto it = seen.find(n.get()); it != seen.end()) return it->second;
    Step s;
    s.node = n.get();
    switch (n->kind) {
    case ExprKind::IntConst:
    case ExprKind::FloatConst:
    case ExprKind::ParamRef: s.constant = true; break;
    case ExprKind::VarRef: {
      const auto it = std::find(vars.begin(), vars.end(), n.as<VarRef>()->name);
      TRAPEZE_ASSERT(it != vars.end(), "variable '" + n.as<VarRef>()->name + "' not in scope");
      s.var = static_cast<int>(it - vars.begin());
      break;
    }
    case ExprKind::Cast: s.a = add(n.as<Cast>()->value); break;
    case ExprKind::Unary: s.a = add(n.as<Unary>()->value); break;
    case ExprKind::Binary:
      s.a = add(n.as<Binary>()->a);
      s.b = add(n.as<Binary>()->b);
      break;
    case ExprKind::Select:
      s.a = add(n.as<Select>()->cond);
      s.b = add(n.as<Select>()->if_true);
      s.c = add(n.as<Select>()->if_false);
      break;
    case ExprKind::Access: {
      const Access& a = *n.as<Access>();
      for (const Expr& arg : a.args) {
        s.args.push_back(add(arg));
        s.clamped.push_back(reads_memory(arg) ? 1 : 0);
      }
      s.array = &lookup(a);
      TRAPEZE_ASSERT(s.array->box.dimensions() == static_cast<int>(a.args.size()),
                     "array of the wrong rank for " + to_string(n));
      break;
    }
    }
    steps_.push_back(std::move(s));
    const int index = static_cast<int>(steps_.size()) - 1;
    seen.emplace(n.get(), index);
    return index;
  };
  add(e);

  // Uniform steps: the same value on every lane of a row stretch. Which steps
  // are needed on all lanes: the root, and the operands of any step computed
  // on all lanes (an access reads a uniform index on the first lane only).
  for (Step& s : steps_) {
    const auto uniform_operand = [&](int i) {
      return i < 0 || steps_[static_cast<std::size_t>(i)].uniform;
    };
    switch (s.node->kind) {
    case ExprKind::IntConst:
    case ExprKind::FloatConst:
    case ExprKind::ParamRef: s.uniform = true; break;
    case ExprKind::VarRef: s.uniform = s.var != row_var_; break;
    case ExprKind::Access: s.uniform = false; break;
    default:
      s.uniform = uniform_operand(s.a) && uniform_operand(s.b) && uniform_operand(s.c);
      break;
    }
  }
  // Contiguous steps: the row variable plus a uniform value. An access with
  // one such unclamped index and uniform others may load contiguously.
  for (Step& s : steps_) {
    const auto contiguous = [&](int i) { return steps_[static_cast<std::size_t>(i)].contiguous; };
    const auto uniform = [&](int i) { return steps_[static_cast<std::size_t>(i)].uniform; };
    if (s.node->kind == ExprKind::VarRef) {
      s.contiguous = s.var == row_var_;
    } else if (const auto* b = s.node->kind == ExprKind::Binary ? static_cast<const Binary*>(s.node)
                                                                : nullptr) {
      s.contiguous = is_integer(b->type) &&
                     ((b->op == BinaryOp::Add &&
                       ((contiguous(s.a) && uniform(s.b)) || (uniform(s.a) && contiguous(s.b)))) ||
                      (b->op == BinaryOp::Sub && contiguous(s.a) && uniform(s.b)));
    } else if (s.node->kind == ExprKind::Cast) {
      s.contiguous = contiguous(s.a) &&
                     (s.node->type == ScalarType::Int32 || s.node->type == ScalarType::Int64);
    } else if (s.node->kind == ExprKind::Access) {
      int lane_dims = 0;
      for (std::size_t d = 0; d < s.args.size(); ++d) {
        if (uniform(s.args[d])) continue;
        ++lane_dims;
        if (contiguous(s.args[d]) && !s.clamped[d]) s.contiguous_dim = static_cast<int>(d);
      }
      if (lane_dims != 1) s.contiguous_dim = -1;
    }
  }
  steps_.back().all_lanes = true;
  for (std::size_t i = steps_.size(); i-- > 0;) {
    Step& s = steps_[i];
    if (s.uniform && !s.all_lanes) continue;
    for (int o : {s.a, s.b, s.c})
      if (o >= 0) steps_[static_cast<std::size_t>(o)].all_lanes = true;
    for (int o : s.args)
      if (!steps_[static_cast<std::size_t>(o)].uniform)
        steps_[static_cast<std::size_t>(o)].all_lanes = true;
  }

  columns_.resize(steps_.size());
  for (std::size_t i = 0; i < steps_.size(); ++i) {
    const Step& s = steps_[i];
    Column& c = columns_[i];
    const bool needs_ints = is_integer(s.node->type) || s.node->kind == ExprKind::Access;
    if (needs_ints) c.ints.assign(kMaxLanes, 0); // an access keeps its offsets here
    if (is_float(s.node->type)) c.floats.assign(kMaxLanes, 0.0);
    if (!s.constant) continue;
    if (const auto* k =
            s.node->kind == ExprKind::IntConst ? static_cast<const IntConst*>(s.node) : nullptr) {
      c.ints.assign(kMaxLanes, k->value);
    } else if (s.node->kind == ExprKind::FloatConst) {
      c.floats.assign(kMaxLanes, static_cast<const FloatConst*>(s.node)->value);
    } else {
      const auto* p = static_cast<const ParamRef*>(s.node);
      auto it = params.find(p->name);
      if (it == params.end())
        throw Error("parameter '" + p->name + "' has no value: bind it before interpreting");
      if (p->type == ScalarType::Int64)
        c.ints.assign(kMaxLanes, it->second.i);
      else if (p->type == ScalarType::Float32)
        c.floats.assign(kMaxLanes, round_f32(it->second.f));
      else
        c.floats.assign(kMaxLanes, it->second.f);
    }
  }
}

void RowProgram::access(const Step& s, Column& out, int begin, int end, const std::uint8_t* mask) {
  const StoredArray& arr = *s.array;
  // Uniform indices add to `base`; the others give per-lane offsets, kept in out.ints.
  i64 base = 0;
  bool out_of_bounds = false;
  for (std::size_t d = 0; d < s.args.size(); ++d) {
    if (!steps_[static_cast<std::size_t>(s.args[d])].uniform) continue;
    const i64 lo = arr.box.lo[d], hi = arr.box.hi[d];
    const i64 v0 =
        columns_[static_cast<std::size_t>(s.args[d])].ints[static_cast<std::size_t>(begin)];
    const i64 v = s.clamped[d] ? std::clamp(v0, lo, hi) : v0;
    out_of_bounds |= v < lo || v > hi;
    base += (v - lo) * arr.strides[d];
  }
  // The common case of a stencil: one index is the row variable plus a
  // constant, along the contiguous dimension: a contiguous load. Its ends
  // being in bounds and one lane apart per lane proves every lane in bounds.
  if (s.contiguous_dim >= 0 && !out_of_bounds) {
    const auto d = static_cast<std::size_t>(s.contiguous_dim);
    const i64* idx = columns_[static_cast<std::size_t>(s.args[d])].ints.data();
    const i64 v0 = idx[begin], v1 = idx[end - 1];
    if (arr.strides[d] == 1 && v1 - v0 == end - 1 - begin && v0 >= arr.box.lo[d] &&
        v1 <= arr.box.hi[d]) {
      const i64 start = base + (v0 - arr.box.lo[d]);
      if (is_float(s.node->type))
        load_contiguous_typed(arr.type, arr.data, start, out.floats.data(), begin, end);
      else
        load_contiguous_typed(arr.type, arr.data, start, out.ints.data(), begin, end);
      return;
    }
  }
  i64* off = out.ints.data();
  std::fill(off + begin, off + end, base);
  for (std::size_t d = 0; d < s.args.size(); ++d) {
    if (steps_[static_cast<std::size_t>(s.args[d])].uniform) continue;
    const i64* idx = columns_[static_cast<std::size_t>(s.args[d])].ints.data();
    const i64 lo = arr.box.lo[d], hi = arr.box.hi[d], stride = arr.strides[d];
    if (s.clamped[d]) {
      for (int l = begin; l < end; ++l)
        off[l] += (std::clamp(idx[l], lo, hi) - lo) * stride;
      continue;
    }
    if (stride == 1) {
      for (int l = begin; l < end; ++l)
        off[l] += idx[l] - lo;
    } else {
      for (int l = begin; l < end; ++l)
        off[l] += (idx[l] - lo) * stride;
    }
    // Proved in bounds by check_access_bounds wherever the access is
    // evaluated (lanes outside the mask are not read). The sign bit of
    // (idx - lo) | (hi - idx) is set exactly when idx is outside [lo, hi].
    i64 outside = 0;
    if (mask) {
      for (int l = begin; l < end; ++l)
        outside |= mask[l] ? (sub_wrapped(idx[l], lo) | sub_wrapped(hi, idx[l])) : 0;
    } else {
      for (int l = begin; l < end; ++l)
        outside |= sub_wrapped(idx[l], lo) | sub_wrapped(hi, idx[l]);
    }
    out_of_bounds |= outside < 0;
  }
  TRAPEZE_ASSERT(!out_of_bounds, "interpreter access out of bounds: " +
                                     to_string(Expr(std::shared_ptr<const ExprNode>(
                                         std::shared_ptr<const ExprNode>{}, s.node))) +
                                     " (check_access_bounds should have rejected it)");
  if (is_float(s.node->type))
    gather_typed(arr.type, arr.data, off, out.floats.data(), begin, end, mask);
  else
    gather_typed(arr.type, arr.data, off, off, begin, end, mask);
}

const Column& RowProgram::run(const std::int64_t* outer, std::int64_t row_start, int begin,
                              int last, const std::uint8_t* mask) {
  TRAPEZE_ASSERT(0 <= begin && begin < last && last <= kMaxLanes, "bad lane range");
  for (std::size_t i = 0; i < steps_.size(); ++i) {
    const Step& s = steps_[i];
    if (s.constant) continue;
    Column& out = columns_[i];
    const ScalarType t = s.node->type;
    // A step with the same value on every lane, read only as an index, is
    // computed on the first lane alone.
    const int end = s.uniform && !s.all_lanes ? begin + 1 : last;
    switch (s.node->kind) {
    case ExprKind::VarRef: {
      i64* o = out.ints.data();
      if (s.var == row_var_) {
        for (int l = begin; l < end; ++l)
          o[l] = row_start + l;
      } else {
        std::fill(o + begin, o + end, outer[s.var]);
      }
      break;
    }
    case ExprKind::Cast:
      cast(t, steps_[static_cast<std::size_t>(s.a)].node->type,
           columns_[static_cast<std::size_t>(s.a)], out, begin, end);
      break;
    case ExprKind::Unary: {
      const Column& a = columns_[static_cast<std::size_t>(s.a)];
      const UnaryOp op = static_cast<const Unary*>(s.node)->op;
      if (is_float(t))
        float_unary(op, t, a.floats.data(), out.floats.data(), begin, end);
      else
        integer_unary(op, t, a.ints.data(), out.ints.data(), begin, end);
      break;
    }
    case ExprKind::Binary: {
      const auto* b = static_cast<const Binary*>(s.node);
      const Column& x = columns_[static_cast<std::size_t>(s.a)];
      const Column& y = columns_[static_cast<std::size_t>(s.b)];
      if (is_float(b->a.type()))
        float_binary(b->op, b->a.type(), x.floats.data(), y.floats.data(), out.floats.data(),
                     out.ints.data(), begin, end);
      else
        integer_binary(b->op, t, x.ints.data(), y.ints.data(), out.ints.data(), begin, end);
      break;
    }
    case ExprKind::Select: {
      const i64* c = columns_[static_cast<std::size_t>(s.a)].ints.data();
      const Column& x = columns_[static_cast<std::size_t>(s.b)];
      const Column& y = columns_[static_cast<std::size_t>(s.c)];
      if (is_float(t)) {
        const double *xt = x.floats.data(), *yf = y.floats.data();
        double* o = out.floats.data();
        for (int l = begin; l < end; ++l)
          o[l] = c[l] ? xt[l] : yf[l];
      } else {
        const i64 *xt = x.ints.data(), *yf = y.ints.data();
        i64* o = out.ints.data();
        for (int l = begin; l < end; ++l)
          o[l] = c[l] ? xt[l] : yf[l];
      }
      break;
    }
    case ExprKind::Access: access(s, out, begin, end, mask); break;
    case ExprKind::IntConst:
    case ExprKind::FloatConst:
    case ExprKind::ParamRef: break;
    }
  }
  return columns_.back();
}

} // namespace trapeze::runtime
