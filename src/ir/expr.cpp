// Validating factories of the expression nodes. Every node is built here, so
// every tree satisfies the typing rules of type.h and expr.h.
#include "trapeze/expr.h"

#include "trapeze/function.h"
#include "trapeze/ir_visitor.h"

#include <cmath>
#include <limits>

namespace trapeze {

using namespace ir;

Expr::Expr(int value) : Expr(IntConst::make(ScalarType::Int32, value)) {}
Expr::Expr(std::int64_t value) : Expr(IntConst::make(ScalarType::Int64, value)) {}
Expr::Expr(float value) : Expr(FloatConst::make(ScalarType::Float32, value)) {}
Expr::Expr(double value) : Expr(FloatConst::make(ScalarType::Float32, value)) {}

ScalarType Expr::type() const {
  TRAPEZE_ASSERT(defined(), "type() of an undefined Expr");
  return node_->type;
}

namespace ir {

namespace {

// Converts a float constant to an integer type if the value is representable.
bool float_fits(ScalarType type, double v) {
  const double t = std::trunc(v);
  switch (type) {
  case ScalarType::Bool: return true;
  case ScalarType::UInt8: return t >= 0 && t <= 255;
  case ScalarType::UInt16: return t >= 0 && t <= 65535;
  case ScalarType::Int16: return t >= -32768 && t <= 32767;
  case ScalarType::Int32: return t >= -2147483648.0 && t <= 2147483647.0;
  default: return t >= -9.2e18 && t <= 9.2e18;
  }
}

std::string type_str(ScalarType t) { return std::string(type_name(t)); }

// A division or modulo, floored or truncating: what a divisor of 0 concerns.
bool is_division(BinaryOp op) {
  return op == BinaryOp::Div || op == BinaryOp::Mod || op == BinaryOp::TruncDiv ||
         op == BinaryOp::TruncMod;
}

} // namespace

Expr IntConst::make(ScalarType type, std::int64_t value) {
  TRAPEZE_ASSERT(is_integer(type), "IntConst of a float type");
  return Expr(std::make_shared<const IntConst>(type, wrap_integer(type, value)));
}

Expr FloatConst::make(ScalarType type, double value) {
  TRAPEZE_ASSERT(is_float(type), "FloatConst of an integer type");
  if (type == ScalarType::Float32) value = static_cast<float>(value);
  return Expr(std::make_shared<const FloatConst>(type, value));
}

Expr VarRef::make(const std::string& name) {
  if (name.empty()) throw Error("a variable needs a non-empty name");
  return Expr(std::make_shared<const VarRef>(name));
}

Expr ParamRef::make(const std::string& name, ScalarType type) {
  if (name.empty()) throw Error("a parameter needs a non-empty name");
  if (type != ScalarType::Int64 && type != ScalarType::Float32 && type != ScalarType::Float64)
    throw Error("parameter '" + name + "' has type " + type_str(type) +
                "; a parameter is int64, float32 or float64");
  return Expr(std::make_shared<const ParamRef>(name, type));
}

Expr Cast::make(ScalarType type, Expr value) {
  TRAPEZE_ASSERT(value.defined(), "cast of an undefined Expr");
  if (value.type() == type) return value;
  // Fold constants so that literals keep printing as literals.
  if (const auto* i = value.as<IntConst>()) {
    if (is_float(type)) return FloatConst::make(type, static_cast<double>(i->value));
    return IntConst::make(type, i->value);
  }
  if (const auto* f = value.as<FloatConst>()) {
    if (is_float(type)) return FloatConst::make(type, f->value);
    if (type == ScalarType::Bool) return IntConst::make(type, f->value != 0.0 ? 1 : 0);
    if (float_fits(type, f->value))
      return IntConst::make(type, static_cast<std::int64_t>(std::trunc(f->value)));
  }
  return Expr(std::make_shared<const Cast>(type, std::move(value)));
}

const char* unary_op_name(UnaryOp op) {
  switch (op) {
  case UnaryOp::Neg: return "neg";
  case UnaryOp::Not: return "not";
  case UnaryOp::Abs: return "abs";
  case UnaryOp::Sqrt: return "sqrt";
  case UnaryOp::Exp: return "exp";
  case UnaryOp::Log: return "log";
  case UnaryOp::Floor: return "floor";
  case UnaryOp::Ceil: return "ceil";
  case UnaryOp::Sin: return "sin";
  case UnaryOp::Cos: return "cos";
  }
  TRAPEZE_ASSERT(false, "unknown UnaryOp");
}

Expr Unary::make(UnaryOp op, Expr value) {
  TRAPEZE_ASSERT(value.defined(), "unary op on an undefined Expr");
  const ScalarType t = value.type();
  switch (op) {
  case UnaryOp::Not:
    if (t != ScalarType::Bool)
      throw Error("'!' needs a bool operand, but " + to_string(value) + " is " + type_str(t));
    return Expr(std::make_shared<const Unary>(op, t, std::move(value)));
  case UnaryOp::Neg:
  case UnaryOp::Abs: {
    const ScalarType p = promote(t);
    if (op == UnaryOp::Neg) {
      if (const auto* i = value.as<IntConst>()) return IntConst::make(p, -i->value);
      if (const auto* f = value.as<FloatConst>()) return FloatConst::make(p, -f->value);
    }
    return Expr(std::make_shared<const Unary>(op, p, Cast::make(p, std::move(value))));
  }
  default: {
    const ScalarType ft = is_float(t) ? t : ScalarType::Float32;
    return Expr(std::make_shared<const Unary>(op, ft, Cast::make(ft, std::move(value))));
  }
  }
}

const char* binary_op_name(BinaryOp op) {
  switch (op) {
  case BinaryOp::Add: return "+";
  case BinaryOp::Sub: return "-";
  case BinaryOp::Mul: return "*";
  case BinaryOp::Div: return "/";
  case BinaryOp::Mod: return "%";
  case BinaryOp::TruncDiv: return "trunc_div";
  case BinaryOp::TruncMod: return "trunc_mod";
  case BinaryOp::Min: return "min";
  case BinaryOp::Max: return "max";
  case BinaryOp::Pow: return "pow";
  case BinaryOp::EQ: return "==";
  case BinaryOp::NE: return "!=";
  case BinaryOp::LT: return "<";
  case BinaryOp::LE: return "<=";
  case BinaryOp::GT: return ">";
  case BinaryOp::GE: return ">=";
  case BinaryOp::And: return "&&";
  case BinaryOp::Or: return "||";
  }
  TRAPEZE_ASSERT(false, "unknown BinaryOp");
}

bool is_infix(BinaryOp op) {
  switch (op) {
  case BinaryOp::TruncDiv:
  case BinaryOp::TruncMod:
  case BinaryOp::Min:
  case BinaryOp::Max:
  case BinaryOp::Pow: return false;
  default: return true;
  }
}

bool is_comparison(BinaryOp op) {
  return op == BinaryOp::EQ || op == BinaryOp::NE || op == BinaryOp::LT || op == BinaryOp::LE ||
         op == BinaryOp::GT || op == BinaryOp::GE;
}

Expr Binary::make(BinaryOp op, Expr a, Expr b) {
  TRAPEZE_ASSERT(a.defined() && b.defined(), "binary op on an undefined Expr");
  const std::string spelled = std::string("'") + binary_op_name(op) + "'";
  if (op == BinaryOp::And || op == BinaryOp::Or) {
    if (a.type() != ScalarType::Bool || b.type() != ScalarType::Bool)
      throw Error(spelled + " needs bool operands, but got " + to_string(a) + " (" +
                  type_str(a.type()) + ") and " + to_string(b) + " (" + type_str(b.type()) + ")");
    return Expr(std::make_shared<const Binary>(op, ScalarType::Bool, std::move(a), std::move(b)));
  }
  ScalarType t = arithmetic_result(a.type(), b.type());
  if (op == BinaryOp::TruncDiv || op == BinaryOp::TruncMod) {
    if (is_float(t))
      throw Error(spelled + " needs integer operands, but got " + to_string(a) + " (" +
                  type_str(a.type()) + ") and " + to_string(b) + " (" + type_str(b.type()) + ")");
  }
  if (op == BinaryOp::Pow && !is_float(t)) t = ScalarType::Float32;
  if (const auto* c = b.as<IntConst>(); is_integer(t) && is_division(op) && c && c->value == 0)
    return IntConst::make(t, 0);
  Expr ca = Cast::make(t, std::move(a));
  Expr cb = Cast::make(t, std::move(b));
  const ScalarType result = is_comparison(op) ? ScalarType::Bool : t;
  return Expr(std::make_shared<const Binary>(op, result, std::move(ca), std::move(cb)));
}

Expr Binary::make_as_written(BinaryOp op, Expr a, Expr b) {
  TRAPEZE_ASSERT(a.defined() && b.defined(), "binary op with an undefined Expr");
  if (const auto* c = b.as<IntConst>();
      is_division(op) && c && c->value == 0 && is_integer(arithmetic_result(a.type(), b.type())))
    throw Error("division by a constant zero in " + to_string(a) + " " + binary_op_name(op) +
                " 0: an integer division or modulo needs a non-zero divisor");
  return make(op, std::move(a), std::move(b));
}

Expr Select::make(Expr cond, Expr if_true, Expr if_false) {
  TRAPEZE_ASSERT(cond.defined() && if_true.defined() && if_false.defined(),
                 "select with an undefined Expr");
  if (cond.type() != ScalarType::Bool)
    throw Error("the condition of select must be bool, but " + to_string(cond) + " is " +
                type_str(cond.type()));
  const ScalarType t = if_true.type() == if_false.type()
                           ? if_true.type()
                           : arithmetic_result(if_true.type(), if_false.type());
  return Expr(std::make_shared<const Select>(t, std::move(cond), Cast::make(t, std::move(if_true)),
                                             Cast::make(t, std::move(if_false))));
}

namespace {

std::vector<Expr> checked_indices(const std::string& producer, const std::string& description,
                                  int dimensions, const std::vector<std::string>& dim_names,
                                  std::vector<Expr> args) {
  const auto call_text = [&] {
    std::string s = producer + "(";
    for (std::size_t i = 0; i < args.size(); ++i)
      s += (i ? ", " : "") + to_string(args[i]);
    return s + ")";
  };
  if (static_cast<int>(args.size()) != dimensions) {
    std::string dims;
    for (std::size_t i = 0; i < dim_names.size(); ++i)
      dims += (i ? ", " : "") + dim_names[i];
    throw Error("wrong number of arguments: " + description + " has " + std::to_string(dimensions) +
                " dimension" + (dimensions == 1 ? "" : "s") +
                (dims.empty() ? "" : " (" + dims + ")") + " but is accessed as " + call_text() +
                " with " + std::to_string(args.size()));
  }
  for (std::size_t i = 0; i < args.size(); ++i) {
    TRAPEZE_ASSERT(args[i].defined(), "undefined index expression");
    const ScalarType t = args[i].type();
    if (is_float(t))
      throw Error("index " + std::to_string(i) + " of the access " + call_text() + " is " +
                  type_str(t) + "; an index must be an integer (cast it, e.g. cast<int>(...))");
    if (t != ScalarType::Int64) args[i] = Cast::make(ScalarType::Int32, args[i]);
  }
  return args;
}

} // namespace

Expr Access::make(FunctionPtr func, std::vector<Expr> args, SourceLocation where) {
  TRAPEZE_ASSERT(func != nullptr, "access of a null function");
  args = checked_indices(func->name(), "stage " + func->describe(), func->dimensions(),
                         func->vars(), std::move(args));
  const ScalarType t = func->type();
  return Expr(std::make_shared<const Access>(t, std::move(func), nullptr, std::move(args), where));
}

Expr Access::make(InputImagePtr image, std::vector<Expr> args, SourceLocation where) {
  TRAPEZE_ASSERT(image != nullptr, "access of a null image");
  args = checked_indices(image->name(), "input " + image->describe(), image->dimensions(), {},
                         std::move(args));
  const ScalarType t = image->type();
  return Expr(std::make_shared<const Access>(t, nullptr, std::move(image), std::move(args), where));
}

const std::string& Access::producer_name() const { return func ? func->name() : image->name(); }

} // namespace ir
} // namespace trapeze
