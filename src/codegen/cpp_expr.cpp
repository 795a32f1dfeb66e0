// The C++ expression printer: precedence-aware, typed, helper-tracking.
#include "codegen/cpp_expr.h"

#include "trapeze/ir_visitor.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

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

bool reads_memory(const Expr& e) {
  bool found = false;
  ir::for_each_node(e, [&](const Expr& x) { found = found || x.as<Access>() != nullptr; });
  return found;
}

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

const char* math_name(UnaryOp op) {
  TRAPEZE_ASSERT(op != UnaryOp::Neg && op != UnaryOp::Not, "not a math function");
  // The DSL's names are C's <math.h> names, except abs on floats.
  return op == UnaryOp::Abs ? "fabs" : unary_op_name(op);
}

class Printer {
public:
  explicit Printer(const CppExprContext& c) : ctx_(c) {}

  // `infix`: e is an operand of an infix arithmetic or comparison operator,
  // where C++ promotes narrow integers by itself and an int64 operand makes
  // a plain int literal int64; `sibling_constant`: the other operand is a literal.
  Text print(const Expr& e, bool infix = false, bool sibling_constant = false) {
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
      return {std::string(cpp_type_name(c->type)) + "(" + print(c->value).s + ")"};
    }
    if (const auto* u = e.as<Unary>()) return unary(*u);
    if (const auto* b = e.as<Binary>()) return binary(*b);
    if (const auto* s = e.as<Select>()) {
      // A select that tests only coordinates may guard a case's value, whose
      // accesses are in bounds only inside the case's box (lowering keeps a
      // case as such a select where it cannot split the loops at the box):
      // it stays a lazy ?:. Any other select evaluates both values (expr.h
      // allows it, and both are in bounds), through a function call, so the
      // loads are unconditional and the compiler can blend them into a
      // vector; a ?: with loads in its arms is control flow that keeps the
      // loop from vectorizing.
      if (!reads_memory(s->cond))
        return {wrap(print(s->cond), kTernary - 1) + " ? " + print(s->if_true).s + " : " +
                    wrap(print(s->if_false), kTernary),
                kTernary};
      return {helper("tz_select") + "<" + std::string(cpp_type_name(s->type)) + ">(" +
              print(s->cond).s + ", " + print(s->if_true).s + ", " + print(s->if_false).s + ")"};
    }
    if (const auto* a = e.as<Access>()) {
      std::vector<PrintedIndex> args;
      for (const Expr& arg : a->args)
        args.push_back({print(arg).s, arg.type()});
      return {ctx_.load(*a, args)};
    }
    TRAPEZE_ASSERT(false, "unknown expression kind");
  }

private:
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
    case UnaryOp::Neg: return {"-" + wrap(print(u.value), kUnary - 1), kUnary};
    case UnaryOp::Not: return {"!" + wrap(print(u.value), kUnary - 1), kUnary};
    case UnaryOp::Abs:
      if (is_integer(u.type)) return {call(helper("tz_abs"), u.value)};
      break;
    default: break;
    }
    const std::string fn =
        std::string(math_name(u.op)) + (u.type == ScalarType::Float32 ? "f" : "");
    return {call(fn, u.value)};
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
    case BinaryOp::Add: return infix(b, "+", kAdd);
    case BinaryOp::Sub: return infix(b, "-", kAdd);
    case BinaryOp::Mul: return infix(b, "*", kMul);
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
    case BinaryOp::TruncDiv:
      if (const auto* k = b.b.as<IntConst>(); k && k->value != 0) return infix(b, "/", kMul);
      return {call(helper("tz_truncdiv"), b.a, b.b)};
    case BinaryOp::TruncMod:
      if (const auto* k = b.b.as<IntConst>(); k && k->value != 0) return infix(b, "%", kMul);
      return {call(helper("tz_truncmod"), b.a, b.b)};
    case BinaryOp::Min: return {call(helper("tz_min"), b.a, b.b)};
    case BinaryOp::Max: return {call(helper("tz_max"), b.a, b.b)};
    case BinaryOp::Pow: return {call(b.type == ScalarType::Float32 ? "powf" : "pow", b.a, b.b)};
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

  const CppExprContext& ctx_;
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
    {"tz_abs", "template <typename T> inline T tz_abs(T a) { return a < 0 ? T(-a) : a; }\n"},
    {"tz_select",
     "// select(c, a, b) with a and b both evaluated (a blend, not a branch).\n"
     "template <typename T> inline T tz_select(bool c, T a, T b) { return c ? a : b; }\n"},
    {"tz_floordiv", "// Floor division (rounds toward minus infinity); x / 0 is 0.\n"
                    "template <typename T> inline T tz_floordiv(T a, T b) {\n"
                    "  const T d = b == 0 ? T(1) : b;\n"
                    "  const T q = a / d, r = a % d;\n"
                    "  return b == 0 ? T(0) : T(q - T((r != 0) & ((r < 0) != (d < 0))));\n"
                    "}\n"},
    {"tz_floormod",
     "// Floor modulo (the sign of the divisor); x % 0 is 0.\n"
     "template <typename T> inline T tz_floormod(T a, T b) {\n"
     "  const T d = b == 0 ? T(1) : b;\n"
     "  const T r = a % d;\n"
     "  return b == 0 ? T(0) : T(r + ((r != 0) & ((r < 0) != (d < 0)) ? d : T(0)));\n"
     "}\n"},
    {"tz_truncdiv", "// C's division; x / 0 is 0.\n"
                    "template <typename T> inline T tz_truncdiv(T a, T b) {\n"
                    "  return b == 0 ? T(0) : T(a / (b == 0 ? T(1) : b));\n"
                    "}\n"},
    {"tz_truncmod", "// C's remainder; x % 0 is 0.\n"
                    "template <typename T> inline T tz_truncmod(T a, T b) {\n"
                    "  return b == 0 ? T(0) : T(a % (b == 0 ? T(1) : b));\n"
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

std::string cpp_helper_definitions(const std::set<std::string>& used) {
  std::string out;
  for (const HelperText& h : kHelpers)
    if (used.count(h.name)) out += h.text;
  return out;
}

} // namespace trapeze::codegen
