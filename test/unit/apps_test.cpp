// The benchmark apps: structure, sizes, inputs, and every stage's formula
// checked against a brute-force transcription of benchmarks.md.
//
// The formulas are evaluated point by point by a tiny evaluator of the IR
// written here (so that this test does not depend on the reference
// interpreter) and compared with plain C++ loops over the spec's formulas.
#include "app.h"

#include "analysis/case_region.h"
#include "trapeze/error.h"
#include "trapeze/ir_visitor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace trapeze::apps {
namespace {

using testing::HasSubstr;

/// Evaluates a pipeline's stages at single points, straight from their
/// definitions (cases, default), following expr.h for the operations used by
/// the apps. float32 results are rounded to float after every operation, so
/// the result is what float arithmetic gives.
class PointEvaluator {
public:
  PointEvaluator(const Pipeline& p, ParamValues bound, BufferMap inputs)
      : pipeline_(p), params_(std::move(bound)), inputs_(std::move(inputs)) {}

  double at(const std::string& stage, std::vector<std::int64_t> point) const {
    return stage_at(*pipeline_.stage(stage), point);
  }

private:
  struct Env {
    const std::vector<std::string>* names;
    const std::vector<std::int64_t>* values;
  };

  double stage_at(const ir::Function& f, const std::vector<std::int64_t>& point) const {
    // Each stage value is computed once (memoised), as a whole-image evaluation would.
    const auto key = std::make_pair(&f, point);
    if (const auto it = memo_.find(key); it != memo_.end()) return it->second;
    auto domain_it = domains_.find(&f);
    if (domain_it == domains_.end())
      domain_it = domains_.emplace(&f, concrete_domain(f, params_)).first;
    const Box& domain = domain_it->second;
    for (int d = 0; d < f.dimensions(); ++d) {
      const auto i = static_cast<std::size_t>(d);
      if (point[i] < domain.lo[i] || point[i] > domain.hi[i])
        throw std::logic_error("point outside the domain of " + f.name() + " " + domain.str());
    }
    const Env env{&f.vars(), &point};
    const ir::Definition& def = f.definition();
    if (def.is_reduction()) throw std::logic_error("reductions are not evaluated here");
    double value = 0;
    bool covered = false;
    for (const ir::Case& c : def.cases)
      if (eval(c.condition, env) != 0) {
        value = eval(c.value, env);
        covered = true;
        break;
      }
    if (!covered) value = eval(def.otherwise, env);
    memo_.emplace(key, value);
    return value;
  }

  static double round_to(ScalarType t, double v) {
    switch (t) {
    case ScalarType::Float32: return static_cast<float>(v);
    case ScalarType::Float64: return v;
    case ScalarType::Bool: return v != 0 ? 1 : 0;
    default: return std::trunc(v);
    }
  }

  double eval(const Expr& e, const Env& env) const {
    if (const auto* n = e.as<ir::IntConst>()) return static_cast<double>(n->value);
    if (const auto* n = e.as<ir::FloatConst>()) return n->value;
    if (const auto* n = e.as<ir::VarRef>()) {
      for (std::size_t i = 0; i < env.names->size(); ++i)
        if ((*env.names)[i] == n->name) return static_cast<double>((*env.values)[i]);
      throw std::logic_error("unknown variable " + n->name);
    }
    if (const auto* n = e.as<ir::ParamRef>()) {
      const ParamValue& v = params_.at(n->name);
      return round_to(n->type, v.is_float ? v.f : static_cast<double>(v.i));
    }
    if (const auto* n = e.as<ir::Cast>()) return round_to(n->type, eval(n->value, env));
    if (const auto* n = e.as<ir::Unary>()) {
      const double v = eval(n->value, env);
      switch (n->op) {
      case ir::UnaryOp::Neg: return -v;
      case ir::UnaryOp::Abs: return std::abs(v);
      case ir::UnaryOp::Not: return v == 0 ? 1 : 0;
      default: throw std::logic_error("unary op not used by these apps");
      }
    }
    if (const auto* n = e.as<ir::Binary>()) {
      const double a = eval(n->a, env), b = eval(n->b, env);
      const bool fl = is_float(n->a.type());
      switch (n->op) {
      case ir::BinaryOp::Add: return round_to(n->type, a + b);
      case ir::BinaryOp::Sub: return round_to(n->type, a - b);
      case ir::BinaryOp::Mul: return round_to(n->type, a * b);
      case ir::BinaryOp::Div:
        if (fl) return round_to(n->type, a / b);
        return b == 0 ? 0 : std::floor(a / b);
      case ir::BinaryOp::Min: return std::min(a, b);
      case ir::BinaryOp::Max: return std::max(a, b);
      case ir::BinaryOp::EQ: return a == b;
      case ir::BinaryOp::NE: return a != b;
      case ir::BinaryOp::LT: return a < b;
      case ir::BinaryOp::LE: return a <= b;
      case ir::BinaryOp::GT: return a > b;
      case ir::BinaryOp::GE: return a >= b;
      case ir::BinaryOp::And: return (a != 0) && (b != 0);
      case ir::BinaryOp::Or: return (a != 0) || (b != 0);
      default: throw std::logic_error("binary op not used by these apps");
      }
    }
    if (const auto* n = e.as<ir::Select>())
      return eval(n->cond, env) != 0 ? eval(n->if_true, env) : eval(n->if_false, env);
    if (const auto* n = e.as<ir::Access>()) {
      std::vector<std::int64_t> index;
      for (const Expr& a : n->args)
        index.push_back(static_cast<std::int64_t>(eval(a, env)));
      if (n->func) return stage_at(*n->func, index);
      const Buffer& b = inputs_.at(n->image->name());
      std::int64_t offset = 0;
      for (int d = 0; d < b.dimensions(); ++d) {
        const std::int64_t i = index[static_cast<std::size_t>(d)];
        if (i < 0 || i >= b.extent(d))
          throw std::logic_error("read of " + n->image->name() + " out of bounds");
        offset = offset * b.extent(d) + i;
      }
      return b.get_as_double(offset);
    }
    throw std::logic_error("unknown expression kind");
  }

  const Pipeline& pipeline_;
  ParamValues params_;
  BufferMap inputs_;
  mutable std::map<const ir::Function*, Box> domains_;
  mutable std::map<std::pair<const ir::Function*, std::vector<std::int64_t>>, double> memo_;
};

std::vector<std::string> stage_names(const Pipeline& p) {
  std::vector<std::string> names;
  for (const auto& s : p.stages())
    names.push_back(s->name());
  return names;
}

std::int64_t int_param(const ParamValues& v, const std::string& name) { return v.at(name).i; }

/// Compares every point of every stage's domain with `expected(stage, point)`.
void expect_stages_match(
    const App& app, std::int64_t rows, std::int64_t cols,
    const std::function<double(const std::string&, const std::vector<std::int64_t>&)>& expected) {
  const Pipeline p = app.build();
  const ParamValues bound = p.bind(app.size_for_image(rows, cols));
  const BufferMap inputs = app.make_inputs(p, bound);
  const PointEvaluator eval(p, bound, inputs);
  for (const auto& stage : p.stages()) {
    const Box box = concrete_domain(*stage, bound);
    ASSERT_FALSE(box.empty()) << stage->name();
    std::vector<std::int64_t> point = box.lo;
    std::int64_t checked = 0;
    for (;;) {
      const double want = expected(stage->name(), point);
      const double got = eval.at(stage->name(), point);
      // Both sides round to float after every operation in the same order, so
      // they agree to the last bits; the slack only covers a compiler that
      // contracts the test's own float expressions.
      const double tolerance = 1e-5 * std::abs(want) + 1e-12;
      if (std::abs(got - want) > tolerance) {
        std::string where;
        for (std::int64_t i : point)
          where += (where.empty() ? "" : ", ") + std::to_string(i);
        FAIL() << app.name << ": stage " << stage->name() << " at (" << where << "): pipeline "
               << got << ", spec " << want;
      }
      ++checked;
      // Next point, last dimension fastest.
      int d = box.dimensions() - 1;
      for (; d >= 0; --d) {
        const auto i = static_cast<std::size_t>(d);
        if (++point[i] <= box.hi[i]) break;
        point[i] = box.lo[i];
      }
      if (d < 0) break;
    }
    EXPECT_GT(checked, 0);
  }
}

// ---------------------------------------------------------------- registry

TEST(Apps, RegistryListsTheAppsInOrder) {
  std::vector<std::string> names;
  for (const App& a : all_apps())
    names.push_back(a.name);
  ASSERT_GE(names.size(), 3u);
  EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + 3),
            (std::vector<std::string>{"blur", "unsharp", "harris"}));
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size()); // unique
  EXPECT_EQ(find_app("unsharp").name, "unsharp");
  try {
    find_app("sharpen");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("no app named 'sharpen'"));
    EXPECT_THAT(e.what(), HasSubstr("blur, unsharp, harris"));
  }
}

TEST(Apps, EveryAppIsComplete) {
  for (const App& app : all_apps()) {
    SCOPED_TRACE(app.name);
    EXPECT_FALSE(app.description.empty());
    ASSERT_TRUE(app.build && app.make_inputs && app.size_for_image);
    const Pipeline p = app.build();
    EXPECT_EQ(p.name(), app.name);
    ASSERT_EQ(p.outputs().size(), 1u);
    // A float output: every stage computes in that type (float32; float64 for
    // multigrid) and a tolerance is stated. Integer outputs (camera_pipe,
    // local_laplacian) are compared exactly; their stages may be of any type.
    if (is_float(p.outputs()[0]->type())) {
      EXPECT_GT(app.tolerance, 0);
      for (const auto& s : p.stages())
        EXPECT_EQ(s->type(), p.outputs()[0]->type()) << s->name();
    }
    // The defaults of the pipeline are the default size.
    const ParamValues defaults = p.bind({});
    for (const auto& [name, value] : app.default_size)
      EXPECT_EQ(defaults.at(name).i, value.i) << name;
    EXPECT_NO_THROW(p.bind(app.small_size));
  }
}

TEST(Apps, TooSmallImagesAreRejected) {
  const auto message = [](const std::string& app, std::int64_t rows, std::int64_t cols) {
    try {
      find_app(app).size_for_image(rows, cols);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  for (const App& app : all_apps()) {
    if (app.test_sizes.empty()) continue; // not sized by an image (multigrid)
    const std::string m = message(app.name, 0, 40);
    EXPECT_THAT(m, HasSubstr("app '" + app.name + "' needs an image of at least"));
    EXPECT_THAT(m, HasSubstr("got 0 x 40"));
  }
  // The smallest images with a non-empty output.
  EXPECT_THAT(message("blur", 40, 2), HasSubstr("at least 3 x 3"));
  EXPECT_EQ(message("blur", 3, 3), "no error");
  EXPECT_THAT(message("harris", 4, 40), HasSubstr("at least 5 x 5"));
  EXPECT_EQ(message("harris", 5, 5), "no error");
  EXPECT_THAT(message("unsharp", 3, 40), HasSubstr("at least 4 x 4"));
  EXPECT_EQ(message("unsharp", 4, 4), "no error");
}

// ---------------------------------------------------------------- blur

TEST(Blur, StructureAndSizes) {
  const App& app = find_app("blur");
  const Pipeline p = app.build();
  EXPECT_EQ(stage_names(p), (std::vector<std::string>{"blurx", "blury"}));
  EXPECT_EQ(p.outputs()[0]->name(), "blury");
  // 4800 x 6400 is the input image.
  EXPECT_EQ(int_param(app.default_size, "R"), 4798);
  EXPECT_EQ(int_param(app.default_size, "C"), 6398);
  EXPECT_EQ(input_extents(p, "img", app.small_size), (std::vector<std::int64_t>{64, 80}));
  EXPECT_EQ(input_extents(p, "img", app.size_for_image(37, 61)),
            (std::vector<std::int64_t>{37, 61}));
  EXPECT_EQ(concrete_domain(*p.stage("blury"), p.bind(app.size_for_image(37, 61))).str(),
            "[1, 35] x [1, 59]");
  EXPECT_EQ(concrete_domain(*p.stage("blurx"), p.bind(app.size_for_image(37, 61))).str(),
            "[1, 35] x [0, 60]");
}

TEST(Blur, InputsAreAGreyImageInTheUnitRange) {
  const App& app = find_app("blur");
  const Pipeline p = app.build();
  const BufferMap inputs = app.make_inputs(p, app.size_for_image(37, 61));
  ASSERT_EQ(inputs.size(), 1u);
  const Buffer& img = inputs.at("img");
  EXPECT_EQ(img.describe(), "float32[37][61]");
  const float* v = img.data<float>();
  EXPECT_EQ(*std::min_element(v, v + img.size()), 0.0f);
  EXPECT_EQ(*std::max_element(v, v + img.size()), 1.0f);
}

TEST(Blur, StagesFollowTheSpec) {
  const std::int64_t rows = 37, cols = 61;
  const App& app = find_app("blur");
  const Pipeline p = app.build();
  const Buffer img = app.make_inputs(p, app.size_for_image(rows, cols)).at("img");
  const auto in = [&](std::int64_t x, std::int64_t y) { return img.at<float>({x, y}); };
  const auto blurx = [&](std::int64_t x, std::int64_t y) {
    return (in(x - 1, y) + in(x, y) + in(x + 1, y)) / 3.0f;
  };
  const auto blury = [&](std::int64_t x, std::int64_t y) {
    return (blurx(x, y - 1) + blurx(x, y) + blurx(x, y + 1)) / 3.0f;
  };
  expect_stages_match(app, rows, cols,
                      [&](const std::string& s, const std::vector<std::int64_t>& pt) -> double {
                        if (s == "blurx") return blurx(pt[0], pt[1]);
                        if (s == "blury") return blury(pt[0], pt[1]);
                        throw std::logic_error("unexpected stage " + s);
                      });
}

// ---------------------------------------------------------------- unsharp

TEST(Unsharp, StructureAndSizes) {
  const App& app = find_app("unsharp");
  const Pipeline p = app.build();
  EXPECT_EQ(stage_names(p), (std::vector<std::string>{"img_constant_exterior", "blurx", "blury",
                                                      "sharpen", "mask"}));
  EXPECT_EQ(p.outputs()[0]->name(), "mask");
  EXPECT_EQ(int_param(app.default_size, "R"), 2832);
  EXPECT_EQ(int_param(app.default_size, "C"), 4256);
  // threshold and weight: float32 parameters with the spec's defaults.
  int float_params = 0;
  for (const ParamInfo& info : p.params()) {
    if (info.name == "threshold" || info.name == "weight") {
      ++float_params;
      EXPECT_EQ(info.type, ScalarType::Float32);
      ASSERT_TRUE(info.has_default);
      EXPECT_DOUBLE_EQ(info.default_value.f, info.name == "weight" ? 3.0 : 0.001);
    }
  }
  EXPECT_EQ(float_params, 2);
  EXPECT_EQ(input_extents(p, "img", app.small_size), (std::vector<std::int64_t>{3, 64, 80}));
  const ParamValues odd = p.bind(app.size_for_image(37, 61));
  EXPECT_EQ(input_extents(p, "img", odd), (std::vector<std::int64_t>{3, 37, 61}));
  // The image in, the image out; the spec's zero ghost zone is a boundary
  // condition whose margins (2 along x and y) are inferred from blurx.
  EXPECT_EQ(concrete_domain(*p.stage("mask"), odd).str(), "[0, 2] x [0, 36] x [0, 60]");
  EXPECT_EQ(concrete_domain(*p.stage("blurx"), odd).str(), "[0, 2] x [0, 36] x [-2, 62]");
  EXPECT_EQ(concrete_domain(*p.stage("img_constant_exterior"), odd).str(),
            "[0, 2] x [-2, 38] x [-2, 62]");
}

TEST(Unsharp, InputIsAColourImage) {
  const App& app = find_app("unsharp");
  const Pipeline p = app.build();
  const Buffer img = app.make_inputs(p, app.size_for_image(37, 61)).at("img");
  ASSERT_EQ(img.describe(), "float32[3][37][61]");
  double lowest = 1, highest = 0;
  for (std::int64_t c = 0; c < 3; ++c)
    for (std::int64_t x = 0; x < 37; ++x)
      for (std::int64_t y = 0; y < 61; ++y) {
        lowest = std::min<double>(lowest, img.at<float>({c, x, y}));
        highest = std::max<double>(highest, img.at<float>({c, x, y}));
      }
  EXPECT_EQ(lowest, 0.0);
  EXPECT_EQ(highest, 1.0);
  // The channels differ (a colour image).
  EXPECT_NE(img.at<float>({0, 20, 30}), img.at<float>({1, 20, 30}));
}

TEST(Unsharp, StagesFollowTheSpec) {
  const std::int64_t rows = 37, cols = 61;
  const App& app = find_app("unsharp");
  const Pipeline p = app.build();
  const Buffer img = app.make_inputs(p, app.size_for_image(rows, cols)).at("img");
  const float threshold = 0.001f, weight = 3.0f;
  // The spec's input: the image inside a 2-pixel zero ghost zone.
  const auto in = [&](std::int64_t c, std::int64_t x, std::int64_t y) {
    return x < 0 || y < 0 || x >= rows || y >= cols ? 0.0f : img.at<float>({c, x, y});
  };
  const auto blurx = [&](std::int64_t c, std::int64_t x, std::int64_t y) {
    return (in(c, x - 2, y) + 4.0f * in(c, x - 1, y) + 6.0f * in(c, x, y) + 4.0f * in(c, x + 1, y) +
            in(c, x + 2, y)) *
           0.0625f;
  };
  const auto blury = [&](std::int64_t c, std::int64_t x, std::int64_t y) {
    return (blurx(c, x, y - 2) + 4.0f * blurx(c, x, y - 1) + 6.0f * blurx(c, x, y) +
            4.0f * blurx(c, x, y + 1) + blurx(c, x, y + 2)) *
           0.0625f;
  };
  const auto sharpen = [&](std::int64_t c, std::int64_t x, std::int64_t y) {
    return in(c, x, y) * (1.0f + weight) - blury(c, x, y) * weight;
  };
  int masked = 0, sharpened = 0;
  const auto mask = [&](std::int64_t c, std::int64_t x, std::int64_t y) {
    const bool keep = std::abs(in(c, x, y) - blury(c, x, y)) < threshold;
    ++(keep ? masked : sharpened);
    return keep ? in(c, x, y) : sharpen(c, x, y);
  };
  expect_stages_match(app, rows, cols,
                      [&](const std::string& s, const std::vector<std::int64_t>& pt) -> double {
                        if (s == "img_constant_exterior") return in(pt[0], pt[1], pt[2]);
                        if (s == "blurx") return blurx(pt[0], pt[1], pt[2]);
                        if (s == "blury") return blury(pt[0], pt[1], pt[2]);
                        if (s == "sharpen") return sharpen(pt[0], pt[1], pt[2]);
                        if (s == "mask") return mask(pt[0], pt[1], pt[2]);
                        throw std::logic_error("unexpected stage " + s);
                      });
  // Both branches of the mask were exercised.
  EXPECT_GT(masked, 0);
  EXPECT_GT(sharpened, 0);
}

// ---------------------------------------------------------------- harris

TEST(Harris, StructureAndSizes) {
  const App& app = find_app("harris");
  const Pipeline p = app.build();
  const std::vector<std::string> names = stage_names(p);
  EXPECT_EQ(names.size(), 11u);
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()),
            (std::set<std::string>{"Ix", "Iy", "Ixx", "Iyy", "Ixy", "Sxx", "Syy", "Sxy", "det",
                                   "trace", "harris"}));
  EXPECT_EQ(p.outputs()[0]->name(), "harris");
  // 2832 x 4256 is the input image.
  EXPECT_EQ(int_param(app.default_size, "R"), 2830);
  EXPECT_EQ(int_param(app.default_size, "C"), 4254);
  EXPECT_EQ(input_extents(p, "img", app.small_size), (std::vector<std::int64_t>{64, 80}));
  const ParamValues odd = p.bind(app.size_for_image(37, 61));
  EXPECT_EQ(input_extents(p, "img", odd), (std::vector<std::int64_t>{37, 61}));
  for (const auto& s : p.stages())
    EXPECT_EQ(concrete_domain(*s, odd).str(), "[0, 36] x [0, 60]") << s->name();
}

TEST(Harris, InteriorsAreCasesOnPlainBoxes) {
  // Each stage has one case whose condition is exactly a box (no residual), so
  // code generators can evaluate it anywhere in that box; I1 and I2 as in the spec.
  const App& app = find_app("harris");
  const Pipeline p = app.build();
  const ParamValues bound = p.bind(app.size_for_image(37, 61));
  const std::set<std::string> on_i1 = {"Ix", "Iy", "Ixx", "Iyy", "Ixy"};
  for (const auto& s : p.stages()) {
    SCOPED_TRACE(s->name());
    const std::vector<analysis::CaseRegion> regions = analysis::case_regions(*s);
    ASSERT_EQ(regions.size(), 1u);
    EXPECT_FALSE(regions[0].residual.defined());
    std::string box;
    for (const Interval& range : regions[0].box)
      box += "[" + std::to_string(evaluate_int(range.lo, bound)) + ", " +
             std::to_string(evaluate_int(range.hi, bound)) + "]";
    EXPECT_EQ(box, on_i1.count(s->name()) ? "[1, 35][1, 59]" : "[2, 34][2, 58]");
  }
}

TEST(Harris, StagesFollowTheSpec) {
  const std::int64_t rows = 37, cols = 61, R = rows - 2, C = cols - 2;
  const App& app = find_app("harris");
  const Pipeline p = app.build();
  const Buffer img = app.make_inputs(p, app.size_for_image(rows, cols)).at("img");
  const auto in = [&](std::int64_t x, std::int64_t y) { return img.at<float>({x, y}); };
  const auto in1 = [&](std::int64_t x, std::int64_t y) {
    return x >= 1 && x <= R && y >= 1 && y <= C;
  };
  const auto in2 = [&](std::int64_t x, std::int64_t y) {
    return x >= 2 && x <= R - 1 && y >= 2 && y <= C - 1;
  };
  using F = std::function<float(std::int64_t, std::int64_t)>;
  const F Iy = [&](std::int64_t x, std::int64_t y) {
    if (!in1(x, y)) return 0.0f;
    return (-in(x - 1, y - 1) + in(x - 1, y + 1) - 2.0f * in(x, y - 1) + 2.0f * in(x, y + 1) -
            in(x + 1, y - 1) + in(x + 1, y + 1)) /
           12.0f;
  };
  const F Ix = [&](std::int64_t x, std::int64_t y) {
    if (!in1(x, y)) return 0.0f;
    return (-in(x - 1, y - 1) - 2.0f * in(x - 1, y) - in(x - 1, y + 1) + in(x + 1, y - 1) +
            2.0f * in(x + 1, y) + in(x + 1, y + 1)) /
           12.0f;
  };
  const F Ixx = [&](std::int64_t x, std::int64_t y) { return in1(x, y) ? Ix(x, y) * Ix(x, y) : 0; };
  const F Iyy = [&](std::int64_t x, std::int64_t y) { return in1(x, y) ? Iy(x, y) * Iy(x, y) : 0; };
  const F Ixy = [&](std::int64_t x, std::int64_t y) { return in1(x, y) ? Ix(x, y) * Iy(x, y) : 0; };
  const auto box = [&](const F& f) {
    return F([&, f](std::int64_t x, std::int64_t y) {
      if (!in2(x, y)) return 0.0f;
      float sum = 0.0f;
      bool first = true;
      for (std::int64_t dx = -1; dx <= 1; ++dx)
        for (std::int64_t dy = -1; dy <= 1; ++dy) {
          sum = first ? f(x + dx, y + dy) : sum + f(x + dx, y + dy);
          first = false;
        }
      return sum;
    });
  };
  const F Sxx = box(Ixx), Syy = box(Iyy), Sxy = box(Ixy);
  const F det = [&](std::int64_t x, std::int64_t y) {
    return in2(x, y) ? Sxx(x, y) * Syy(x, y) - Sxy(x, y) * Sxy(x, y) : 0.0f;
  };
  const F trace = [&](std::int64_t x, std::int64_t y) {
    return in2(x, y) ? Sxx(x, y) + Syy(x, y) : 0.0f;
  };
  const F harris = [&](std::int64_t x, std::int64_t y) {
    return in2(x, y) ? det(x, y) - 0.04f * trace(x, y) * trace(x, y) : 0.0f;
  };
  const std::map<std::string, F> stages = {
      {"Ix", Ix},   {"Iy", Iy},   {"Ixx", Ixx}, {"Iyy", Iyy},     {"Ixy", Ixy},      {"Sxx", Sxx},
      {"Syy", Syy}, {"Sxy", Sxy}, {"det", det}, {"trace", trace}, {"harris", harris}};
  expect_stages_match(app, rows, cols,
                      [&](const std::string& s, const std::vector<std::int64_t>& pt) -> double {
                        return stages.at(s)(pt[0], pt[1]);
                      });
  // The response is not trivially zero inside.
  double largest = 0;
  for (std::int64_t x = 2; x <= R - 1; ++x)
    for (std::int64_t y = 2; y <= C - 1; ++y)
      largest = std::max(largest, std::abs(static_cast<double>(harris(x, y))));
  EXPECT_GT(largest, 1e-4);
}

} // namespace
} // namespace trapeze::apps
