// The DSL front end: thin, checked wrappers that build IR nodes.
#include "trapeze/dsl.h"
#include "trapeze/pipeline.h"

namespace trapeze {

using namespace ir;

Var::Var(std::string name) : name_(std::move(name)), expr_(VarRef::make(name_)) {}
Expr Var::in(const Interval& range) const { return in(range.lo, range.hi); }
Expr Var::in(Expr lo, Expr hi) const { return expr_ >= std::move(lo) && expr_ <= std::move(hi); }

RVar::RVar(std::string name, Interval range)
    : name_(std::move(name)), range_(std::move(range)), expr_(VarRef::make(name_)) {}

Param::Param(std::string name, ScalarType type)
    : name_(std::move(name)), expr_(ParamRef::make(name_, type)) {}

Image::Image(std::string name, ScalarType type, std::vector<Expr> extents, SourceLocation where)
    : contents_(std::make_shared<InputImage>(std::move(name), type, std::move(extents), where)) {}
Image::Image(ir::InputImagePtr contents) : contents_(std::move(contents)) {
  TRAPEZE_ASSERT(contents_ != nullptr, "an Image wrapping no input");
}
const std::string& Image::name() const { return contents_->name(); }
ScalarType Image::type() const { return contents_->type(); }
int Image::dimensions() const { return contents_->dimensions(); }
Expr Image::access(std::vector<Expr> args, SourceLocation where) const {
  return Access::make(contents_, std::move(args), where);
}

Update sum_into(std::vector<Expr> target, Expr value) {
  return Update{ReduceOp::Sum, std::move(target), std::move(value)};
}
Update min_into(std::vector<Expr> target, Expr value) {
  return Update{ReduceOp::Min, std::move(target), std::move(value)};
}
Update max_into(std::vector<Expr> target, Expr value) {
  return Update{ReduceOp::Max, std::move(target), std::move(value)};
}

namespace {
std::vector<std::string> names_of(const std::vector<Var>& vars) {
  std::vector<std::string> names;
  for (const Var& v : vars)
    names.push_back(v.name());
  return names;
}
} // namespace

Func::Func(std::string name, ScalarType type, std::vector<Var> vars, std::vector<Interval> domain,
           SourceLocation where)
    : contents_(std::make_shared<Function>(std::move(name), type, names_of(vars), std::move(domain),
                                           where)) {}
Func::Func(FunctionPtr contents) : contents_(std::move(contents)) {
  TRAPEZE_ASSERT(contents_ != nullptr, "Func from null contents");
}
const std::string& Func::name() const { return contents_->name(); }
ScalarType Func::type() const { return contents_->type(); }
int Func::dimensions() const { return contents_->dimensions(); }

void Func::define(Expr value, SourceLocation where) {
  Definition d;
  d.otherwise = std::move(value);
  contents_->define(std::move(d), where);
}

void Func::define(std::vector<trapeze::Case> cases, Expr otherwise, SourceLocation where) {
  Definition d;
  for (trapeze::Case& c : cases)
    d.cases.push_back(ir::Case{std::move(c.condition), std::move(c.value)});
  d.otherwise = std::move(otherwise);
  contents_->define(std::move(d), where);
}

void Func::define_reduction(Expr init, std::vector<RVar> rdom, std::vector<Update> updates,
                            SourceLocation where) {
  Definition d;
  Reduction r;
  for (const RVar& v : rdom) {
    r.rvars.push_back(v.name());
    r.rdom.push_back(v.range());
  }
  r.init = std::move(init);
  for (Update& u : updates)
    r.updates.push_back(ReductionUpdate{std::move(u.target), u.op, std::move(u.value)});
  d.reduction = std::move(r);
  contents_->define(std::move(d), where);
}

Expr Func::access(std::vector<Expr> args, SourceLocation where) const {
  return Access::make(contents_, std::move(args), where);
}

Expr operator+(Expr a, Expr b) { return Binary::make(BinaryOp::Add, std::move(a), std::move(b)); }
Expr operator-(Expr a, Expr b) { return Binary::make(BinaryOp::Sub, std::move(a), std::move(b)); }
Expr operator*(Expr a, Expr b) { return Binary::make(BinaryOp::Mul, std::move(a), std::move(b)); }
Expr operator/(Expr a, Expr b) {
  return Binary::make_as_written(BinaryOp::Div, std::move(a), std::move(b));
}
Expr operator%(Expr a, Expr b) {
  return Binary::make_as_written(BinaryOp::Mod, std::move(a), std::move(b));
}
Expr operator-(Expr a) { return Unary::make(UnaryOp::Neg, std::move(a)); }
Expr operator==(Expr a, Expr b) { return Binary::make(BinaryOp::EQ, std::move(a), std::move(b)); }
Expr operator!=(Expr a, Expr b) { return Binary::make(BinaryOp::NE, std::move(a), std::move(b)); }
Expr operator<(Expr a, Expr b) { return Binary::make(BinaryOp::LT, std::move(a), std::move(b)); }
Expr operator<=(Expr a, Expr b) { return Binary::make(BinaryOp::LE, std::move(a), std::move(b)); }
Expr operator>(Expr a, Expr b) { return Binary::make(BinaryOp::GT, std::move(a), std::move(b)); }
Expr operator>=(Expr a, Expr b) { return Binary::make(BinaryOp::GE, std::move(a), std::move(b)); }
Expr operator&&(Expr a, Expr b) { return Binary::make(BinaryOp::And, std::move(a), std::move(b)); }
Expr operator||(Expr a, Expr b) { return Binary::make(BinaryOp::Or, std::move(a), std::move(b)); }
Expr operator!(Expr a) { return Unary::make(UnaryOp::Not, std::move(a)); }

Expr trunc_div(Expr a, Expr b) {
  return Binary::make_as_written(BinaryOp::TruncDiv, std::move(a), std::move(b));
}
Expr trunc_mod(Expr a, Expr b) {
  return Binary::make_as_written(BinaryOp::TruncMod, std::move(a), std::move(b));
}

Expr select(Expr cond, Expr if_true, Expr if_false) {
  return Select::make(std::move(cond), std::move(if_true), std::move(if_false));
}
Expr cast(ScalarType type, Expr value) { return Cast::make(type, std::move(value)); }
Expr f64(double value) { return FloatConst::make(ScalarType::Float64, value); }
Expr constant(ScalarType type, double value) {
  if (is_float(type)) return FloatConst::make(type, value);
  return IntConst::make(type, static_cast<std::int64_t>(value));
}

Expr abs(Expr a) { return Unary::make(UnaryOp::Abs, std::move(a)); }
Expr min(Expr a, Expr b) { return Binary::make(BinaryOp::Min, std::move(a), std::move(b)); }
Expr max(Expr a, Expr b) { return Binary::make(BinaryOp::Max, std::move(a), std::move(b)); }
Expr clamp(Expr value, Expr lo, Expr hi) {
  return min(max(std::move(value), std::move(lo)), std::move(hi));
}
Expr sqrt(Expr a) { return Unary::make(UnaryOp::Sqrt, std::move(a)); }
Expr exp(Expr a) { return Unary::make(UnaryOp::Exp, std::move(a)); }
Expr log(Expr a) { return Unary::make(UnaryOp::Log, std::move(a)); }
Expr pow(Expr a, Expr b) { return Binary::make(BinaryOp::Pow, std::move(a), std::move(b)); }
Expr floor(Expr a) { return Unary::make(UnaryOp::Floor, std::move(a)); }
Expr ceil(Expr a) { return Unary::make(UnaryOp::Ceil, std::move(a)); }
Expr sin(Expr a) { return Unary::make(UnaryOp::Sin, std::move(a)); }
Expr cos(Expr a) { return Unary::make(UnaryOp::Cos, std::move(a)); }

// The DSL's way into a Pipeline (the IR layer knows only FunctionPtr).
Pipeline::Pipeline(const std::vector<Func>& outputs, std::string name)
    : Pipeline(
          [&] {
            std::vector<ir::FunctionPtr> fs;
            for (const Func& f : outputs)
              fs.push_back(f.contents());
            return fs;
          }(),
          std::move(name)) {}

} // namespace trapeze
