// The analysis layer: affine forms, dependence vectors, classification,
// alignment and scaling, and `trapeze explain`.
#include "analysis/affine.h"
#include "analysis/alignment.h"
#include "analysis/classify.h"
#include "analysis/dependence.h"
#include "app.h"
#include "trapeze/boundary.h"
#include "trapeze/dsl.h"
#include "trapeze/explain.h"
#include "trapeze/ir_visitor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <map>

namespace trapeze {
namespace {

using namespace analysis;
using testing::HasSubstr;

// ---- affine forms -------------------------------------------------------------------------------

// Evaluates the integer subset of expressions that affine_index accepts (floor division).
std::int64_t eval(const Expr& e, const std::map<std::string, std::int64_t>& env) {
  using namespace ir;
  if (const auto* k = e.as<IntConst>()) return k->value;
  if (const auto* v = e.as<VarRef>()) return env.at(v->name);
  if (const auto* p = e.as<ParamRef>()) return env.at(p->name);
  if (const auto* c = e.as<Cast>()) return eval(c->value, env);
  if (const auto* u = e.as<Unary>()) return -eval(u->value, env);
  const auto* b = e.as<Binary>();
  const std::int64_t x = eval(b->a, env), y = eval(b->b, env);
  switch (b->op) {
  case BinaryOp::Add: return x + y;
  case BinaryOp::Sub: return x - y;
  case BinaryOp::Mul: return x * y;
  case BinaryOp::Div: return Rational(x, y).floor();
  default: ADD_FAILURE() << "unexpected op"; return 0;
  }
}

std::int64_t eval(const AffineIndex& f, const std::map<std::string, std::int64_t>& env) {
  std::int64_t n = f.constant;
  for (const auto& [v, a] : f.vars)
    n += a * env.at(v);
  for (const auto& [p, b] : f.params)
    n += b * env.at(p);
  return Rational(n, f.divisor).floor();
}

TEST(Affine, RecognisesSamplingForms) {
  Var x("x"), y("y");
  Param R("R");
  std::optional<AffineIndex> f = affine_index(x / 2 + 1);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->str(), "x/2 + 1");
  EXPECT_EQ(f->divisor, 2);
  EXPECT_EQ(f->constant, 2);
  EXPECT_EQ(f->scale("x"), Rational(1, 2));
  EXPECT_EQ(f->offset(), Rational(1));

  f = affine_index(2 * x + 1);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->str(), "2*x + 1");
  EXPECT_EQ(f->scale("x"), Rational(2));

  f = affine_index((x + 1) / 2);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->str(), "(x + 1)/2");
  EXPECT_EQ(f->offset(), Rational(1, 2));

  f = affine_index((x / 2) / 3); // nested floors compose
  ASSERT_TRUE(f);
  EXPECT_EQ(f->str(), "x/6");

  f = affine_index((4 * x + 2) / 2); // exact division is reduced
  ASSERT_TRUE(f);
  EXPECT_EQ(f->str(), "2*x + 1");
  EXPECT_EQ(f->divisor, 1);

  f = affine_index(x - 1 + R); // int32 x widened to int64
  ASSERT_TRUE(f);
  EXPECT_EQ(f->str(), "x + R - 1");
  EXPECT_FALSE(f->parameter_free());

  f = affine_index(cast<std::int32_t>(cast<std::int64_t>(y) * 3) - x);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->str(), "-x + 3*y");
  EXPECT_EQ(f->vars.size(), 2u);

  f = affine_index(Expr(7) / 2 + 1);
  ASSERT_TRUE(f);
  EXPECT_TRUE(f->is_constant());
  EXPECT_EQ(f->constant, 4);
}

TEST(Affine, RejectsNonAffineAndDataDependent) {
  Var x("x"), y("y");
  Image img("img", ScalarType::Int32, {16});
  EXPECT_FALSE(affine_index(x * y));
  EXPECT_FALSE(affine_index(x % 2));
  EXPECT_FALSE(affine_index(min(x, 3)));
  EXPECT_FALSE(affine_index(select(x > 0, x, 0)));
  EXPECT_FALSE(affine_index(x / 2 + y / 2)); // two floors do not combine
  EXPECT_FALSE(affine_index(2 * (x / 2)));   // k*floor(e/d) is not a floor form
  EXPECT_FALSE(affine_index(x / y));
  EXPECT_FALSE(affine_index(cast<std::uint8_t>(x)));
  EXPECT_FALSE(affine_index(img(x)));

  EXPECT_EQ(classify_index(x / 2 - 1), AccessKind::Affine);
  EXPECT_EQ(classify_index(img(x) + 1), AccessKind::DataDependent);
  EXPECT_EQ(classify_index(x % 2), AccessKind::NonAffine);
  EXPECT_STREQ(access_kind_name(AccessKind::DataDependent), "data-dependent");
}

// Every accepted form must agree with floor-division semantics point by point.
TEST(Affine, FormsAgreeWithFloorSemantics) {
  Var x("x"), y("y");
  Param R("R");
  const std::vector<Expr> cases = {
      x / 2 + 1,    (x + 1) / 2,          x / 2 - 3,       -(x / 2),        (x / 2) / 3,
      x / -2,       (x - 1) / -3,         1 - x / 4,       x / 3 + y,       y - (x + 5) / 3,
      -(x - y) / 2, (2 * x - 1) / 4,      (x / 2 + R) / 2, -(-(x / 3) / 2), (x * 3 + 1) / 6 - 2,
      x / 1,        ((x + 1) / 2 + 1) / 2};
  for (const Expr& e : cases) {
    std::optional<AffineIndex> f = affine_index(e);
    ASSERT_TRUE(f) << ir::to_string(e);
    for (std::int64_t xv = -13; xv <= 13; ++xv)
      for (std::int64_t yv = -3; yv <= 3; ++yv) {
        const std::map<std::string, std::int64_t> env = {{"x", xv}, {"y", yv}, {"R", 5}};
        ASSERT_EQ(eval(*f, env), eval(e, env))
            << ir::to_string(e) << " as " << f->str() << " at x=" << xv << " y=" << yv;
      }
  }
}

TEST(Affine, RationalArithmetic) {
  EXPECT_EQ(Rational(2, 4), Rational(1, 2));
  EXPECT_EQ(Rational(1, -2).str(), "-1/2");
  EXPECT_EQ(Rational(-1, 2).floor(), -1);
  EXPECT_EQ(Rational(-1, 2).ceil(), 0);
  EXPECT_EQ(Rational(1, 2) + Rational(1, 3), Rational(5, 6));
  EXPECT_EQ(Rational(1, 2) / Rational(1, 4), Rational(2));
  EXPECT_TRUE(Rational(1, 3) < Rational(1, 2));
}

// ---- pipelines used below -----------------------------------------------------------------------

struct Unsharp {
  Param R{"R"}, C{"C"};
  Var x{"x"}, y{"y"};
  Image img{"img", ScalarType::Float32, {R + 4, C + 4}};
  Func blurx{"blurx", ScalarType::Float32, {x, y}, {{2, R + 1}, {0, C + 3}}};
  Func blury{"blury", ScalarType::Float32, {x, y}, {{2, R + 1}, {2, C + 1}}};
  Func sharpen{"sharpen", ScalarType::Float32, {x, y}, {{2, R + 1}, {2, C + 1}}};
  Func masked{"masked", ScalarType::Float32, {x, y}, {{2, R + 1}, {2, C + 1}}};
  Unsharp() {
    blurx.define((img(x - 2, y) + img(x - 1, y) * 4.0f + img(x, y) * 6.0f + img(x + 1, y) * 4.0f +
                  img(x + 2, y)) *
                 0.0625f);
    blury.define((blurx(x, y - 2) + blurx(x, y - 1) * 4.0f + blurx(x, y) * 6.0f +
                  blurx(x, y + 1) * 4.0f + blurx(x, y + 2)) *
                 0.0625f);
    sharpen.define(img(x, y) * 2.0f - blury(x, y));
    masked.define(select(abs(img(x, y) - blury(x, y)) < 0.01f, img(x, y), sharpen(x, y)));
  }
  Pipeline pipeline() { return Pipeline({masked}, "unsharp"); }
};

// img -> down1 (2x) -> down2 (2x) -> up1 (x/2, plus down1) -> up0 (x/2, plus img).
struct Pyramid {
  Param N{"N"};
  Var x{"x"}, y{"y"};
  Image img{"img", ScalarType::Float32, {N, N}};
  Func down1{"down1", ScalarType::Float32, {x, y}, {{0, N / 2 - 1}, {0, N / 2 - 1}}};
  Func down2{"down2", ScalarType::Float32, {x, y}, {{0, N / 4 - 1}, {0, N / 4 - 1}}};
  Func up1{"up1", ScalarType::Float32, {x, y}, {{0, N / 2 - 1}, {0, N / 2 - 1}}};
  Func up0{"up0", ScalarType::Float32, {x, y}, {{0, N - 1}, {0, N - 1}}};
  Pyramid() {
    down1.define((img(2 * x, 2 * y) + img(2 * x + 1, 2 * y + 1)) * 0.5f);
    down2.define((down1(2 * x, 2 * y) + down1(2 * x + 1, 2 * y + 1)) * 0.5f);
    up1.define(down2(x / 2, y / 2) + down1(x, y));
    up0.define(up1(x / 2, y / 2) * img(x, y));
  }
  Pipeline pipeline() { return Pipeline({up0}, "pyramid"); }
};

const EdgeDependence& edge(const std::vector<EdgeDependence>& edges, const std::string& producer,
                           const std::string& consumer) {
  for (const EdgeDependence& e : edges)
    if (e.producer_name() == producer && e.consumer->name() == consumer) return e;
  ADD_FAILURE() << "no edge " << producer << " -> " << consumer;
  static const EdgeDependence none;
  return none;
}

std::vector<const ir::Function*> all_stages(const Pipeline& p) {
  std::vector<const ir::Function*> out;
  for (const auto& f : p.stages())
    out.push_back(f.get());
  return out;
}

// ---- dependence vectors -------------------------------------------------------------------------

TEST(Dependence, UnsharpEdgesInDeterministicOrder) {
  Unsharp u;
  Pipeline p = u.pipeline();
  const std::vector<EdgeDependence> edges = dependences(p);
  std::vector<std::string> names;
  for (const EdgeDependence& e : edges)
    names.push_back(e.producer_name() + "->" + e.consumer->name());
  EXPECT_EQ(names, (std::vector<std::string>{"img->blurx", "blurx->blury", "img->sharpen",
                                             "blury->sharpen", "img->masked", "blury->masked",
                                             "sharpen->masked"}));

  const EdgeDependence& bx = edge(edges, "img", "blurx");
  EXPECT_EQ(bx.accesses.size(), 5u);
  ASSERT_EQ(bx.dims.size(), 2u);
  EXPECT_EQ(bx.dims[0].kind, DimDependenceKind::Aligned);
  EXPECT_EQ(bx.dims[0].consumer_var, "x");
  EXPECT_EQ(bx.dims[0].consumer_dim, 0);
  EXPECT_EQ(bx.dims[0].scale, Rational(1));
  EXPECT_EQ(bx.dims[0].min_offset, Rational(-2));
  EXPECT_EQ(bx.dims[0].max_offset, Rational(2));
  EXPECT_EQ(bx.dims[0].str(), "x + [-2, 2]");
  EXPECT_EQ(bx.dims[1].str(), "y");
  EXPECT_TRUE(bx.is_uniform());

  const EdgeDependence& by = edge(edges, "blurx", "blury");
  EXPECT_EQ(by.producer_stage, p.stage("blurx").get());
  EXPECT_EQ(by.dims[0].str(), "x");
  EXPECT_EQ(by.dims[1].str(), "y + [-2, 2]");

  const EdgeDependence& m = edge(edges, "img", "masked");
  EXPECT_EQ(m.accesses.size(), 2u); // img(x, y) twice, in the condition and the value
  EXPECT_EQ(m.accesses[0].context, "value");
  EXPECT_EQ(m.dims[0].str(), "x");
}

TEST(Dependence, SamplingConstantAndIrregularDimensions) {
  Param N("N");
  Var x("x"), y("y"), c("c");
  Image img("img", ScalarType::Float32, {3, N, N});
  Image lut("lut", ScalarType::Float32, {256});
  Func f("f", ScalarType::Float32, {x, y}, {{0, N / 2 - 1}, {0, N - 1}});
  f.define({Case(x == 0, img(1, 2 * x - 1, y))},
           img(0, 2 * x + 1, (y + 1) / 2) + lut(cast<int>(img(2, x, y))) + img(2, x % 2, x + y));
  const std::vector<EdgeDependence> edges = consumer_dependences(*f.contents());
  ASSERT_EQ(edges.size(), 2u);
  const EdgeDependence& e = edges[0];
  EXPECT_EQ(e.producer_name(), "img");
  EXPECT_EQ(e.accesses[0].context, "case 0");
  EXPECT_EQ(e.accesses.size(), 4u);
  EXPECT_EQ(e.dims[0].kind, DimDependenceKind::Constant);
  EXPECT_EQ(e.dims[0].str(), "[0, 2]");
  EXPECT_EQ(e.dims[1].kind, DimDependenceKind::NonAffine);
  EXPECT_THAT(e.dims[1].note, HasSubstr("x % 2"));
  EXPECT_EQ(e.dims[2].kind, DimDependenceKind::MultiVariable);
  EXPECT_THAT(e.dims[2].note, HasSubstr("x + y"));
  EXPECT_FALSE(e.is_uniform());

  EXPECT_EQ(edges[1].producer_name(), "lut");
  EXPECT_EQ(edges[1].dims[0].kind, DimDependenceKind::DataDependent);

  // Mixed scales and a sampling dimension on their own.
  Func g("g", ScalarType::Float32, {x, y}, {{0, N / 4}, {0, N / 4}});
  g.define(img(0, 2 * x - 1, y / 2) + img(0, 2 * x + 1, (y + 1) / 2) + img(0, x, y / 2));
  const std::vector<EdgeDependence> ge = consumer_dependences(*g.contents());
  EXPECT_EQ(ge[0].dims[1].kind, DimDependenceKind::Mixed);
  EXPECT_THAT(ge[0].dims[1].note,
              HasSubstr("img(0, x, y / 2) (value) uses x where an earlier access uses 2*x"));
  EXPECT_EQ(ge[0].dims[2].str(), "y/2 + [0, 1/2]");
  EXPECT_EQ(ge[0].dims[2].max_divisor, 2);
}

// A boundary condition's clamped reads stay non-affine (lowering cannot align
// them), and carry the dependence of their unclamped indices, whose footprint
// bounds theirs (the cost model's live-in).
TEST(Dependence, ClampedIndicesKeepTheirUnclampedDependence) {
  Param R("R"), C("C");
  Var x("x"), y("y");
  Image img("img", ScalarType::Float32, {R, C});
  Func edge = boundary::repeat_edge(img, {1, 1});
  Func blurx("blurx", ScalarType::Float32, {x, y}, {{0, R - 1}, {0, C - 1}});
  blurx.define(edge(x - 1, y) + edge(x + 1, y));
  const EdgeDependence into_edge = consumer_dependences(*edge.contents())[0];
  for (const DimDependence& d : into_edge.dims) {
    EXPECT_EQ(d.kind, DimDependenceKind::NonAffine);
    ASSERT_NE(d.unclamped, nullptr);
    EXPECT_EQ(d.unclamped->kind, DimDependenceKind::Aligned);
    EXPECT_EQ(d.unclamped->min_offset, Rational(0));
    EXPECT_EQ(d.unclamped->max_offset, Rational(0));
  }
  EXPECT_THAT(into_edge.dims[0].str(), HasSubstr("clamped "));

  // A clamp around a non-affine index, or with a variable bound, has none.
  Func g("g", ScalarType::Float32, {x, y}, {{0, R - 1}, {0, C - 1}});
  g.define(img(clamp(x % 3, 0, R - 1), clamp(y, 0, x)));
  const EdgeDependence into_g = consumer_dependences(*g.contents())[0];
  EXPECT_EQ(into_g.dims[0].unclamped, nullptr);
  EXPECT_EQ(into_g.dims[1].unclamped, nullptr);
  (void)blurx;
}

TEST(Dependence, ReductionAccessesIncludeTargets) {
  Param N("N");
  Var b("b");
  Image img("img", ScalarType::UInt8, {N, N});
  RVar rx("rx", {0, N - 1}), ry("ry", {0, N - 1});
  Func hist("hist", ScalarType::Int32, {b}, {{0, 255}});
  hist.define_reduction(0, {rx, ry}, {sum_into({cast<int>(img(rx, ry))}, 1)});
  const std::vector<EdgeDependence> edges = consumer_dependences(*hist.contents());
  ASSERT_EQ(edges.size(), 1u);
  EXPECT_EQ(edges[0].accesses[0].context, "update 0 target");
  EXPECT_EQ(edges[0].dims[0].consumer_var, "rx");
  EXPECT_EQ(edges[0].dims[0].consumer_dim, -1); // a reduction variable
}

// ---- classification -----------------------------------------------------------------------------

TEST(Classify, PointWiseStencilAndSampling) {
  Unsharp u;
  Pipeline p = u.pipeline();
  const auto edges = dependences(p);
  const auto blurx = classify_stage(*p.stage("blurx"), edges);
  EXPECT_EQ(blurx.primary, StageClass::Stencil);
  EXPECT_EQ(blurx.str(), "stencil");
  ASSERT_EQ(blurx.reasons.size(), 1u);
  EXPECT_EQ(blurx.reasons[0], "img dimension 0: x + [-2, 2]");
  EXPECT_EQ(classify_stage(*p.stage("sharpen"), edges).primary, StageClass::PointWise);
  EXPECT_EQ(classify_stage(*p.stage("masked"), edges).str(), "point-wise");

  Pyramid py;
  Pipeline pp = py.pipeline();
  const auto pe = dependences(pp);
  const auto down1 = classify_stage(*pp.stage("down1"), pe);
  EXPECT_EQ(down1.primary, StageClass::DownSampling);
  EXPECT_TRUE(down1.has(StageClass::Stencil)); // two taps per dimension
  EXPECT_EQ(down1.str(), "down-sampling, stencil");
  const auto up1 = classify_stage(*pp.stage("up1"), pe);
  EXPECT_EQ(up1.primary, StageClass::UpSampling);
  EXPECT_FALSE(up1.has(StageClass::DownSampling));
  EXPECT_FALSE(up1.has(StageClass::PointWise));
}

TEST(Classify, ReductionDataDependentAndIrregular) {
  Param N("N");
  Var x("x"), y("y"), b("b");
  Image img("img", ScalarType::UInt8, {N, N});
  Image lut("lut", ScalarType::Float32, {256});
  RVar rx("rx", {0, N - 1}), ry("ry", {0, N - 1});
  Func hist("hist", ScalarType::Int32, {b}, {{0, 255}});
  hist.define_reduction(0, {rx, ry}, {sum_into({cast<int>(img(rx, ry))}, 1)});
  Func look("look", ScalarType::Float32, {x, y}, {{0, N - 1}, {0, N - 1}});
  look.define(lut(cast<int>(img(x, y))));
  Func odd("odd", ScalarType::Float32, {x, y}, {{0, N - 1}, {0, N - 1}});
  odd.define(lut(x % 256) + cast<float>(img(x, y)));
  Func gen("gen", ScalarType::Int32, {x}, {{0, 9}});
  gen.define(x * x);

  const auto h = classify_stage(*hist.contents(), consumer_dependences(*hist.contents()));
  EXPECT_EQ(h.primary, StageClass::Reduction);
  EXPECT_TRUE(h.has(StageClass::DataDependent)); // the bin index reads memory
  EXPECT_THAT(h.reasons.back(), HasSubstr("target index"));

  const auto l = classify_stage(*look.contents(), consumer_dependences(*look.contents()));
  EXPECT_EQ(l.primary, StageClass::DataDependent);
  EXPECT_THAT(l.reasons[0], HasSubstr("lut dimension 0"));

  const auto o = classify_stage(*odd.contents(), consumer_dependences(*odd.contents()));
  EXPECT_EQ(o.primary, StageClass::Irregular);

  EXPECT_EQ(classify_stage(*gen.contents(), {}).primary, StageClass::PointWise);
}

// ---- alignment and scaling ----------------------------------------------------------------------

TEST(Alignment, PyramidScalesByHand) {
  Pyramid py;
  Pipeline p = py.pipeline();
  const GroupAlignment a = align_and_scale(p, all_stages(p));
  ASSERT_TRUE(a.ok) << a.reason;
  EXPECT_EQ(a.common_dims, (std::vector<std::string>{"x", "y"}));
  // Reference up0 (finest) has scale 1; up1 and down1 are at half resolution (2);
  // down2 at a quarter (4).
  std::map<std::string, std::vector<std::int64_t>> scales;
  for (const StageAlignment& s : a.stages) {
    EXPECT_EQ(s.common_dim, (std::vector<int>{0, 1})) << s.stage->name();
    scales[s.stage->name()] = s.scale;
  }
  EXPECT_EQ(scales["up0"], (std::vector<std::int64_t>{1, 1}));
  EXPECT_EQ(scales["up1"], (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(scales["down1"], (std::vector<std::int64_t>{2, 2}));
  EXPECT_EQ(scales["down2"], (std::vector<std::int64_t>{4, 4}));
  EXPECT_EQ(a.stages[1].str(a.common_dims), "(x, y) -> (4*x, 4*y)"); // down2

  // Distances in the common space, by hand: down2(x) at 4x reads down1(2x), down1(2x+1) at
  // 4x and 4x+2; up1(x) at 2x reads down2(x/2) at 4*floor(x/2) in [2x-2, 2x]; up0(x) reads
  // up1(x/2) at 2*floor(x/2) in [x-1, x].
  std::map<std::string, std::string> dist;
  for (const UniformDependence& u : a.dependences)
    dist[u.producer->name() + "->" + u.consumer->name()] = u.str();
  EXPECT_EQ(dist.size(), 4u);
  EXPECT_EQ(dist["down1->down2"], "[0, 2] x [0, 2]");
  EXPECT_EQ(dist["down2->up1"], "[-2, 0] x [-2, 0]");
  EXPECT_EQ(dist["down1->up1"], "[0, 0] x [0, 0]");
  EXPECT_EQ(dist["up1->up0"], "[-1, 0] x [-1, 0]");

  // A sub-group is scaled on its own: the factors are normalized to the smallest integers.
  const GroupAlignment sub = align_and_scale(p, {p.stage("down2").get(), p.stage("down1").get()});
  ASSERT_TRUE(sub.ok) << sub.reason;
  EXPECT_EQ(sub.stages[0].stage->name(), "down1");
  EXPECT_EQ(sub.stages[0].scale, (std::vector<std::int64_t>{1, 1}));
  EXPECT_EQ(sub.stages[1].scale, (std::vector<std::int64_t>{2, 2}));
}

TEST(Alignment, TransposeAndConstantChannel) {
  Param N("N");
  Var x("x"), y("y"), c("c");
  Image img("img", ScalarType::Float32, {N, N});
  Func f("f", ScalarType::Float32, {x, y}, {{0, N - 1}, {0, N - 1}});
  f.define(img(x, y));
  Func t("t", ScalarType::Float32, {x, y}, {{0, N - 1}, {0, N - 1}});
  t.define(f(y, x));
  Func rgb("rgb", ScalarType::Float32, {c, x, y}, {{0, 2}, {0, N - 1}, {0, N - 1}});
  rgb.define(t(x, y) + f(x, y) * 0.0f);
  Func grey("grey", ScalarType::Float32, {x, y}, {{0, N - 1}, {0, N - 1}});
  grey.define(rgb(0, x, y) + rgb(2, x + 1, y));
  Pipeline p({grey}, "t");
  // f(x, y) and t(y, x) meet in rgb: f's x must be both rgb's x (directly) and rgb's y
  // (through t): a mismatched alignment, reported with the edge.
  const GroupAlignment bad = align_and_scale(p, all_stages(p));
  EXPECT_FALSE(bad.ok);
  EXPECT_THAT(bad.reason, HasSubstr("edge"));
  EXPECT_THAT(bad.reason, HasSubstr("aligned differently"));

  // Without f, the channel dimension of rgb is read at constants by grey.
  const GroupAlignment ok = align_and_scale(p, {p.stage("rgb").get(), p.stage("grey").get()});
  ASSERT_TRUE(ok.ok) << ok.reason;
  EXPECT_EQ(ok.common_dims, (std::vector<std::string>{"c", "x", "y"}));
  EXPECT_EQ(ok.stages[1].str(ok.common_dims), "(x, y) -> (0, x, y)");
  ASSERT_EQ(ok.dependences.size(), 1u);
  EXPECT_EQ(ok.dependences[0].str(), "[0, 2] x [0, 1] x [0, 0]");

  // t alone with f: a transposition is fine (f's x aligns with t's y).
  const GroupAlignment tr = align_and_scale(p, {p.stage("f").get(), p.stage("t").get()});
  ASSERT_TRUE(tr.ok) << tr.reason;
  EXPECT_EQ(tr.stages[0].str(tr.common_dims), "(x, y) -> (y, x)");
}

TEST(Alignment, ImpossibleGroupsSayWhy) {
  Param N("N");
  Var x("x"), y("y");
  Image img("img", ScalarType::Float32, {N, N});
  Func f("f", ScalarType::Float32, {x, y}, {{0, N - 1}, {0, N - 1}});
  f.define(img(x, y));
  Func g("g", ScalarType::Float32, {x, y}, {{0, N - 1}, {0, N - 1}});
  g.define(f(x, y) + f(y, x));
  Func h("h", ScalarType::Float32, {x, y}, {{0, N - 1}, {0, N - 1}});
  h.define(f(x % 4, y));
  Func k("k", ScalarType::Float32, {x, y}, {{0, N / 2}, {0, N - 1}});
  k.define(f(N - 1 - x, y));
  Func r("r", ScalarType::Float32, {x}, {{0, N - 1}});
  r.define(f(x, 0));
  Func s("s", ScalarType::Float32, {x, y}, {{0, N - 1}, {0, N - 1}});
  s.define(f(x, y) + r(y));
  Func u("u", ScalarType::Float32, {x, y}, {{0, N - 1}, {0, N - 1}});
  u.define(f(x, y) * 2.0f);
  Func v("v", ScalarType::Float32, {x, y}, {{0, N - 1}, {0, N - 1}});
  v.define(u(x, y) + f(x, 0));
  Pipeline p({g, h, k, s, v}, "bad");
  const auto group = [&](std::initializer_list<const char*> names) {
    std::vector<const ir::Function*> out;
    for (const char* n : names)
      out.push_back(p.stage(n).get());
    return align_and_scale(p, out);
  };
  EXPECT_THAT(group({"f", "g"}).reason, HasSubstr("edge 'f' -> 'g': dimension 0 of 'f' is mixed"));
  EXPECT_THAT(group({"f", "h"}).reason, HasSubstr("non-affine"));
  EXPECT_THAT(group({"f", "k"}).reason, HasSubstr("depends on a parameter"));
  EXPECT_THAT(group({"g", "h"}).reason, HasSubstr("not connected"));
  // f's x meets s's x directly and s's y through r(y) = f(y, 0).
  const GroupAlignment frs = group({"f", "r", "s"});
  EXPECT_FALSE(frs.ok);
  EXPECT_THAT(frs.reason, HasSubstr("edge 'f' -> 'r'"));
  EXPECT_THAT(frs.reason, HasSubstr("aligned differently"));
  // v reads f at a constant y although f's y is aligned with v's y through u.
  const GroupAlignment fuv = group({"f", "u", "v"});
  EXPECT_FALSE(fuv.ok);
  EXPECT_THAT(fuv.reason,
              HasSubstr("edge 'f' -> 'v': f(x, 0) reads dimension 1 of 'f' at a constant"));
  // Alone, r reads f at a constant in y: fine (r lies at 0 there).
  const GroupAlignment fr = group({"f", "r"});
  ASSERT_TRUE(fr.ok) << fr.reason;
  EXPECT_EQ(fr.dependences[0].str(), "[0, 0] x [0, 0]");
  // s reads r along its y: r has no dimension there, so it is a broadcast.
  const GroupAlignment rs = group({"r", "s"});
  ASSERT_TRUE(rs.ok) << rs.reason;
  EXPECT_EQ(rs.dependences[0].str(), "* x [0, 0]");
}

// The autoscheduler calls these thousands of times: keep them cheap.
TEST(Alignment, ManyCallsAreCheap) {
  Pyramid py;
  Pipeline p = py.pipeline();
  const auto edges = dependences(p);
  const auto group = all_stages(p);
  const auto start = std::chrono::steady_clock::now();
  int ok = 0;
  for (int i = 0; i < 2000; ++i)
    ok += align_and_scale(p, group, edges).ok ? 1 : 0;
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(ok, 2000);
  if (std::getenv("TRAPEZE_PRINT_EXPLAIN")) std::cout << "2000 alignments: " << ms << " ms\n";
  const auto start2 = std::chrono::steady_clock::now();
  for (int i = 0; i < 2000; ++i)
    ok += static_cast<int>(dependences(p).size());
  const double ms2 =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start2).count();
  if (std::getenv("TRAPEZE_PRINT_EXPLAIN")) std::cout << "2000 dependences: " << ms2 << " ms\n";
}

// A reduction shares a common space only as a producer: its reads run over
// its reduction domain, so a stage of the group that it reads has no distance.
TEST(Alignment, ReductionsAlignOnlyAsProducers) {
  Param N("N");
  Var x("x"), b("b");
  Image img("img", ScalarType::UInt8, {N});
  RVar r("r", {0, N - 1});
  Func hist("hist", ScalarType::Int32, {b}, {{0, 255}});
  hist.define_reduction(0, {r}, {sum_into({cast<int>(img(r))}, 1)});
  Func cdf("cdf", ScalarType::Int32, {x}, {{0, 255}});
  cdf.define(hist(x));
  Pipeline p({cdf}, "h");
  EXPECT_TRUE(align_and_scale(p, {p.stage("hist").get()}).ok);
  EXPECT_TRUE(align_and_scale(p, all_stages(p)).ok);
  Func twice("twice", ScalarType::Int32, {x}, {{0, N - 1}});
  twice.define(cast<int>(img(x)) * 2);
  Func hist2("hist2", ScalarType::Int32, {b}, {{0, 255}});
  hist2.define_reduction(0, {r}, {sum_into({twice(r) % 256}, 1)});
  Pipeline p2({hist2}, "h2");
  const GroupAlignment a = align_and_scale(p2, all_stages(p2));
  EXPECT_FALSE(a.ok);
  EXPECT_THAT(a.reason, HasSubstr("'hist2' is a reduction that reads 'twice' inside the group"));
}

// ---- explain ------------------------------------------------------------------------------------

TEST(Explain, TextListsEverySection) {
  Pyramid py;
  Pipeline p = py.pipeline();
  const std::string text = explain_text(p, p.bind({{"N", 64}}));
  EXPECT_THAT(text, HasSubstr("pipeline 'pyramid': 4 stages, 1 input\n"));
  EXPECT_THAT(text, HasSubstr("N  int64  = 64"));
  EXPECT_THAT(text, HasSubstr("img  float32  extents [N, N]  domain [0, 63] x [0, 63]"));
  EXPECT_THAT(text, HasSubstr("down2(x, y)  float32"));
  EXPECT_THAT(text, HasSubstr("domain  x in [0, N/4 - 1], y in [0, N/4 - 1]"));
  EXPECT_THAT(text, HasSubstr("= [0, 15] x [0, 15]"));
  EXPECT_THAT(text, HasSubstr("up0(x, y)  float32  [output]"));
  EXPECT_THAT(text, HasSubstr("class   up-sampling"));
  EXPECT_THAT(text, HasSubstr("down-sampling, stencil"));
  EXPECT_THAT(text, HasSubstr("dim 0  aligned  2*x + [0, 1]"));
  EXPECT_THAT(text, HasSubstr("dim 0  aligned  x/2"));
  EXPECT_THAT(text, HasSubstr("group {down1, down2, up1, up0}: common space (x, y)"));
  EXPECT_THAT(text, HasSubstr("down2  (x, y) -> (4*x, 4*y)"));
  EXPECT_THAT(text, HasSubstr("up1 -> up0      [-1, 0] x [-1, 0]"));
  if (std::getenv("TRAPEZE_PRINT_EXPLAIN"))
    std::cout << text << explain_json(p, p.bind({{"N", 64}}));
}

TEST(Explain, NamesABoundaryConditionAsWritten) {
  Param R("R"), C("C");
  Var x("x"), y("y");
  Image img("img", ScalarType::Float32, {R, C});
  Func zero = boundary::constant_exterior(img, 0, {1, R});
  Func f("f", ScalarType::Float32, {x, y}, {{0, R - 1}, {0, C - 1}});
  f.define(zero(x - 1, y + R));
  const Pipeline p({f}, "bounded");
  EXPECT_THAT(explain_text(p, {}), HasSubstr("boundary  constant_exterior(img, 0.0f, [1, R])\n"));
  EXPECT_EQ(nlohmann::json::parse(explain_json(p, {}))["stages"][0]["definition"]["boundary"],
            "constant_exterior(img, 0.0f, [1, R])");
}

TEST(Explain, SaysWhichMarginsWereInferred) {
  Param R("R");
  Var x("x");
  Image img("img", ScalarType::Float32, {R});
  Func edge = boundary::repeat_edge(img);
  Func f("f", ScalarType::Float32, {x}, {{0, R - 1}});
  f.define(edge(x - 2) + edge(x + 1));
  const Pipeline p({f}, "inferred");
  EXPECT_THAT(explain_text(p, {}),
              HasSubstr("boundary  repeat_edge(img)  (margins inferred: [2])\n"));
  const auto definition = nlohmann::json::parse(explain_json(p, {}))["stages"][0]["definition"];
  EXPECT_EQ(definition["boundary"], "repeat_edge(img)");
  EXPECT_EQ(definition["inferred_margins"], nlohmann::json::array({"2"}));
}

TEST(Explain, TextSaysWhyNotOneGroup) {
  Unsharp u;
  Param N("N");
  Var x("x");
  Image img("other", ScalarType::Int32, {N});
  Func lone("lone", ScalarType::Int32, {x}, {{0, N - 1}});
  lone.define(img(x));
  Pipeline p({u.masked, lone}, "two");
  const std::string text = explain_text(p, {}); // nothing bound: symbolic only
  if (std::getenv("TRAPEZE_PRINT_EXPLAIN")) std::cout << text;
  EXPECT_THAT(text, HasSubstr("The pipeline is not one group: the stages form 2 connected"));
  EXPECT_THAT(text, HasSubstr("(parameters unbound)"));
  EXPECT_THAT(text, HasSubstr("R  int64  unbound"));
}

TEST(Explain, JsonHasTheDocumentedFields) {
  Pyramid py;
  Pipeline p = py.pipeline();
  const nlohmann::json j = nlohmann::json::parse(explain_json(p, p.bind({{"N", 64}})));
  EXPECT_EQ(j["pipeline"], "pyramid");
  EXPECT_EQ(j["params"][0]["name"], "N");
  EXPECT_EQ(j["params"][0]["value"], 64);
  EXPECT_EQ(j["inputs"][0]["extents"], nlohmann::json::array({"N", "N"}));
  EXPECT_EQ(j["inputs"][0]["domain"]["hi"], nlohmann::json::array({63, 63}));
  ASSERT_EQ(j["stages"].size(), 4u);
  const nlohmann::json& down2 = j["stages"][1];
  EXPECT_EQ(down2["name"], "down2");
  EXPECT_EQ(down2["vars"], nlohmann::json::array({"x", "y"}));
  EXPECT_EQ(down2["domain"]["symbolic"][0]["hi"], "N / 4 - 1");
  EXPECT_EQ(down2["domain"]["concrete"]["hi"], nlohmann::json::array({15, 15}));
  EXPECT_EQ(down2["class"]["primary"], "down-sampling");
  EXPECT_EQ(down2["definition"]["kind"], "pure");
  EXPECT_THAT(down2["definition"]["default"].get<std::string>(), HasSubstr("down1(2 * x, 2 * y)"));

  bool found = false;
  for (const auto& e : j["edges"]) {
    if (e["producer"] != "up1") continue;
    found = true;
    EXPECT_EQ(e["consumer"], "up0");
    EXPECT_EQ(e["producer_kind"], "stage");
    EXPECT_EQ(e["dims"][0]["kind"], "aligned");
    EXPECT_EQ(e["dims"][0]["scale"], "1/2");
    EXPECT_EQ(e["dims"][0]["consumer_var"], "x");
    EXPECT_EQ(e["accesses"][0]["indices"][0]["form"]["divisor"], 2);
    EXPECT_EQ(e["accesses"][0]["indices"][0]["form"]["text"], "x/2");
  }
  EXPECT_TRUE(found);
  const nlohmann::json& g = j["alignment"]["groups"][0];
  EXPECT_TRUE(j["alignment"]["whole_pipeline"].get<bool>());
  EXPECT_TRUE(g["ok"].get<bool>());
  EXPECT_EQ(g["common_dims"], nlohmann::json::array({"x", "y"}));
  EXPECT_EQ(g["placements"][1]["stage"], "down2");
  EXPECT_EQ(g["placements"][1]["scale"], nlohmann::json::array({4, 4}));
  EXPECT_EQ(g["dependences"][0]["lo"], nlohmann::json::array({0, 0}));
}

TEST(Explain, ReductionDefinitionInJson) {
  Param N("N");
  Var b("b");
  Image img("img", ScalarType::UInt8, {N});
  RVar r("r", {0, N - 1});
  Func hist("hist", ScalarType::Int32, {b}, {{0, 255}});
  hist.define_reduction(0, {r}, {sum_into({cast<int>(img(r))}, 1)});
  Pipeline p({hist}, "h");
  const nlohmann::json j = nlohmann::json::parse(explain_json(p, p.bind({{"N", 10}})));
  const nlohmann::json& d = j["stages"][0]["definition"];
  EXPECT_EQ(d["kind"], "reduction");
  EXPECT_EQ(d["reduction"]["rdom"][0]["var"], "r");
  EXPECT_EQ(d["reduction"]["updates"][0]["op"], "sum");
  EXPECT_EQ(j["stages"][0]["class"]["all"], nlohmann::json::array({"reduction", "data-dependent"}));
  EXPECT_THAT(explain_text(p, p.bind({{"N", 10}})),
              HasSubstr("update 0  sum into hist(int32(img(r))): 1"));
}

TEST(Explain, UnalignableGroupIsCutIntoParts) {
  Param N("N");
  Var x("x"), y("y"), c("c"), b("b");
  Image img("img", ScalarType::UInt8, {N, N});
  RVar rx("rx", {0, N - 1}), ry("ry", {0, N - 1});
  Func hist("hist", ScalarType::Int32, {b}, {{0, 255}});
  hist.define_reduction(0, {rx, ry}, {sum_into({cast<int>(img(rx, ry))}, 1)});
  Func rgb("rgb", ScalarType::Float32, {c, x, y}, {{0, 2}, {0, N - 1}, {0, N - 1}});
  rgb.define({Case(c == 0, cast<float>(img(x, y)))}, cast<float>(hist(cast<int>(img(x, y)))));
  Func grey("grey", ScalarType::Float32, {x, y}, {{0, N - 2}, {0, N - 1}});
  grey.define(rgb(0, x, y) + rgb(2, x + 1, y));
  Pipeline p({grey}, "demo");
  const ParamValues bound = p.bind({{"N", 8}});
  const std::string text = explain_text(p, bound);
  EXPECT_THAT(text, HasSubstr("group {hist, rgb, grey}: cannot be aligned: edge 'hist' -> 'rgb': "
                              "dimension 0 of 'hist' is data-dependent"));
  EXPECT_THAT(text, HasSubstr("group {rgb, grey}: common space (c, x, y)"));
  EXPECT_THAT(text, HasSubstr("rgb -> grey  [0, 2] x [0, 1] x [0, 0]"));
  EXPECT_THAT(text, HasSubstr("dim 0  data-dependent  index int32(img(x, y)) of hist("));
  EXPECT_THAT(text, HasSubstr("case 0   c == 0  :  float32(img(x, y))"));

  const nlohmann::json j = nlohmann::json::parse(explain_json(p, bound));
  const nlohmann::json& g = j["alignment"]["groups"][0];
  EXPECT_FALSE(g["ok"].get<bool>());
  ASSERT_EQ(g["parts"].size(), 2u);
  EXPECT_EQ(g["parts"][1]["stages"], nlohmann::json::array({"rgb", "grey"}));
  EXPECT_TRUE(g["parts"][1]["ok"].get<bool>());
  EXPECT_EQ(g["parts"][1]["dependences"][0]["hi"], nlohmann::json::array({2, 1, 0}));
  EXPECT_EQ(j["stages"][1]["definition"]["kind"], "cases");
  EXPECT_EQ(j["stages"][1]["definition"]["cases"][0]["condition"], "c == 0");
}

// Every benchmark app must be explainable (no internal error, valid JSON).
TEST(Explain, EveryAppExplains) {
  for (const apps::App& app : apps::all_apps()) {
    SCOPED_TRACE(app.name);
    Pipeline p = app.build();
    const ParamValues bound = p.bind(app.small_size);
    EXPECT_THAT(explain_text(p, bound), HasSubstr("pipeline '"));
    const nlohmann::json j = nlohmann::json::parse(explain_json(p, bound));
    EXPECT_EQ(j["stages"].size(), p.stages().size());
  }
}

} // namespace
} // namespace trapeze
