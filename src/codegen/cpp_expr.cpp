// The C++ expression printer: precedence-aware, typed, helper-tracking.
#include "codegen/cpp_expr.h"

#include "analysis/interval_bounds.h"
#include "codegen/shared_values.h"
#include "lower/loop_ir.h"
#include "trapeze/ir_visitor.h"
#include "trapeze/pipeline.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <utility>

namespace trapeze::codegen {

using namespace ir;

std::string cpp_int_literal(ScalarType type, std::int64_t value) {
  if (type == ScalarType::Bool) return value ? "true" : "false";
  std::string digits;
  if (type == ScalarType::Int64 && value == std::numeric_limits<std::int64_t>::min()) {
    digits = "-9223372036854775807 - 1";
  } else if (value == std::numeric_limits<std::int32_t>::min()) {
    digits = "-2147483647 - 1";
  } else {
    digits = std::to_string(value);
  }
  if (type == ScalarType::Int32)
    return digits.find(' ') != std::string::npos ? "(" + digits + ")" : digits;
  return std::string(cpp_type_name(type)) + "(" + digits + ")";
}

std::string cpp_float_literal(ScalarType type, double value) {
  const bool f32 = type == ScalarType::Float32;
  if (std::isnan(value)) return f32 ? "__builtin_nanf(\"\")" : "__builtin_nan(\"\")";
  if (std::isinf(value))
    return std::string(value < 0 ? "-" : "") + (f32 ? "__builtin_inff()" : "__builtin_inf()");
  // The shortest decimal that the C++ compiler reads back to the same value.
  char buf[64];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buf, sizeof buf, "%.*g", digits, value);
    if (f32 ? std::strtof(buf, nullptr) == static_cast<float>(value)
            : std::strtod(buf, nullptr) == value)
      break;
  }
  std::string s(buf);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return f32 ? s + "f" : s;
}

namespace {

// C++ precedence levels: a smaller number binds tighter.
constexpr int kPrimary = 0, kUnary = 3, kMul = 5, kAdd = 6, kShift = 7, kRel = 9, kEq = 10,
              kBitAnd = 11, kBitOr = 13, kTernary = 16;

struct Text {
  std::string s;
  int prec = kPrimary;
};

bool is_narrow(ScalarType t) {
  return t == ScalarType::Bool || t == ScalarType::UInt8 || t == ScalarType::UInt16 ||
         t == ScalarType::Int16;
}

// log2 of a positive power of two, or -1.
int power_of_two(const Expr& e) {
  const auto* k = e.as<IntConst>();
  if (!k || k->value <= 0 || (k->value & (k->value - 1)) != 0) return -1;
  int n = 0;
  while ((std::int64_t{1} << n) != k->value)
    ++n;
  return n;
}

// The C function generated code calls for a math operation on `type`.
// sqrt, floor, ceil and fabs are exact, and the compiler may treat them as it
// likes. exp, log, sin, cos and pow are not correctly rounded: generated code
// calls them under tz_ names that alias the C library's (cpp_codegen's
// kMathDeclarations), which the compiler does not know, so it cannot fold a
// constant argument with its own correctly rounded arithmetic and give
// another result than the library call the interpreter makes.
std::string math_function(std::string_view name, ScalarType type) {
  const std::string c_name = std::string(name) + (type == ScalarType::Float32 ? "f" : "");
  const bool inexact =
      name == "exp" || name == "log" || name == "sin" || name == "cos" || name == "pow";
  return inexact ? "tz_" + c_name : c_name;
}

std::string math_function(UnaryOp op, ScalarType type) {
  TRAPEZE_ASSERT(op != UnaryOp::Neg && op != UnaryOp::Not, "not a math function");
  // The DSL's names are C's <math.h> names, except abs on floats.
  return math_function(op == UnaryOp::Abs ? "fabs" : unary_op_name(op), type);
}

// The values an integer expression can take, exactly (128 bits hold any
// product of two int64 bounds): what proves an operation cannot overflow.
__extension__ typedef __int128 Wide; // a GCC and Clang extension, hence the marker

struct Range {
  Wide lo, hi;
};

Range type_range(ScalarType t) {
  const analysis::IntRange r = analysis::full_range(t);
  return {r.lo, r.hi};
}

bool fits(const Range& r, ScalarType t) {
  const Range limits = type_range(t);
  return r.lo >= limits.lo && r.hi <= limits.hi;
}

Wide magnitude(const Range& r) { return std::max(r.hi, -r.lo); }

class Printer {
public:
  explicit Printer(const CppExprContext& c) : ctx_(c), stage_value_(c.stage_value) {}

  // `infix`: e is an operand of an infix arithmetic or comparison operator,
  // where C++ promotes narrow integers by itself and an int64 operand makes
  // a plain int literal int64; `sibling_constant`: the other operand is a literal.
  Text print(const Expr& e, bool infix = false, bool sibling_constant = false) {
    if (!declared_.empty())
      if (const std::string* name = declared_name(numbers_.number(e))) return {*name};
    return print_node(e, infix, sibling_constant);
  }

  // `e` with the values it shares declared first (shared_values.h), in a
  // scope of names that ends with it.
  struct Named {
    std::vector<std::string> declarations;
    Text value;
  };
  Named print_named(const Expr& e) {
    Named out;
    declared_.emplace_back();
    SharedValueRules rules;
    rules.branches = [](const Select& s) { return is_branch(s); };
    rules.declared = [this](int n) { return declared_name(n) != nullptr; };
    for (const Expr& v : shared_values(e, numbers_, rules)) {
      const std::string text = print_node(v).s;
      const auto* access = v.as<Access>();
      const std::string name = ctx_.local(access ? access->producer_name() + "_value" : "t");
      out.declarations.push_back("const " + std::string(cpp_type_name(v.type())) + " " + name +
                                 " = " + text + ";");
      declared_.back()[numbers_.number(v)] = name;
    }
    out.value = print(e);
    declared_.pop_back();
    return out;
  }

private:
  // A select that tests only coordinates may guard a case's value, whose
  // accesses are in bounds only inside the case's box (lowering keeps a
  // case as such a select where it cannot split the loops at the box):
  // it stays a lazy ?:. Any other select evaluates both values (expr.h
  // allows it, and both are in bounds), through a function call, so the
  // loads are unconditional and the compiler can blend them into a
  // vector; a ?: with loads in its arms is control flow that keeps the
  // loop from vectorizing.
  static bool is_branch(const Select& s) { return !reads_memory(s.cond); }

  // The local that an enclosing print_named declared for value number `n`.
  const std::string* declared_name(int n) const {
    for (auto scope = declared_.rbegin(); scope != declared_.rend(); ++scope)
      if (const auto found = scope->find(n); found != scope->end()) return &found->second;
    return nullptr;
  }

  // A value of a select printed as a branch: where it shares values of its
  // own, they are declared in a lambda that only that branch calls.
  Text branch_value(const Expr& e) {
    if (!ctx_.local) return print(e);
    Named named = print_named(e);
    if (named.declarations.empty()) return named.value;
    std::string text = "[&]() -> " + std::string(cpp_type_name(e.type())) + " {";
    for (const std::string& d : named.declarations)
      text += " " + d;
    return {text + " return " + named.value.s + "; }()"};
  }

  Text print_node(const Expr& e, bool infix = false, bool sibling_constant = false) {
    if (const auto* k = e.as<IntConst>()) {
      if (infix && !sibling_constant && k->type == ScalarType::Int64 &&
          k->value >= std::numeric_limits<std::int32_t>::min() + 1 &&
          k->value <= std::numeric_limits<std::int32_t>::max())
        return {std::to_string(k->value), k->value < 0 ? kUnary : kPrimary};
      const std::string s = cpp_int_literal(k->type, k->value);
      return {s, s[0] == '-' ? kUnary : kPrimary};
    }
    if (const auto* f = e.as<FloatConst>()) {
      const std::string s = cpp_float_literal(f->type, f->value);
      return {s, s[0] == '-' ? kUnary : kPrimary};
    }
    if (const auto* v = e.as<VarRef>()) return {ctx_.var(v->name)};
    if (const auto* p = e.as<ParamRef>()) return {ctx_.param(p->name)};
    if (const auto* c = e.as<Cast>()) {
      if (infix && c->type == ScalarType::Int32 && is_narrow(c->value.type()))
        return print(c->value, true); // C++'s integer promotion does exactly this cast
      if (is_integer(c->type) && c->type != ScalarType::Bool && is_float(c->value.type()))
        return {helper("tz_float_to_int") + "<" + std::string(cpp_type_name(c->type)) + ">(" +
                print(c->value).s + ")"};
      return {std::string(cpp_type_name(c->type)) + "(" + print(c->value).s + ")"};
    }
    if (const auto* u = e.as<Unary>()) return unary(*u);
    if (const auto* b = e.as<Binary>()) return binary(*b);
    if (const auto* s = e.as<Select>()) {
      if (is_branch(*s))
        return {wrap(print(s->cond), kTernary - 1) + " ? " + branch_value(s->if_true).s + " : " +
                    wrap(branch_value(s->if_false), kTernary),
                kTernary};
      return {helper("tz_select") + "<" + std::string(cpp_type_name(s->type)) + ">(" +
              print(s->cond).s + ", " + print(s->if_true).s + ", " + print(s->if_false).s + ")"};
    }
    if (const auto* a = e.as<Access>()) {
      std::vector<PrintedIndex> args;
      for (const Expr& arg : a->args) {
        // An index that reads no memory is affine in the coordinates, and its
        // value lies in the producer's domain, within +-max_index: the bounds
        // check before every run proves it (analysis/bounds_check.h), so its
        // arithmetic stays plain where the range analysis alone, knowing each
        // coordinate only within +-max_index, could not prove `2 * x - 2`.
        const bool proven = !reads_memory(arg);
        const bool was_value = std::exchange(stage_value_, stage_value_ && !proven);
        args.push_back({print(arg).s, arg.type(), !proven});
        stage_value_ = was_value;
      }
      return {ctx_.load(*a, args)};
    }
    TRAPEZE_ASSERT(false, "unknown expression kind");
  }

  // Whether an integer +, -, * or negation of a stage value may leave its
  // type for some values of its operands (then it wraps through a helper).
  template <typename Node> bool may_overflow(const Node& n) {
    return stage_value_ && !fits(exact_range(n), n.type);
  }

  Range exact_range(const Unary& u) {
    const Range a = range(u.value);
    return {-a.hi, -a.lo};
  }

  Range exact_range(const Binary& b) {
    const Range x = range(b.a), y = range(b.b);
    switch (b.op) {
    case BinaryOp::Add: return {x.lo + y.lo, x.hi + y.hi};
    case BinaryOp::Sub: return {x.lo - y.hi, x.hi - y.lo};
    case BinaryOp::Mul: {
      const Wide p[] = {x.lo * y.lo, x.lo * y.hi, x.hi * y.lo, x.hi * y.hi};
      return {*std::min_element(std::begin(p), std::end(p)),
              *std::max_element(std::begin(p), std::end(p))};
    }
    default: TRAPEZE_ASSERT(false, "exact_range of an operator that cannot overflow");
    }
  }

  // What an integer expression can evaluate to: coordinates lie within
  // +-max_index (the entry checks every domain), a load or a parameter
  // anywhere in its type, an operation that wraps anywhere in its type.
  Range range(const Expr& e) {
    const auto cached = ranges_.find(e.get());
    if (cached != ranges_.end()) return cached->second;
    Range r = type_range(e.type());
    if (const auto* k = e.as<IntConst>()) {
      r = {k->value, k->value};
    } else if (e.as<VarRef>()) {
      r = {-max_index, max_index};
    } else if (const auto* c = e.as<Cast>()) {
      if (is_integer(c->value.type()) && fits(range(c->value), c->type)) r = range(c->value);
    } else if (const auto* u = e.as<Unary>()) {
      if (u->op == UnaryOp::Not) r = {0, 1};
      if (u->op == UnaryOp::Neg && fits(exact_range(*u), u->type)) r = exact_range(*u);
      if (u->op == UnaryOp::Abs && fits({0, magnitude(range(u->value))}, u->type))
        r = {0, magnitude(range(u->value))};
    } else if (const auto* b = e.as<Binary>(); b && is_integer(b->type)) {
      r = binary_range(*b);
    } else if (const auto* s = e.as<Select>(); s && is_integer(s->type)) {
      const Range x = range(s->if_true), y = range(s->if_false);
      r = {std::min(x.lo, y.lo), std::max(x.hi, y.hi)};
    }
    ranges_[e.get()] = r;
    return r;
  }

  Range binary_range(const Binary& b) {
    if (is_comparison(b.op) || b.op == BinaryOp::And || b.op == BinaryOp::Or) return {0, 1};
    const Range x = range(b.a), y = range(b.b), all = type_range(b.type);
    switch (b.op) {
    case BinaryOp::Add:
    case BinaryOp::Sub:
    case BinaryOp::Mul: {
      const Range r = exact_range(b);
      return fits(r, b.type) ? r : all;
    }
    case BinaryOp::Min: return {std::min(x.lo, y.lo), std::min(x.hi, y.hi)};
    case BinaryOp::Max: return {std::max(x.lo, y.lo), std::max(x.hi, y.hi)};
    case BinaryOp::Div:
    case BinaryOp::TruncDiv: {
      // By a constant c > 1 the quotient is monotonic in a: its ends are the ends' quotients
      // (rounded either way, which covers floor and truncation).
      if (y.lo == y.hi && y.lo > 1) return {x.lo / y.lo - 1, x.hi / y.lo + 1};
      // Else |a / b| <= |a|, except MIN / -1, which wraps to MIN itself.
      const Wide m = magnitude(x);
      return fits({-m, m}, b.type) ? Range{-m, m} : all;
    }
    case BinaryOp::Mod:
    case BinaryOp::TruncMod: {
      if (b.op == BinaryOp::Mod && y.lo == y.hi && y.lo > 0) return {0, y.lo - 1};
      const Wide m = std::max<Wide>(magnitude(y) - 1, 0);
      return {-m, m};
    }
    default: return all;
    }
  }

  // The text, parenthesized if it binds more loosely than `max_prec` allows.
  static std::string wrap(const Text& t, int max_prec) {
    return t.prec > max_prec ? "(" + t.s + ")" : t.s;
  }

  std::string helper(const std::string& name) {
    if (ctx_.helpers) ctx_.helpers->insert(name);
    return name;
  }

  std::string call(const std::string& fn, const Expr& a) { return fn + "(" + print(a).s + ")"; }
  std::string call(const std::string& fn, const Expr& a, const Expr& b) {
    return fn + "(" + print(a).s + ", " + print(b).s + ")";
  }

  Text unary(const Unary& u) {
    switch (u.op) {
    case UnaryOp::Neg:
      if (is_integer(u.type) && may_overflow(u)) return {call(helper("tz_wrapping_neg"), u.value)};
      return {"-" + wrap(print(u.value), kUnary - 1), kUnary};
    case UnaryOp::Not: return {"!" + wrap(print(u.value), kUnary - 1), kUnary};
    case UnaryOp::Abs:
      if (is_integer(u.type)) return {call(helper("tz_abs"), u.value)};
      break;
    default: break;
    }
    return {call(math_function(u.op, u.type), u.value)};
  }

  Text infix(const Binary& b, const char* op, int prec) {
    const bool a_const = b.a.as<IntConst>() || b.a.as<FloatConst>();
    const bool b_const = b.b.as<IntConst>() || b.b.as<FloatConst>();
    Text l = print(b.a, true, b_const), r = print(b.b, true, a_const);
    return {wrap(l, prec) + " " + op + " " + wrap(r, prec - 1), prec};
  }

  // Logical and/or of bools as & and |: both sides are evaluated anyway
  // (expr.h: no short-circuit), and without the branches of && and || the
  // compiler can vectorize a loop whose select tests a box. Every operand is
  // parenthesized unless primary, for the reader (and -Wparentheses).
  Text logical(const Binary& b, const char* op, int prec) {
    const auto operand = [&](const Expr& e) { return wrap(print(e, true), kUnary); };
    return {operand(b.a) + " " + op + " " + operand(b.b), prec};
  }

  Text binary(const Binary& b) {
    const bool integer = is_integer(b.type) || is_comparison(b.op);
    switch (b.op) {
    case BinaryOp::Add:
      if (integer && may_overflow(b)) return {call(helper("tz_wrapping_add"), b.a, b.b)};
      return infix(b, "+", kAdd);
    case BinaryOp::Sub:
      if (integer && may_overflow(b)) return {call(helper("tz_wrapping_sub"), b.a, b.b)};
      return infix(b, "-", kAdd);
    case BinaryOp::Mul:
      if (integer && may_overflow(b)) return {call(helper("tz_wrapping_mul"), b.a, b.b)};
      return infix(b, "*", kMul);
    case BinaryOp::Div: {
      if (!integer) return infix(b, "/", kMul);
      const int shift = power_of_two(b.b);
      if (shift == 0) return print(b.a);
      if (shift > 0) return {wrap(print(b.a), kShift) + " >> " + std::to_string(shift), kShift};
      return {call(helper("tz_floordiv"), b.a, b.b)};
    }
    case BinaryOp::Mod: {
      if (!integer) return {call(helper("tz_fmod"), b.a, b.b)};
      const int shift = power_of_two(b.b);
      if (shift >= 0) {
        const auto mask = static_cast<std::int64_t>((std::int64_t{1} << shift) - 1);
        return {wrap(print(b.a), kBitAnd) + " & " + std::to_string(mask), kBitAnd};
      }
      return {call(helper("tz_floormod"), b.a, b.b)};
    }
    case BinaryOp::TruncDiv: // C's / by a constant other than 0 and -1 (MIN / -1 traps)
      if (const auto* k = b.b.as<IntConst>(); k && k->value != 0 && k->value != -1)
        return infix(b, "/", kMul);
      return {call(helper("tz_truncdiv"), b.a, b.b)};
    case BinaryOp::TruncMod:
      if (const auto* k = b.b.as<IntConst>(); k && k->value != 0 && k->value != -1)
        return infix(b, "%", kMul);
      return {call(helper("tz_truncmod"), b.a, b.b)};
    case BinaryOp::Min:
    case BinaryOp::Max:
      if (narrows_to_int32(b)) return {"int64_t(" + narrowed_min_max(b) + ")"};
      return {call(helper(b.op == BinaryOp::Min ? "tz_min" : "tz_max"), b.a, b.b)};
    case BinaryOp::Pow: return {call(math_function("pow", b.type), b.a, b.b)};
    case BinaryOp::EQ: return infix(b, "==", kEq);
    case BinaryOp::NE: return infix(b, "!=", kEq);
    case BinaryOp::LT: return infix(b, "<", kRel);
    case BinaryOp::LE: return infix(b, "<=", kRel);
    case BinaryOp::GT: return infix(b, ">", kRel);
    case BinaryOp::GE: return infix(b, ">=", kRel);
    case BinaryOp::And: return logical(b, "&", kBitAnd);
    case BinaryOp::Or: return logical(b, "|", kBitOr);
    }
    TRAPEZE_ASSERT(false, "unknown binary operator");
  }

  // An int64 min or max of per-point values that both fit int32 (a
  // data-dependent index clamped into a domain of constant bounds): it runs
  // in int32 and widens once. AVX2 has no 64-bit min or max (each is a
  // compare and a blend on each half of the vector, after widening every
  // operand), and the index of a 32-bit gather copy then stays narrow. Exact:
  // the min of two values in int32 range is the same in either width.
  // Affine bounds and loop limits read no memory and keep their int64 text.
  // (Called for a Min or Max only.)
  bool narrows_to_int32(const Binary& b) {
    return b.type == ScalarType::Int64 && (reads_memory(b.a) || reads_memory(b.b)) &&
           operands_fit_int32(b);
  }

  bool operands_fit_int32(const Binary& b) {
    return fits(range(b.a), ScalarType::Int32) && fits(range(b.b), ScalarType::Int32);
  }

  // The min or max of two operands in int32 range, printed in int32.
  std::string narrowed_min_max(const Binary& b) {
    return helper(b.op == BinaryOp::Min ? "tz_min" : "tz_max") + "(" + narrowed(b.a) + ", " +
           narrowed(b.b) + ")";
  }

  // An int64 expression whose range fits int32, printed as an int32 one.
  std::string narrowed(const Expr& e) {
    const auto* b = e.as<Binary>();
    if (b && (b->op == BinaryOp::Min || b->op == BinaryOp::Max) && operands_fit_int32(*b))
      return narrowed_min_max(*b);
    if (const auto* k = e.as<IntConst>(); k && k->value > std::numeric_limits<std::int32_t>::min())
      return std::to_string(k->value);
    const auto* c = e.as<Cast>();
    const Expr& value = c && is_integer(c->value.type()) ? c->value : e;
    if (value.type() == ScalarType::Int32 && value.as<Cast>())
      return print(value).s; // int32_t(...)
    return "int32_t(" + print(value).s + ")";
  }

  const CppExprContext& ctx_;
  bool stage_value_; // ctx_.stage_value, off inside an index proven in range
  std::map<const ExprNode*, Range> ranges_;
  ValueNumbers numbers_;
  // The values declared as locals, by number: one scope per print_named.
  std::vector<std::map<int, std::string>> declared_;
};

struct HelperText {
  const char* name;
  const char* text;
};

// Inline helpers: small enough that the compiler inlines them and still
// vectorizes the loop around them. A zero divisor yields 0 (expr.h).
const HelperText kHelpers[] = {
    {"tz_min", "template <typename T> inline T tz_min(T a, T b) { return b < a ? b : a; }\n"},
    {"tz_max", "template <typename T> inline T tz_max(T a, T b) { return a < b ? b : a; }\n"},
    {"tz_abs", "// |a|, with |MIN| wrapping to MIN (docs/dsl.md) instead of overflowing.\n"
               "template <typename T> inline T tz_abs(T a) {\n"
               "  return a < 0 ? T(T(0) - std::make_unsigned_t<T>(a)) : a;\n"
               "}\n"},
    {"tz_wrapping_add",
     "// Two's-complement +, - and * (docs/dsl.md): C++'s signed overflow is undefined, so\n"
     "// operations the printer cannot prove in range compute in the unsigned type.\n"
     "template <typename T> inline T tz_wrapping_add(T a, T b) {\n"
     "  return T(std::make_unsigned_t<T>(a) + std::make_unsigned_t<T>(b));\n"
     "}\n"},
    {"tz_wrapping_sub", "template <typename T> inline T tz_wrapping_sub(T a, T b) {\n"
                        "  return T(std::make_unsigned_t<T>(a) - std::make_unsigned_t<T>(b));\n"
                        "}\n"},
    {"tz_wrapping_mul", "template <typename T> inline T tz_wrapping_mul(T a, T b) {\n"
                        "  return T(std::make_unsigned_t<T>(a) * std::make_unsigned_t<T>(b));\n"
                        "}\n"},
    {"tz_wrapping_neg", "template <typename T> inline T tz_wrapping_neg(T a) {\n"
                        "  return T(std::make_unsigned_t<T>(0) - std::make_unsigned_t<T>(a));\n"
                        "}\n"},
    {"tz_float_to_int",
     "// A float to an integer type (docs/dsl.md): truncation toward zero, saturated to the\n"
     "// type's range, NaN to 0 (C++ leaves values out of range undefined).\n"
     "// Types narrower than int32 go through int32 and clamp there: GCC vectorizes that, and\n"
     "// not the float comparisons mixed with 16- or 8-bit results (local_laplacian's output).\n"
     "template <typename T, typename F> inline T tz_float_to_int(F v) {\n"
     "  if constexpr (sizeof(T) < sizeof(int32_t)) {\n"
     "    constexpr int32_t lo = std::numeric_limits<T>::min(), hi = "
     "std::numeric_limits<T>::max();\n"
     "    const int32_t i = tz_float_to_int<int32_t>(v);\n"
     "    return T(i < lo ? lo : i > hi ? hi : i);\n"
     "  } else {\n"
     "    constexpr F lo = F(std::numeric_limits<T>::min());\n"
     "    constexpr F above = F(std::numeric_limits<T>::max()) + F(1); // a power of two\n"
     "    return v != v ? T(0)\n"
     "           : v <= lo ? std::numeric_limits<T>::min()\n"
     "           : v >= above ? std::numeric_limits<T>::max()\n"
     "                        : T(v);\n"
     "  }\n"
     "}\n"},
    {"tz_select",
     "// select(c, a, b) with a and b both evaluated (a blend, not a branch).\n"
     "template <typename T> inline T tz_select(bool c, T a, T b) { return c ? a : b; }\n"},
    {"tz_floordiv",
     "// Floor division (rounds toward minus infinity); x / 0 is 0 and x / -1 is -x, wrapping\n"
     "// (C++'s MIN / -1 traps).\n"
     "template <typename T> inline T tz_floordiv(T a, T b) {\n"
     "  const T d = b == 0 || b == -1 ? T(1) : b;\n"
     "  const T q = a / d, r = a % d;\n"
     "  return b == 0    ? T(0)\n"
     "         : b == -1 ? T(std::make_unsigned_t<T>(0) - std::make_unsigned_t<T>(a))\n"
     "                   : T(q - T((r != 0) & ((r < 0) != (d < 0))));\n"
     "}\n"},
    {"tz_floormod",
     "// Floor modulo (the sign of the divisor); x % 0 and x % -1 are 0.\n"
     "template <typename T> inline T tz_floormod(T a, T b) {\n"
     "  const T d = b == 0 || b == -1 ? T(1) : b;\n"
     "  const T r = a % d;\n"
     "  return b == 0 ? T(0) : T(r + ((r != 0) & ((r < 0) != (d < 0)) ? d : T(0)));\n"
     "}\n"},
    {"tz_truncdiv",
     "// C's division; x / 0 is 0 and x / -1 is -x, wrapping.\n"
     "template <typename T> inline T tz_truncdiv(T a, T b) {\n"
     "  return b == 0    ? T(0)\n"
     "         : b == -1 ? T(std::make_unsigned_t<T>(0) - std::make_unsigned_t<T>(a))\n"
     "                   : T(a / (b == 0 || b == -1 ? T(1) : b));\n"
     "}\n"},
    {"tz_truncmod", "// C's remainder; x % 0 and x % -1 are 0.\n"
                    "template <typename T> inline T tz_truncmod(T a, T b) {\n"
                    "  return b == 0 || b == -1 ? T(0) : T(a % (b == 0 || b == -1 ? T(1) : b));\n"
                    "}\n"},
    {"tz_load_narrow",
     "// A byte or half at a data-dependent index, read as the 32-bit word that starts at\n"
     "// it (its buffer's memory runs on past the last element): GCC vectorizes a gather of\n"
     "// words, not of narrower elements. The element is the word's low bytes on a\n"
     "// little-endian machine; elsewhere it is read as it is.\n"
     "template <typename T> inline T tz_load_narrow(const T* p) {\n"
     "#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__\n"
     "  typedef uint32_t __attribute__((may_alias, aligned(1))) tz_word;\n"
     "  using Bits = std::conditional_t<sizeof(T) == 1, uint8_t, uint16_t>;\n"
     "  const Bits bits = Bits(*reinterpret_cast<const tz_word*>(p));\n"
     "  T value;\n"
     "  memcpy(&value, &bits, sizeof(T));\n"
     "  return value;\n"
     "#else\n"
     "  return *p;\n"
     "#endif\n"
     "}\n"},
    {"tz_offsets_fit",
     "// Whether every element of a buffer lies within +-limit elements of element 0\n"
     "// (extents and strides in elements; a dimension of extent 0 holds none), so that\n"
     "// offsets into it summed modulo 2^32 and read as int32 are exact.\n"
     "template <size_t N>\n"
     "inline bool tz_offsets_fit(int64_t limit, const int64_t (&extent)[N],\n"
     "                           const int64_t (&stride)[N]) {\n"
     "  int64_t reach = 0;\n"
     "  for (size_t d = 0; d < N; ++d) {\n"
     "    if (extent[d] <= 0) return true;\n"
     "    const int64_t step = stride[d] < 0 ? -stride[d] : stride[d];\n"
     "    if (step != 0 && extent[d] - 1 > (limit - reach) / step) return false;\n"
     "    reach += (extent[d] - 1) * step;\n"
     "  }\n"
     "  return true;\n"
     "}\n"},
    {"tz_fmod", "// Float modulo: a - b * floor(a / b).\n"
                "inline float tz_fmod(float a, float b) { return a - b * floorf(a / b); }\n"
                "inline double tz_fmod(double a, double b) { return a - b * floor(a / b); }\n"},
};

} // namespace

std::string print_cpp_expr(const Expr& e, const CppExprContext& context) {
  Printer p(context);
  return p.print(e).s;
}

CppValue print_cpp_value(const Expr& e, const CppExprContext& context) {
  TRAPEZE_ASSERT(context.local != nullptr, "print_cpp_value needs a way to declare locals");
  Printer p(context);
  auto named = p.print_named(e);
  return {std::move(named.declarations), std::move(named.value.s)};
}

std::string print_checked_size_expr(const Expr& e, const CppExprContext& context,
                                    const std::string& ok) {
  const auto sub = [&](const Expr& x) { return print_checked_size_expr(x, context, ok); };
  const auto call = [&](const char* fn, const Expr& a, const Expr& b) {
    return std::string(fn) + "(" + sub(a) + ", " + sub(b) + ", " + ok + ")";
  };
  if (const auto* k = e.as<IntConst>()) return cpp_int_literal(ScalarType::Int64, k->value);
  if (const auto* p = e.as<ParamRef>()) return context.param(p->name);
  if (const auto* c = e.as<Cast>(); c && is_integer(c->value.type())) {
    // A bound is int64 throughout; a narrowing cast wraps, as the interpreter's evaluate_int.
    if (c->type == ScalarType::Int64) return sub(c->value);
    return "int64_t(" + std::string(cpp_type_name(c->type)) + "(" + sub(c->value) + "))";
  }
  if (const auto* u = e.as<Unary>(); u && u->op == UnaryOp::Neg)
    return "tz_checked_sub(int64_t(0), " + sub(u->value) + ", " + ok + ")";
  if (const auto* b = e.as<Binary>()) {
    switch (b->op) {
    case BinaryOp::Add: return call("tz_checked_add", b->a, b->b);
    case BinaryOp::Sub: return call("tz_checked_sub", b->a, b->b);
    case BinaryOp::Mul: return call("tz_checked_mul", b->a, b->b);
    case BinaryOp::Div: return call("tz_checked_floordiv", b->a, b->b);
    case BinaryOp::Mod: return call("tz_checked_floormod", b->a, b->b);
    case BinaryOp::Min: return "tz_checked_min(" + sub(b->a) + ", " + sub(b->b) + ")";
    case BinaryOp::Max: return "tz_checked_max(" + sub(b->a) + ", " + sub(b->b) + ")";
    default: break;
    }
  }
  TRAPEZE_ASSERT(false, "a bound outside the affine forms Interval accepts: " + to_string(e));
}

std::string cpp_checked_helper_definitions() {
  return "// Checked int64 arithmetic for the sizes at entry: an overflow clears ok (and gives\n"
         "// 0) instead of being undefined. Division as the DSL's: by 0 gives 0.\n"
         "inline int64_t tz_checked_add(int64_t a, int64_t b, bool& ok) {\n"
         "  int64_t r;\n"
         "  if (__builtin_add_overflow(a, b, &r)) ok = false, r = 0;\n"
         "  return r;\n"
         "}\n"
         "inline int64_t tz_checked_sub(int64_t a, int64_t b, bool& ok) {\n"
         "  int64_t r;\n"
         "  if (__builtin_sub_overflow(a, b, &r)) ok = false, r = 0;\n"
         "  return r;\n"
         "}\n"
         "inline int64_t tz_checked_mul(int64_t a, int64_t b, bool& ok) {\n"
         "  int64_t r;\n"
         "  if (__builtin_mul_overflow(a, b, &r)) ok = false, r = 0;\n"
         "  return r;\n"
         "}\n"
         "inline int64_t tz_checked_floordiv(int64_t a, int64_t b, bool& ok) {\n"
         "  if (b == 0) return 0;\n"
         "  if (b == -1) return tz_checked_sub(0, a, ok);\n"
         "  const int64_t q = a / b;\n"
         "  return q - ((a % b != 0) & ((a < 0) != (b < 0)));\n"
         "}\n"
         "inline int64_t tz_checked_floormod(int64_t a, int64_t b, bool&) {\n"
         "  if (b == 0 || b == -1) return 0;\n"
         "  const int64_t r = a % b;\n"
         "  return r + ((r != 0) & ((r < 0) != (b < 0)) ? b : 0);\n"
         "}\n"
         "inline int64_t tz_checked_min(int64_t a, int64_t b) { return b < a ? b : a; }\n"
         "inline int64_t tz_checked_max(int64_t a, int64_t b) { return a < b ? b : a; }\n\n";
}

std::string cpp_helper_definitions(const std::set<std::string>& used) {
  std::string out;
  for (const HelperText& h : kHelpers)
    if (used.count(h.name)) out += h.text;
  return out;
}

std::string c_string_literal(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string shape_text(const std::vector<Expr>& extents) {
  std::string s;
  for (const Expr& e : extents)
    s += "[" + lower::expr_text(e) + "]";
  return s;
}

std::string tuple_text(const std::vector<Expr>& es) {
  std::string s;
  for (std::size_t i = 0; i < es.size(); ++i)
    s += (i ? ", " : "") + lower::expr_text(es[i]);
  return "(" + s + ")";
}

const std::set<std::string>& cpp_reserved_names() {
  static const std::set<std::string> names = {
      // keywords
      "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
      "case", "catch", "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept",
      "const", "consteval", "constexpr", "constinit", "const_cast", "continue", "co_await",
      "co_return", "co_yield", "decltype", "default", "delete", "do", "double", "dynamic_cast",
      "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto",
      "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
      "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register",
      "reinterpret_cast", "requires", "return", "short", "signed", "sizeof", "static",
      "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local",
      "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using",
      "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq", "restrict",
      // types, macros and functions the generated code relies on
      "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
      "size_t", "NULL", "INFINITY", "NAN", "main", "std", "abs", "fabs", "fabsf", "sqrt", "sqrtf",
      "exp", "expf", "log", "logf", "floor", "floorf", "ceil", "ceilf", "sin", "sinf", "cos",
      "cosf", "pow", "powf", "free", "malloc", "aligned_alloc", "omp_get_max_threads",
      // the entry function's own names
      "params", "inputs", "outputs", "num_threads", "allocator", "trapeze_param",
      "trapeze_allocator", "trapeze_buffer", "trapeze_type"};
  return names;
}

} // namespace trapeze::codegen
