/// \file
/// Local Laplacian filter: benchmarks.md section 7 ("Local Laplacian filter
/// (L = 8 pyramid levels, K = 8 intensity levels; 68 stages)").
///
///   R, C (int64)        output rows / cols
///   alpha, beta         float32 parameters, defaults 1/7 and 1
///   img_colour          uint16 [3][R][C], a 16-bit colour image
///   grey                (0.299 c2 + 0.587 c1 + 0.114 c0) / 65535 on [0,R-1] x [0,C-1]
///   grey_constant_exterior  grey, 0 beyond its edges (boundary::constant_exterior,
///                       margins inferred): the spec pads the input by 2 with zeros
///   img                 the spec's grey of the padded input on [0,R+3] x [0,C+3]:
///                       grey_constant_exterior(x-2, y-2)
///   remapLUT(r)         r in [-1792, 1792]: alpha * fx * exp(-fx*fx/2), fx = r/256
///   gPyramid_L0(k,x,y)  k in [0,7]: beta*(img - k/7) + k/7 + remapLUT(idx - 256k),
///                       idx = clamp((int)(img*1792), 0, 1792)
///   Dx_/D_inGPyramid_Ll, Dx_/D_gPyramid_Ll (l = 1..7): [1 3 3 1]/8 down-sampling
///   Ux_/U_lPyramid_Ll   (l = 6..0): Laplacian levels of gPyramid (with k)
///   outLPyramid_Ll      (l = 0..7): lPyramid_l interpolated between k = li and li+1
///   Ux_/outGPyramid_Ll  (l = 6..1), Ux_result_ref_gray, result_ref_gray: collapse
///   laplacian           (output) uint16 [3][R][C]: the colour image rescaled by
///                       result_ref_gray / img
///
/// Level l has rows [0, R/2^l + 3] and cols [0, C/2^l + 3] (a 2-pixel ghost
/// zone on every side, interior [2, R/2^l + 1]); stages are 0 outside their
/// interior. Interpretation: the stated default 2560 x 1536 x 3 is the output
/// image (R = 2560, C = 1536). Sums are added left to right in the order the
/// spec writes them; all literals are float32 and integer-float mixes follow
/// C; fx = r/256 is float division ((float)r / 256.0f, as the LUT needs), and
/// k/7 is (float)k / 7.0f. Up-sampling's even/odd rule is two cases with
/// the parity as residual condition. li = min(max((int)lev, 0), 6) keeps li
/// and li+1 inside [0, 7] by the formula; the DSL clamps the data-dependent
/// indices anyway. The level-7 interior must hold a pixel, so images need at
/// least 128 x 128 pixels (R/2^7 >= 1 and C/2^7 >= 1). The JIT's expf and the
/// interpreter's std::exp(float) are the same libm function and the JIT does
/// not contract multiply-adds, so the output matches the interpreter exactly
/// (checked at the default size and the test sizes).
#include "app.h"

#include "trapeze/boundary.h"
#include "trapeze/dsl.h"
#include "trapeze/error.h"
#include "trapeze/image_io.h"

#include <algorithm>
#include <string>

namespace trapeze::apps {

namespace {

constexpr int kLevels = 8;      // L
constexpr int kIntensities = 8; // K
constexpr std::int64_t kMinSize = std::int64_t{1} << (kLevels - 1);

/// Builds the stages of one pipeline; pyramids with a k dimension (gPyramid,
/// lPyramid) and without (inGPyramid, outL/outG) share the generic operators.
class LocalLaplacianBuilder {
public:
  LocalLaplacianBuilder() : R_("R"), C_("C"), k_("k"), x_("x"), y_("y") {}

  Pipeline build() {
    Param alpha("alpha", ScalarType::Float32), beta("beta", ScalarType::Float32);
    Var c("c");
    Image img_colour("img_colour", ScalarType::UInt16, {3, R_, C_});

    // The spec's input is the image inside a 2-pixel zero border, and img
    // its grey there. Here the grey is taken of the image and the border is
    // a boundary condition around it (0, the grey of the border's zeros);
    // img's (x, y) is the image's (x - 2, y - 2).
    Func grey("grey", ScalarType::Float32, {x_, y_}, {{0, R_ - 1}, {0, C_ - 1}});
    grey.define((0.299f * img_colour(2, x_, y_) + 0.587f * img_colour(1, x_, y_) +
                 0.114f * img_colour(0, x_, y_)) /
                65535.0f);
    const Func ring = boundary::constant_exterior(grey, 0.0f);
    Func img("img", ScalarType::Float32, {x_, y_}, domain(false, 0, 0));
    img.define(ring(x_ - 2, y_ - 2));

    const int lut_half = 256 * (kIntensities - 1); // 1792
    Var r("r");
    Func remapLUT("remapLUT", ScalarType::Float32, {r}, {{-lut_half, lut_half}});
    const Expr fx = cast<float>(r) / 256.0f;
    remapLUT.define(alpha * fx * exp(-(fx * fx) / 2.0f));

    Func gPyramid0("gPyramid_L0", ScalarType::Float32, {k_, x_, y_}, domain(true, 0, 0));
    const Expr lvl = cast<float>(k_) / static_cast<float>(kIntensities - 1);
    const Expr idx =
        clamp(cast<std::int32_t>(img(x_, y_) * static_cast<float>(lut_half)), 0, lut_half);
    gPyramid0.define(beta * (img(x_, y_) - lvl) + lvl + remapLUT(idx - 256 * k_));

    // Gaussian pyramids of the input and of the remapped images.
    std::vector<Func> inG = {img}, gP = {gPyramid0};
    for (int l = 1; l < kLevels; ++l) {
      inG.push_back(down(inG.back(), false, l, "inGPyramid"));
      gP.push_back(down(gP.back(), true, l, "gPyramid"));
    }

    // Laplacian pyramid of gPyramid: lPyramid_7 = gPyramid_7.
    std::vector<Func> lP(kLevels, gP.back());
    for (int l = kLevels - 2; l >= 0; --l)
      lP[l] = up(gP[l + 1], gP[l], true, l, "Ux_lPyramid_L" + std::to_string(l),
                 "U_lPyramid_L" + std::to_string(l), -1.0f);

    // Output Laplacian pyramid: interpolate lPyramid between intensity levels.
    std::vector<Func> outL;
    for (int l = 0; l < kLevels; ++l) {
      Func f("outLPyramid_L" + std::to_string(l), ScalarType::Float32, {x_, y_},
             domain(false, l, l));
      const Expr lev = inG[l](x_, y_) * static_cast<float>(kIntensities - 1);
      const Expr li = min(max(cast<std::int32_t>(lev), 0), kIntensities - 2);
      const Expr lf = lev - li;
      f.define(lP[l](li, x_, y_) * (1.0f - lf) + lP[l](li + 1, x_, y_) * lf);
      outL.push_back(f);
    }

    // Collapse: outG_7 = outL_7, outG_l = outL_l + up(outG_{l+1}).
    Func outG = outL.back();
    for (int l = kLevels - 2; l >= 0; --l) {
      const std::string ux =
          l > 0 ? "Ux_outGPyramid_L" + std::to_string(l) : std::string("Ux_result_ref_gray");
      const std::string u =
          l > 0 ? "outGPyramid_L" + std::to_string(l) : std::string("result_ref_gray");
      outG = up(outG, outL[l], false, l, ux, u, 1.0f);
    }
    const Func& result_ref_gray = outG;

    Func laplacian("laplacian", ScalarType::UInt16, {c, x_, y_},
                   {{0, 2}, {0, R_ - 1}, {0, C_ - 1}});
    const Expr v = result_ref_gray(x_ + 2, y_ + 2) * (img_colour(c, x_, y_) / 65535.0f + 0.01f) /
                   (img(x_ + 2, y_ + 2) + 0.01f);
    laplacian.define(cast<std::uint16_t>(clamp(v, 0.0f, 1.0f) * 65535.0f));

    Pipeline p({laplacian}, "local_laplacian");
    // What size_for_image requires, declared so that lowering can order the
    // zero border's pieces for every accepted size (docs/lowering.md).
    p.set_range("R", kMinSize, std::nullopt);
    p.set_range("C", kMinSize, std::nullopt);
    p.set_default("R", std::int64_t{2560});
    p.set_default("C", std::int64_t{1536});
    p.set_default("alpha", 1.0 / (kIntensities - 1));
    p.set_default("beta", 1.0);
    return p;
  }

private:
  // Level 0 is R itself, not R / 1, which the prover takes as a term of its
  // own (and then cannot order against R).
  Expr rows(int l) const { return l == 0 ? Expr(R_) : R_ / (std::int64_t{1} << l); }
  Expr cols(int l) const { return l == 0 ? Expr(C_) : C_ / (std::int64_t{1} << l); }

  /// [0, K-1] (with k) x [0, R/2^lr + 3] x [0, C/2^lc + 3].
  std::vector<Interval> domain(bool has_k, int lr, int lc) const {
    std::vector<Interval> d;
    if (has_k) d.push_back({0, kIntensities - 1});
    d.push_back({0, rows(lr) + 3});
    d.push_back({0, cols(lc) + 3});
    return d;
  }
  std::vector<Var> vars(bool has_k) const {
    return has_k ? std::vector<Var>{k_, x_, y_} : std::vector<Var>{x_, y_};
  }
  Expr at(const Func& f, bool has_k, Expr xi, Expr yi) const {
    return has_k ? f(k_, std::move(xi), std::move(yi)) : f(std::move(xi), std::move(yi));
  }
  /// x in [2, R/2^lr + 1] and y in [2, C/2^lc + 1].
  Expr interior(int lr, int lc) const { return x_.in(2, rows(lr) + 1) && y_.in(2, cols(lc) + 1); }

  /// down_l(f): Dx_<name>_Ll along rows, then D_<name>_Ll along columns.
  Func down(const Func& f, bool has_k, int l, const std::string& name) const {
    const std::string suffix = name + "_L" + std::to_string(l);
    const auto taps = [](const std::function<Expr(Expr)>& g, const Expr& i) {
      return (g(2 * (i - 1) - 1) + 3.0f * g(2 * (i - 1)) + 3.0f * g(2 * (i - 1) + 1) +
              g(2 * (i - 1) + 2)) *
             0.125f;
    };
    Func dx("Dx_" + suffix, ScalarType::Float32, vars(has_k), domain(has_k, l, l - 1));
    dx.define({Case(interior(l, l - 1),
                    taps([&](Expr i) { return at(f, has_k, std::move(i), y_); }, x_))},
              0.0f);
    Func d("D_" + suffix, ScalarType::Float32, vars(has_k), domain(has_k, l, l));
    d.define(
        {Case(interior(l, l), taps([&](Expr i) { return at(dx, has_k, x_, std::move(i)); }, y_))},
        0.0f);
    return d;
  }

  /// Up-sampling of `coarse` (level l+1) to level l, combined with `base`
  /// (level l) on the interior: base + sign * up-cols(up-rows(coarse)).
  Func up(const Func& coarse, const Func& base, bool has_k, int l, const std::string& ux_name,
          const std::string& u_name, float sign) const {
    const auto even = [](const std::function<Expr(Expr)>& g, const Expr& i) {
      return 0.25f * g(i / 2) + 0.75f * g(i / 2 + 1);
    };
    const auto odd = [](const std::function<Expr(Expr)>& g, const Expr& i) {
      return 0.25f * g(i / 2 + 2) + 0.75f * g(i / 2 + 1);
    };
    const auto along_x = [&](Expr i) { return at(coarse, has_k, std::move(i), y_); };
    Func ux(ux_name, ScalarType::Float32, vars(has_k), domain(has_k, l, l + 1));
    const Expr ux_in = interior(l, l + 1);
    ux.define({Case(ux_in && x_ % 2 == 0, even(along_x, x_)),
               Case(ux_in && x_ % 2 == 1, odd(along_x, x_))},
              0.0f);

    const auto along_y = [&](Expr i) { return at(ux, has_k, x_, std::move(i)); };
    const Expr b = at(base, has_k, x_, y_);
    const auto combine = [&](const Expr& upsampled) {
      return sign > 0 ? b + upsampled : b - upsampled;
    };
    Func u(u_name, ScalarType::Float32, vars(has_k), domain(has_k, l, l));
    const Expr u_in = interior(l, l);
    u.define({Case(u_in && y_ % 2 == 0, combine(even(along_y, y_))),
              Case(u_in && y_ % 2 == 1, combine(odd(along_y, y_)))},
             0.0f);
    return u;
  }

  Param R_, C_;
  Var k_, x_, y_;
};

ParamValues local_laplacian_size_for_image(std::int64_t rows, std::int64_t cols) {
  // The coarsest level (7) has rows/2^7 interior rows: at least one.
  require_image_size("local_laplacian", rows, cols, kMinSize, kMinSize);
  return {{"R", rows}, {"C", cols}};
}

/// A [3][rows][cols] uint16 image as the input, checked against its size.
BufferMap place_colour(const Pipeline& p, const ParamValues& params, const Buffer& colour) {
  const std::vector<std::int64_t> extents = input_extents(p, "img_colour", params);
  if (colour.extents() != extents)
    throw Error("local_laplacian: a " + std::to_string(colour.extent(1)) + "x" +
                std::to_string(colour.extent(2)) + " image does not fit input 'img_colour' (" +
                std::to_string(extents[1]) + "x" + std::to_string(extents[2]) + ")");
  return {{"img_colour", colour}};
}

BufferMap local_laplacian_inputs(const Pipeline& p, const ParamValues& params) {
  const std::vector<std::int64_t> extents = input_extents(p, "img_colour", params);
  SyntheticSpec spec;
  spec.type = ScalarType::UInt16;
  spec.extents = extents;
  spec.lo = 0;
  spec.hi = 65535;
  spec.seed = 7;
  return place_colour(p, params, synthetic_image(spec));
}

/// The user's PNG as 16-bit colour in the spec's channel order (0 blue,
/// 1 green, 2 red; PNG planes are red, green, blue): 8-bit samples scaled by
/// 257, grey replicated to the three channels, alpha dropped.
BufferMap local_laplacian_image_inputs(const Pipeline& p, const ParamValues& params,
                                       const Buffer& image) {
  const int dims = image.dimensions();
  const std::int64_t planes = dims == 3 ? image.extent(0) : 1;
  const std::int64_t rows = image.extent(dims - 2), cols = image.extent(dims - 1);
  const double scale = image.type() == ScalarType::UInt8 ? 257.0 : 1.0;
  Buffer colour(ScalarType::UInt16, {3, rows, cols});
  for (std::int64_t ch = 0; ch < 3; ++ch) {
    const std::int64_t plane = planes >= 3 ? 2 - ch : 0; // PNG planes are R, G, B
    for (std::int64_t i = 0; i < rows * cols; ++i)
      colour.set_from_double(ch * rows * cols + i,
                             image.get_as_double(plane * rows * cols + i) * scale);
  }
  return place_colour(p, params, colour);
}

} // namespace

App make_local_laplacian_app() {
  App app;
  app.name = "local_laplacian";
  app.description = "local Laplacian filter: 8-level pyramids over 8 intensity levels (uint16 "
                    "colour)";
  app.build = [] { return LocalLaplacianBuilder().build(); };
  app.default_size = local_laplacian_size_for_image(2560, 1536);
  app.small_size = local_laplacian_size_for_image(128, 128);
  app.manual_schedule = make_manual_schedule_local_laplacian;
  app.make_inputs = local_laplacian_inputs;
  app.size_for_image = local_laplacian_size_for_image;
  app.inputs_from_image = local_laplacian_image_inputs;
  app.test_sizes = {{129, 131}, {131, 263}};
  app.tolerance = 1e-4; // unused: the uint16 output is compared exactly
  return app;
}

Schedule make_manual_schedule_local_laplacian(const Pipeline& p) {
  const auto level = [](const std::string& stage, int l) {
    return stage + "_L" + std::to_string(l);
  };
  const std::vector<std::int64_t> with_k = {1, 32, 256}, plane = {32, 256};
  Schedule s;
  for (int l = 0; l < 7; ++l) {
    std::vector<std::string> stages;
    if (l == 0) stages.push_back("gPyramid_L0");
    for (const char* stage : {"Dx_gPyramid", "D_gPyramid"})
      stages.push_back(level(stage, l + 1));
    for (const char* stage : {"Ux_lPyramid", "U_lPyramid"})
      stages.push_back(level(stage, l));
    s.groups.push_back(fused_group(
        stages, with_k, 2,
        "level " + std::to_string(l) +
            ": the down step of gPyramid fused with the Laplacian that reads it back up "
            "(one tile of one intensity level k: k and x tile loops parallel)"));
  }
  for (int l = 1; l < 8; ++l)
    s.groups.push_back(fused_group({level("Dx_inGPyramid", l), level("D_inGPyramid", l)}, plane, 2,
                                   "the separable down step of the input pyramid fused"));
  for (int l = 1; l < 7; ++l)
    s.groups.push_back(fused_group(
        {level("outLPyramid", l), level("Ux_outGPyramid", l), level("outGPyramid", l)}, plane, 2,
        "the output pyramid's up step fused with the level's look-up into the Laplacian "
        "pyramid (data-dependent in k: only its consumers can join it)"));
  s.groups.push_back(fused_group({"outLPyramid_L0", "Ux_result_ref_gray", "result_ref_gray"}, plane,
                                 2, "the last up step fused with level 0's look-up"));
  s.groups.push_back(fused_group({"grey", "grey_constant_exterior", "img"}, plane, 2,
                                 "the input's grey and its zero border, inlined into img"));
  s.storage["grey"] = Storage::Inlined;
  s.storage["grey_constant_exterior"] = Storage::Inlined;
  add_remaining_stages(p, s,
                       "a look-up table, a data-dependent read of a whole pyramid level, or the "
                       "output (reads result_ref_gray at a constant channel offset): alone");
  return s;
}

} // namespace trapeze::apps
