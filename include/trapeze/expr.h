// Expressions: the immutable, reference-counted nodes of trapeze's IR.
//
// Semantics (the interpreter and every code generator implement exactly this):
//  * Types and conversions: see type.h (C's usual arithmetic conversions).
//    Var is int32, Param is int64 (or float32/float64 if declared so), an integer literal is int32,
//    a C++ float or double literal is float32 (use f64() for a float64 constant).
//  * Integer arithmetic is two's complement. A signed overflow of +, -, * has
//    no defined result (as in C): trapeze does not promise which value appears.
//    Narrowing integer casts wrap modulo 2^bits (as C++20 defines).
//  * Integer `/` and `%` are floor division and floor modulo (x/2 rounds toward
//    minus infinity; x%2 has the sign of the divisor), which makes sampling
//    (x/2, 2*x+1) regular. trunc_div and trunc_mod are C's / and %. An integer
//    division or modulo by zero yields 0; a constant zero divisor is an error.
//  * Float `/` is IEEE division; float `%` is a - b*floor(a/b).
//    float32 arithmetic is done in float32. The C++ compiler may contract
//    a*b+c into a fused multiply-add, which is why float results are compared
//    with a tolerance.
//  * A float to integer cast truncates toward zero; a value outside the target
//    type's range has no defined result (as in C).
//  * Comparisons and logical operators yield bool; && and || do not
//    short-circuit (both sides are always in bounds, see below).
//  * select(c, a, b) may evaluate both a and b.
//  * An Access reads a stage or an input image at a point. An index that
//    reads memory (it contains an Access: a look-up by pixel value, say) is
//    data-dependent and is clamped into the producer's domain. Every other
//    index must lie inside the producer's domain wherever the access may be
//    evaluated (the box of its case, see analysis/case_region.h, or the whole
//    domain); the run-time check (check_arguments) proves this with interval
//    arithmetic for the bound parameters and reports a violation as an error
//    naming the consumer, the access, the region needed and the domain. So no
//    access is ever out of bounds.
#pragma once

#include "trapeze/error.h"
#include "trapeze/type.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace trapeze {

namespace ir {
class Function;
class InputImage;
struct ExprNode;
} // namespace ir

/// A handle to an immutable expression node. Cheap to copy.
class Expr {
public:
  Expr() = default;
  explicit Expr(std::shared_ptr<const ir::ExprNode> node) : node_(std::move(node)) {}
  /// An int is an int32 constant, an int64_t an int64 constant.
  Expr(int value);
  Expr(std::int64_t value);
  /// Float literals are float32, as in the benchmark specifications.
  Expr(float value);
  Expr(double value);

  bool defined() const { return node_ != nullptr; }
  const ir::ExprNode* get() const { return node_.get(); }
  const ir::ExprNode* operator->() const { return node_.get(); }
  const std::shared_ptr<const ir::ExprNode>& ptr() const { return node_; }
  ScalarType type() const;
  /// The node as kind T, or nullptr if it is another kind.
  template <typename T> const T* as() const;
  /// Structural identity of the node pointers (not structural equality).
  bool same_as(const Expr& other) const { return node_ == other.node_; }

private:
  std::shared_ptr<const ir::ExprNode> node_;
};

namespace ir {

using FunctionPtr = std::shared_ptr<Function>;
using InputImagePtr = std::shared_ptr<InputImage>;

// The one list of node kinds. The visitor, the mutator and the printer are
// generated from it, so adding a kind breaks the build wherever it is unhandled.
#define TRAPEZE_FOR_EACH_EXPR_NODE(X)                                                              \
  X(IntConst)                                                                                      \
  X(FloatConst)                                                                                    \
  X(VarRef)                                                                                        \
  X(ParamRef)                                                                                      \
  X(Cast)                                                                                          \
  X(Unary)                                                                                         \
  X(Binary)                                                                                        \
  X(Select)                                                                                        \
  X(Access)

enum class ExprKind : std::uint8_t {
#define TRAPEZE_ENUM_ENTRY(name) name,
  TRAPEZE_FOR_EACH_EXPR_NODE(TRAPEZE_ENUM_ENTRY)
#undef TRAPEZE_ENUM_ENTRY
};

struct ExprNode {
  ExprNode(ExprKind k, ScalarType t) : kind(k), type(t) {}
  virtual ~ExprNode() = default;
  ExprNode(const ExprNode&) = delete;
  ExprNode& operator=(const ExprNode&) = delete;
  const ExprKind kind;
  const ScalarType type;
};

/// An integer (or bool) constant. The value is stored sign-extended in int64.
struct IntConst final : ExprNode {
  static constexpr ExprKind node_kind = ExprKind::IntConst;
  static Expr make(ScalarType type, std::int64_t value);
  IntConst(ScalarType t, std::int64_t v) : ExprNode(node_kind, t), value(v) {}
  const std::int64_t value;
};

/// A float32 or float64 constant (a float32 constant holds a float32 value).
struct FloatConst final : ExprNode {
  static constexpr ExprKind node_kind = ExprKind::FloatConst;
  static Expr make(ScalarType type, double value);
  FloatConst(ScalarType t, double v) : ExprNode(node_kind, t), value(v) {}
  const double value;
};

/// A loop variable of a stage's domain or of a reduction domain (int32).
struct VarRef final : ExprNode {
  static constexpr ExprKind node_kind = ExprKind::VarRef;
  static Expr make(const std::string& name);
  explicit VarRef(std::string n) : ExprNode(node_kind, ScalarType::Int32), name(std::move(n)) {}
  const std::string name;
};

/// A named parameter, bound when the pipeline runs: int64 (sizes; the only
/// kind allowed in domains and extents), float32 or float64.
struct ParamRef final : ExprNode {
  static constexpr ExprKind node_kind = ExprKind::ParamRef;
  static Expr make(const std::string& name, ScalarType type = ScalarType::Int64);
  ParamRef(std::string n, ScalarType t) : ExprNode(node_kind, t), name(std::move(n)) {}
  const std::string name;
};

struct Cast final : ExprNode {
  static constexpr ExprKind node_kind = ExprKind::Cast;
  static Expr make(ScalarType type, Expr value);
  Cast(ScalarType t, Expr v) : ExprNode(node_kind, t), value(std::move(v)) {}
  const Expr value;
};

enum class UnaryOp : std::uint8_t { Neg, Not, Abs, Sqrt, Exp, Log, Floor, Ceil, Sin, Cos };
/// The DSL / text-form spelling: "neg", "not", "abs", "sqrt", ...
const char* unary_op_name(UnaryOp op);

struct Unary final : ExprNode {
  static constexpr ExprKind node_kind = ExprKind::Unary;
  /// Neg, Abs: type of the promoted operand; Not: bool; the others: float
  /// (an integer operand is converted to float32 first).
  static Expr make(UnaryOp op, Expr value);
  Unary(UnaryOp o, ScalarType t, Expr v) : ExprNode(node_kind, t), op(o), value(std::move(v)) {}
  const UnaryOp op;
  const Expr value;
};

enum class BinaryOp : std::uint8_t {
  Add,
  Sub,
  Mul,
  Div,      ///< floor division on integers, IEEE division on floats
  Mod,      ///< floor modulo on integers, a - b*floor(a/b) on floats
  TruncDiv, ///< C's integer division (integers only)
  TruncMod, ///< C's integer remainder (integers only)
  Min,
  Max,
  Pow, ///< floats only (integer operands are converted to float32)
  EQ,
  NE,
  LT,
  LE,
  GT,
  GE,
  And,
  Or,
};
/// The text-form spelling: "+", "-", "*", "/", "%", "trunc_div", "min", "==", "&&", ...
const char* binary_op_name(BinaryOp op);
/// True for ops printed infix (+ - * / % comparisons && ||).
bool is_infix(BinaryOp op);
bool is_comparison(BinaryOp op);

struct Binary final : ExprNode {
  static constexpr ExprKind node_kind = ExprKind::Binary;
  /// Applies the usual conversions to the operands (inserting Casts) and
  /// checks operand types; throws trapeze::Error on a type error. An integer
  /// division or modulo by the constant 0 is the constant 0, its defined
  /// result (docs/dsl.md): rewriting can make a divisor 0 that was not
  /// written so (a stage that is 0 everywhere, inlined).
  static Expr make(BinaryOp op, Expr a, Expr b);
  /// make, for an expression as a user writes it (the DSL's operators, the
  /// text form): a written integer division by the constant 0 is an error.
  static Expr make_as_written(BinaryOp op, Expr a, Expr b);
  Binary(BinaryOp o, ScalarType t, Expr x, Expr y)
      : ExprNode(node_kind, t), op(o), a(std::move(x)), b(std::move(y)) {}
  const BinaryOp op;
  const Expr a, b; ///< both already of the same (promoted) type
};

struct Select final : ExprNode {
  static constexpr ExprKind node_kind = ExprKind::Select;
  /// cond must be bool; the branches are converted to their common type.
  static Expr make(Expr cond, Expr if_true, Expr if_false);
  Select(ScalarType t, Expr c, Expr x, Expr y)
      : ExprNode(node_kind, t), cond(std::move(c)), if_true(std::move(x)), if_false(std::move(y)) {}
  const Expr cond, if_true, if_false;
};

/// A read of a stage (Function) or an input image at a point.
struct Access final : ExprNode {
  static constexpr ExprKind node_kind = ExprKind::Access;
  static Expr make(FunctionPtr func, std::vector<Expr> args, SourceLocation where = {});
  static Expr make(InputImagePtr image, std::vector<Expr> args, SourceLocation where = {});
  Access(ScalarType t, FunctionPtr f, InputImagePtr i, std::vector<Expr> a, SourceLocation w)
      : ExprNode(node_kind, t), func(std::move(f)), image(std::move(i)), args(std::move(a)),
        where(w) {}
  /// Exactly one of func and image is set.
  const FunctionPtr func;
  const InputImagePtr image;
  const std::vector<Expr> args; ///< each converted to int32 or int64
  const SourceLocation where;   ///< where the access was written, if known
  /// The producer's name.
  const std::string& producer_name() const;
};

} // namespace ir

template <typename T> const T* Expr::as() const {
  if (node_ && node_->kind == T::node_kind) return static_cast<const T*>(node_.get());
  return nullptr;
}

} // namespace trapeze
