// Boundary conditions as stages defined by cases (trapeze/boundary.h).
#include "trapeze/boundary.h"

#include "ir/ir_operators.h"
#include "trapeze/error.h"

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

// lo - m and hi + m, folded for a constant margin.
Interval widened(const Interval& range, const Expr& m) {
  if (const auto* k = m.as<ir::IntConst>())
    return {ir::shifted_bound(range.lo, -k->value), ir::shifted_bound(range.hi, k->value)};
  return {range.lo - m, range.hi + m};
}

struct Source {
  std::string name;
  ScalarType type;
  std::vector<Interval> domain;
  std::function<Expr(std::vector<Expr>)> read;
};

// The definition of a boundary over `vars`: the source's box reads the
// source, the rest what the condition says. A dimension whose margin is the
// constant 0 gets no case; without margins (nullopt: they await inference)
// every dimension gets one.
ir::Definition boundary_definition(const Source& source, Condition c, const Expr& value,
                                   const std::vector<Var>& vars,
                                   const std::optional<std::vector<Expr>>& margins, bool inferred) {
  std::vector<Expr> direct, outside;
  Expr inside;
  for (std::size_t d = 0; d < vars.size(); ++d) {
    const Var& v = vars[d];
    const Interval& range = source.domain[d];
    const auto* m = margins ? (*margins)[d].as<ir::IntConst>() : nullptr;
    const bool untouched = m && m->value == 0;
    direct.push_back(v);
    outside.push_back(untouched || c == Condition::ConstantExterior
                          ? Expr(v)
                          : source_index(c, v, range.lo, range.hi));
    if (untouched) continue;
    const Expr here = v.in(range.lo, range.hi);
    inside = inside.defined() ? (inside && here) : here;
  }
  ir::Definition def;
  def.boundary = ir::BoundaryOrigin{
      condition_name(c), source.name, margins ? *margins : std::vector<Expr>(),
      c == Condition::ConstantExterior ? cast(source.type, value) : Expr(), inferred};
  if (!inside.defined()) { // no margin anywhere: the source itself
    def.otherwise = source.read(direct);
  } else {
    def.cases.push_back({inside, source.read(direct)});
    def.otherwise = c == Condition::ConstantExterior ? def.boundary->value : source.read(outside);
  }
  return def;
}

// Without margins (`given` is nullopt) the stage has the source's domain and
// a case in every dimension until the first pipeline that reads it infers
// them (ir/boundary_margins.h) and rebuilds its definition for them, so that
// a dimension left as it is gets no case there either.
Func with_boundary(const Source& source, Condition c, const Expr& value,
                   const std::optional<std::vector<Expr>>& given, const std::string& given_name,
                   SourceLocation made_at) {
  const std::string name = given_name.empty() ? source.name + "_" + condition_name(c) : given_name;
  const std::size_t dims = source.domain.size();
  if (given && given->size() != dims)
    throw Error("boundary::" + std::string(condition_name(c)) + " of '" + source.name +
                "': " + std::to_string(given->size()) + " margins for " + std::to_string(dims) +
                " dimensions; give one per dimension (0 leaves it as it is)");
  if (c == Condition::ConstantExterior && !value.defined())
    throw Error("boundary::constant_exterior of '" + source.name + "': no value given");
  std::vector<Var> vars;
  std::vector<Interval> domain;
  for (std::size_t d = 0; d < dims; ++d) {
    vars.emplace_back(name + "_" + std::to_string(d));
    domain.push_back(given ? widened(source.domain[d], (*given)[d]) : source.domain[d]);
  }
  Func f(name, source.type, vars, domain, made_at);
  const bool inferred = !given.has_value();
  f.contents()->define(boundary_definition(source, c, value, vars, given, inferred), made_at);
  if (inferred)
    f.contents()->await_margins([source, c, value, vars](const std::vector<Expr>& margins) {
      return boundary_definition(source, c, value, vars, margins, true);
    });
  return f;
}

Source of(const Image& image) {
  std::vector<Interval> domain;
  for (const Expr& e : image.contents()->extents())
    domain.emplace_back(Expr(0), ir::shifted_bound(e, -1));
  return {image.name(), image.type(), domain,
          [image](std::vector<Expr> at) { return image.access(std::move(at)); }};
}

Source of(const Func& stage) {
  if (stage.contents()->awaits_margins())
    throw Error("a boundary condition of stage " + stage.contents()->describe() +
                ", whose own margins are still to be inferred: give that stage's margins "
                "explicitly (a boundary's margins are inferred from stages that read it, and "
                "this one would read it before its domain is known)");
  return {stage.name(), stage.type(), stage.contents()->domain(),
          [stage](std::vector<Expr> at) { return stage.access(std::move(at)); }};
}

} // namespace

// Every condition goes through apply; the Halide-named functions below are
// apply with the default name.
Func apply(Condition c, const Image& s, Expr value, std::optional<std::vector<Expr>> m,
           const std::string& name, MadeAt made_at) {
  return with_boundary(of(s), c, value, m, name, made_at.where);
}
Func apply(Condition c, const Func& s, Expr value, std::optional<std::vector<Expr>> m,
           const std::string& name, MadeAt made_at) {
  return with_boundary(of(s), c, value, m, name, made_at.where);
}

Func repeat_edge(const Image& s, std::vector<Expr> m, MadeAt at) {
  return apply(Condition::RepeatEdge, s, {}, std::move(m), "", at);
}
Func repeat_edge(const Func& s, std::vector<Expr> m, MadeAt at) {
  return apply(Condition::RepeatEdge, s, {}, std::move(m), "", at);
}
Func repeat_edge(const Image& s, MadeAt at) {
  return apply(Condition::RepeatEdge, s, {}, std::nullopt, "", at);
}
Func repeat_edge(const Func& s, MadeAt at) {
  return apply(Condition::RepeatEdge, s, {}, std::nullopt, "", at);
}
Func repeat_image(const Image& s, std::vector<Expr> m, MadeAt at) {
  return apply(Condition::RepeatImage, s, {}, std::move(m), "", at);
}
Func repeat_image(const Func& s, std::vector<Expr> m, MadeAt at) {
  return apply(Condition::RepeatImage, s, {}, std::move(m), "", at);
}
Func repeat_image(const Image& s, MadeAt at) {
  return apply(Condition::RepeatImage, s, {}, std::nullopt, "", at);
}
Func repeat_image(const Func& s, MadeAt at) {
  return apply(Condition::RepeatImage, s, {}, std::nullopt, "", at);
}
Func mirror_image(const Image& s, std::vector<Expr> m, MadeAt at) {
  return apply(Condition::MirrorImage, s, {}, std::move(m), "", at);
}
Func mirror_image(const Func& s, std::vector<Expr> m, MadeAt at) {
  return apply(Condition::MirrorImage, s, {}, std::move(m), "", at);
}
Func mirror_image(const Image& s, MadeAt at) {
  return apply(Condition::MirrorImage, s, {}, std::nullopt, "", at);
}
Func mirror_image(const Func& s, MadeAt at) {
  return apply(Condition::MirrorImage, s, {}, std::nullopt, "", at);
}
Func mirror_interior(const Image& s, std::vector<Expr> m, MadeAt at) {
  return apply(Condition::MirrorInterior, s, {}, std::move(m), "", at);
}
Func mirror_interior(const Func& s, std::vector<Expr> m, MadeAt at) {
  return apply(Condition::MirrorInterior, s, {}, std::move(m), "", at);
}
Func mirror_interior(const Image& s, MadeAt at) {
  return apply(Condition::MirrorInterior, s, {}, std::nullopt, "", at);
}
Func mirror_interior(const Func& s, MadeAt at) {
  return apply(Condition::MirrorInterior, s, {}, std::nullopt, "", at);
}
Func constant_exterior(const Image& s, Expr value, std::vector<Expr> m, MadeAt at) {
  return apply(Condition::ConstantExterior, s, std::move(value), std::move(m), "", at);
}
Func constant_exterior(const Func& s, Expr value, std::vector<Expr> m, MadeAt at) {
  return apply(Condition::ConstantExterior, s, std::move(value), std::move(m), "", at);
}
Func constant_exterior(const Image& s, Expr value, MadeAt at) {
  return apply(Condition::ConstantExterior, s, std::move(value), std::nullopt, "", at);
}
Func constant_exterior(const Func& s, Expr value, MadeAt at) {
  return apply(Condition::ConstantExterior, s, std::move(value), std::nullopt, "", at);
}

} // namespace trapeze::boundary
