// Boundary conditions as stages defined by cases (trapeze/boundary.h).
#include "trapeze/boundary.h"

#include "trapeze/error.h"

#include <climits>
#include <functional>
#include <string>

namespace trapeze::boundary {

const char* condition_name(Condition c) {
  switch (c) {
  case Condition::RepeatEdge: return "repeat_edge";
  case Condition::RepeatImage: return "repeat_image";
  case Condition::MirrorImage: return "mirror_image";
  case Condition::MirrorInterior: return "mirror_interior";
  case Condition::ConstantExterior: return "constant_exterior";
  }
  TRAPEZE_ASSERT(false, "unknown boundary condition");
}

std::optional<Condition> condition_named(const std::string& name) {
  for (Condition c : {Condition::RepeatEdge, Condition::RepeatImage, Condition::MirrorImage,
                      Condition::MirrorInterior, Condition::ConstantExterior})
    if (name == condition_name(c)) return c;
  return std::nullopt;
}

namespace {

// The source's index for coordinate v of a dimension whose domain is
// [lo, hi]. The wrapped and mirrored indices are clamped once more: they are
// in [lo, hi] already, and the clamp lets the access check prove it.
Expr source_index(Condition c, const Expr& v, const Expr& lo, const Expr& hi) {
  const Expr extent = hi - lo + 1;
  switch (c) {
  case Condition::RepeatEdge: return clamp(v, lo, hi);
  case Condition::RepeatImage: return clamp(lo + (v - lo) % extent, lo, hi);
  case Condition::MirrorImage: {
    // Period 2 * extent: lo .. hi, then hi .. lo.
    const Expr t = (v - lo) % (2 * extent);
    return clamp(lo + select(t < extent, t, 2 * extent - 1 - t), lo, hi);
  }
  case Condition::MirrorInterior: {
    // Period 2 * extent - 2: lo .. hi, then hi - 1 .. lo + 1 (x % 0 is 0:
    // a one-point dimension reads its point).
    const Expr t = (v - lo) % (2 * extent - 2);
    return clamp(lo + select(t < extent, t, 2 * extent - 2 - t), lo, hi);
  }
  case Condition::ConstantExterior: break;
  }
  TRAPEZE_ASSERT(false, "no index for this condition");
}

// An integer literal as the DSL writes one: int32 where it fits.
Expr literal(std::int64_t v) {
  return v >= INT32_MIN && v <= INT32_MAX ? Expr(static_cast<int>(v)) : Expr(v);
}

// e + k, folded where e is a constant or ends in one (R - 1 + 1 is R), so
// that the domains read as the user would write them.
Expr shifted(const Expr& e, std::int64_t k) {
  if (k == 0) return e;
  if (const auto* c = e.as<ir::IntConst>()) return literal(c->value + k);
  if (const auto* b = e.as<ir::Binary>()) {
    const auto* c = b->b.as<ir::IntConst>();
    if (c && (b->op == ir::BinaryOp::Add || b->op == ir::BinaryOp::Sub)) {
      const std::int64_t rest = (b->op == ir::BinaryOp::Add ? c->value : -c->value) + k;
      return rest == 0 ? b->a : rest > 0 ? b->a + literal(rest) : b->a - literal(-rest);
    }
  }
  return k > 0 ? e + literal(k) : e - literal(-k);
}

// lo - m and hi + m, folded for a constant margin.
Interval widened(const Interval& range, const Expr& m) {
  if (const auto* k = m.as<ir::IntConst>())
    return {shifted(range.lo, -k->value), shifted(range.hi, k->value)};
  return {range.lo - m, range.hi + m};
}

struct Source {
  std::string name;
  ScalarType type;
  std::vector<Interval> domain;
  std::function<Expr(std::vector<Expr>)> read;
};

Func with_boundary(const Source& source, Condition c, const Expr& value, std::vector<Expr> margins,
                   const std::string& given_name) {
  const std::string name = given_name.empty() ? source.name + "_" + condition_name(c) : given_name;
  const std::size_t dims = source.domain.size();
  if (margins.size() != dims)
    throw Error("boundary::" + std::string(condition_name(c)) + " of '" + source.name +
                "': " + std::to_string(margins.size()) + " margins for " + std::to_string(dims) +
                " dimensions; give one per dimension (0 leaves it as it is)");
  if (c == Condition::ConstantExterior && !value.defined())
    throw Error("boundary::constant_exterior of '" + source.name + "': no value given");
  std::vector<Var> vars;
  std::vector<Interval> domain;
  std::vector<Expr> direct, outside;
  Expr inside;
  for (std::size_t d = 0; d < dims; ++d) {
    const Var v(name + "_" + std::to_string(d));
    const Interval& range = source.domain[d];
    const Expr& m = margins[d];
    vars.push_back(v);
    domain.push_back(widened(range, m));
    direct.push_back(v);
    const bool untouched = m.as<ir::IntConst>() && m.as<ir::IntConst>()->value == 0;
    outside.push_back(untouched || c == Condition::ConstantExterior
                          ? Expr(v)
                          : source_index(c, v, range.lo, range.hi));
    if (untouched) continue;
    const Expr here = v.in(range.lo, range.hi);
    inside = inside.defined() ? (inside && here) : here;
  }
  Func f(name, source.type, vars, domain);
  ir::Definition def;
  def.boundary =
      ir::BoundaryOrigin{condition_name(c), source.name, margins,
                         c == Condition::ConstantExterior ? cast(source.type, value) : Expr()};
  if (!inside.defined()) { // no margin anywhere: the source itself
    def.otherwise = source.read(direct);
  } else {
    def.cases.push_back({inside, source.read(direct)});
    def.otherwise = c == Condition::ConstantExterior ? def.boundary->value : source.read(outside);
  }
  f.contents()->define(std::move(def), SourceLocation::current());
  return f;
}

Source of(const Image& image) {
  std::vector<Interval> domain;
  for (const Expr& e : image.contents()->extents())
    domain.emplace_back(Expr(0), shifted(e, -1));
  return {image.name(), image.type(), domain,
          [image](std::vector<Expr> at) { return image.access(std::move(at)); }};
}

Source of(const Func& stage) {
  return {stage.name(), stage.type(), stage.contents()->domain(),
          [stage](std::vector<Expr> at) { return stage.access(std::move(at)); }};
}

} // namespace

// Every condition goes through apply; the Halide-named functions below are
// apply with the default name.
Func apply(Condition c, const Image& s, Expr value, std::vector<Expr> m, const std::string& name) {
  return with_boundary(of(s), c, value, std::move(m), name);
}
Func apply(Condition c, const Func& s, Expr value, std::vector<Expr> m, const std::string& name) {
  return with_boundary(of(s), c, value, std::move(m), name);
}

Func repeat_edge(const Image& s, std::vector<Expr> m) {
  return apply(Condition::RepeatEdge, s, {}, std::move(m));
}
Func repeat_edge(const Func& s, std::vector<Expr> m) {
  return apply(Condition::RepeatEdge, s, {}, std::move(m));
}
Func repeat_image(const Image& s, std::vector<Expr> m) {
  return apply(Condition::RepeatImage, s, {}, std::move(m));
}
Func repeat_image(const Func& s, std::vector<Expr> m) {
  return apply(Condition::RepeatImage, s, {}, std::move(m));
}
Func mirror_image(const Image& s, std::vector<Expr> m) {
  return apply(Condition::MirrorImage, s, {}, std::move(m));
}
Func mirror_image(const Func& s, std::vector<Expr> m) {
  return apply(Condition::MirrorImage, s, {}, std::move(m));
}
Func mirror_interior(const Image& s, std::vector<Expr> m) {
  return apply(Condition::MirrorInterior, s, {}, std::move(m));
}
Func mirror_interior(const Func& s, std::vector<Expr> m) {
  return apply(Condition::MirrorInterior, s, {}, std::move(m));
}
Func constant_exterior(const Image& s, Expr value, std::vector<Expr> m) {
  return apply(Condition::ConstantExterior, s, std::move(value), std::move(m));
}
Func constant_exterior(const Func& s, Expr value, std::vector<Expr> m) {
  return apply(Condition::ConstantExterior, s, std::move(value), std::move(m));
}

} // namespace trapeze::boundary
