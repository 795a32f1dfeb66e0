// The embedded DSL: how a user writes a pipeline.
//
//   Param R("R"), C("C");
//   Var x("x"), y("y");
//   Image img("img", ScalarType::Float32, {R + 2, C + 2});
//   Func blurx("blurx", ScalarType::Float32, {x, y}, {{1, R}, {0, C + 1}});
//   blurx.define((img(x - 1, y) + img(x, y) + img(x + 1, y)) / 3.0f);
//   Func blury("blury", ScalarType::Float32, {x, y}, {{1, R}, {1, C}});
//   blury.define((blurx(x, y - 1) + blurx(x, y) + blurx(x, y + 1)) / 3.0f);
//   Pipeline p({blury});
//
// The semantics of expressions are stated in expr.h, those of domains and
// definitions in function.h; docs/dsl.md is the reference with examples.
#pragma once

#include "trapeze/expr.h"
#include "trapeze/function.h"

#include <initializer_list>
#include <string>
#include <vector>

namespace trapeze {

/// A variable of a stage's domain (int32 in expressions).
class Var {
public:
  explicit Var(std::string name);
  const std::string& name() const { return name_; }
  operator Expr() const { return expr_; }
  Expr expr() const { return expr_; }
  /// lo <= var && var <= hi: the usual case condition.
  Expr in(const Interval& range) const;
  Expr in(Expr lo, Expr hi) const;

private:
  std::string name_;
  Expr expr_;
};

/// A variable of a reduction domain, with its inclusive range.
class RVar {
public:
  RVar(std::string name, Interval range);
  const std::string& name() const { return name_; }
  const Interval& range() const { return range_; }
  operator Expr() const { return expr_; }

private:
  std::string name_;
  Interval range_;
  Expr expr_;
};

/// A named parameter bound at run time: a 64-bit integer by default (sizes),
/// or float32/float64 (thresholds, weights). Two Params with the same name are
/// the same parameter.
class Param {
public:
  explicit Param(std::string name, ScalarType type = ScalarType::Int64);
  const std::string& name() const { return name_; }
  ScalarType type() const { return expr_.type(); }
  operator Expr() const { return expr_; }

private:
  std::string name_;
  Expr expr_;
};

/// An input image: name, element type and extents (outermost first; the last
/// dimension is contiguous). Reading it outside [0, extent-1] is an error.
class Image {
public:
  Image(std::string name, ScalarType type, std::vector<Expr> extents,
        SourceLocation where = SourceLocation::current());
  /// Wraps existing contents (used by the text-form parser).
  explicit Image(ir::InputImagePtr contents);
  const std::string& name() const;
  ScalarType type() const;
  int dimensions() const;
  const ir::InputImagePtr& contents() const { return contents_; }

  template <typename... Args> Expr operator()(Args&&... args) const {
    return access({Expr(std::forward<Args>(args))...});
  }
  Expr access(std::vector<Expr> args, SourceLocation where = {}) const;

private:
  ir::InputImagePtr contents_;
};

/// One case of a stage's definition.
struct Case {
  Case(Expr condition_, Expr value_) : condition(std::move(condition_)), value(std::move(value_)) {}
  Expr condition;
  Expr value;
};

/// One update of a reduction: stage(target) = op(stage(target), value).
struct Update {
  ir::ReduceOp op;
  std::vector<Expr> target;
  Expr value;
};
Update sum_into(std::vector<Expr> target, Expr value);
Update min_into(std::vector<Expr> target, Expr value);
Update max_into(std::vector<Expr> target, Expr value);

/// A stage. Declared with its name, element type, variables and domain;
/// defined exactly once with define() or define_reduction().
class Func {
public:
  Func(std::string name, ScalarType type, std::vector<Var> vars, std::vector<Interval> domain,
       SourceLocation where = SourceLocation::current());
  /// Wraps existing contents (used by the text-form parser and by Pipeline).
  explicit Func(ir::FunctionPtr contents);

  const std::string& name() const;
  ScalarType type() const;
  int dimensions() const;
  const ir::FunctionPtr& contents() const { return contents_; }

  /// A pure definition: one expression over the whole domain.
  void define(Expr value, SourceLocation where = SourceLocation::current());
  /// Cases tried in order; points covered by none take `otherwise`.
  void define(std::vector<Case> cases, Expr otherwise,
              SourceLocation where = SourceLocation::current());
  /// A reduction (see function.h for the order of evaluation).
  void define_reduction(Expr init, std::vector<RVar> rdom, std::vector<Update> updates,
                        SourceLocation where = SourceLocation::current());

  /// A read of this stage at a point.
  template <typename... Args> Expr operator()(Args&&... args) const {
    return access({Expr(std::forward<Args>(args))...});
  }
  Expr access(std::vector<Expr> args, SourceLocation where = {}) const;

private:
  ir::FunctionPtr contents_;
};

// Arithmetic (C's usual conversions; integer / and % are floor division).
Expr operator+(Expr a, Expr b);
Expr operator-(Expr a, Expr b);
Expr operator*(Expr a, Expr b);
Expr operator/(Expr a, Expr b);
Expr operator%(Expr a, Expr b);
Expr operator-(Expr a);
// Comparisons and logic (bool results; && and || evaluate both sides).
Expr operator==(Expr a, Expr b);
Expr operator!=(Expr a, Expr b);
Expr operator<(Expr a, Expr b);
Expr operator<=(Expr a, Expr b);
Expr operator>(Expr a, Expr b);
Expr operator>=(Expr a, Expr b);
Expr operator&&(Expr a, Expr b);
Expr operator||(Expr a, Expr b);
Expr operator!(Expr a);

/// C's integer division and remainder (truncating toward zero).
Expr trunc_div(Expr a, Expr b);
Expr trunc_mod(Expr a, Expr b);

Expr select(Expr cond, Expr if_true, Expr if_false);
Expr cast(ScalarType type, Expr value);
template <typename T> Expr cast(Expr value) { return cast(type_of<T>, std::move(value)); }
/// A float64 constant (a plain C++ double literal is float32).
Expr f64(double value);
/// A constant of the given type.
Expr constant(ScalarType type, double value);

Expr abs(Expr a);
Expr min(Expr a, Expr b);
Expr max(Expr a, Expr b);
Expr clamp(Expr value, Expr lo, Expr hi);
Expr sqrt(Expr a);
Expr exp(Expr a);
Expr log(Expr a);
Expr pow(Expr a, Expr b);
Expr floor(Expr a);
Expr ceil(Expr a);
Expr sin(Expr a);
Expr cos(Expr a);

} // namespace trapeze
