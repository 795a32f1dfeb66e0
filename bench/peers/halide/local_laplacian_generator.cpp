// local_laplacian (benchmarks.md section 7) in Halide 14, for trapeze bench.
//
// Coordinates: trapeze's stages are f(k, x, y), f(x, y) or f(c, x, y), x the
// row and y the contiguous column; Halide lists the innermost dimension
// first, so every Func here is f(y, x, k), f(y, x) or f(y, x, c) over the
// same index values. The input img_colour and the output laplacian both start
// at 0, as in the trapeze pipeline. R and C (the image's rows and columns)
// are scalar inputs, as in trapeze. The spec pads the input with a 2-pixel
// zero border; here, as in trapeze's app, the image comes unpadded and the
// border is a boundary condition (BoundaryConditions::constant_exterior,
// read at (x - 2, y - 2)).
//
// Ghost zones: level l spans rows [0, R/2^l + 3] and columns [0, C/2^l + 3],
// and the pyramid stages are 0 outside their interior (trapeze `cases` with
// default 0): here a select() on the coordinates, marked likely as Halide's
// boundary conditions do. Halide evaluates both sides of a select and its
// bounds inference takes their union, so the interior formula reads its
// producer at the coordinate clamped to the interior (the same point where
// the value is used); this keeps every region inside the trapeze domains and
// every read inside the input.
//
// Arithmetic: the same operations in the same order as the trapeze app, each
// integer-to-float conversion written as a cast. strict_float() keeps LLVM
// from contracting or reassociating them (Halide's default float flags allow
// both), since the uint16 output is compared exactly; the exponential is
// libm's expf, as in trapeze's interpreter and JIT.
#include "Halide.h"

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

namespace {

using namespace Halide;

constexpr int kLevels = 8;      // L
constexpr int kIntensities = 8; // K

/// expf(x) from the C library. Halide's own exp() is a polynomial that can
/// differ from libm's in the last bit, which would change a few output
/// pixels; trapeze's interpreter and JIT both call expf. Halide scalarizes
/// the call when vectorized; it is only used for the 3585-entry LUT.
Expr libm_expf(const Expr& x) {
  return Internal::Call::make(Float(32), "expf", {x}, Internal::Call::PureExtern);
}

class LocalLaplacianGenerator : public Generator<LocalLaplacianGenerator> {
public:
  Input<Buffer<uint16_t>> img_colour{"img_colour", 3};
  Input<float> alpha{"alpha"};
  Input<float> beta{"beta"};
  /// The output's rows and columns (trapeze's size parameters R and C);
  /// scalars rather than the input's extents, so that a grown input (see
  /// call_grown) leaves the ghost zones where trapeze has them.
  Input<int> out_rows{"R"};
  Input<int> out_cols{"C"};
  Output<Buffer<uint16_t>> laplacian{"laplacian", 3};

  void generate() {
    R_ = out_rows;
    C_ = out_cols;

    const Func colour =
        BoundaryConditions::constant_exterior(img_colour, cast<uint16_t>(0), {{0, C_}, {0, R_}});
    img_(y, x) = strict_float((0.299f * cast<float>(colour(y - 2, x - 2, 2)) +
                               0.587f * cast<float>(colour(y - 2, x - 2, 1)) +
                               0.114f * cast<float>(colour(y - 2, x - 2, 0))) /
                              65535.0f);

    const int lut_half = 256 * (kIntensities - 1); // 1792
    const Expr fx = cast<float>(r) / 256.0f;
    remap_lut_(r) = strict_float(alpha * fx * libm_expf(-(fx * fx) / 2.0f));

    const Expr lvl = cast<float>(k) / static_cast<float>(kIntensities - 1);
    const Expr idx =
        clamp(cast<int32_t>(strict_float(img_(y, x) * static_cast<float>(lut_half))), 0, lut_half);
    g_pyramid0_(y, x, k) =
        strict_float(beta * (img_(y, x) - lvl) + lvl + remap_lut_(idx - 256 * k));

    // Gaussian pyramids of the input and of the remapped images.
    std::vector<Func> in_g = {img_}, g_p = {g_pyramid0_};
    for (int l = 1; l < kLevels; ++l) {
      in_g.push_back(down(in_g.back(), false, l, "inGPyramid"));
      g_p.push_back(down(g_p.back(), true, l, "gPyramid"));
    }

    // Laplacian pyramid of gPyramid: lPyramid_7 = gPyramid_7.
    std::vector<Func> l_p(kLevels, g_p.back());
    for (int l = kLevels - 2; l >= 0; --l)
      l_p[l] = up(g_p[l + 1], g_p[l], true, l, "Ux_lPyramid_L" + std::to_string(l),
                  "U_lPyramid_L" + std::to_string(l), -1.0f);

    // Output Laplacian pyramid: lPyramid interpolated between intensity levels.
    std::vector<Func> out_l;
    for (int l = 0; l < kLevels; ++l) {
      Func f("outLPyramid_L" + std::to_string(l));
      const Expr lev = strict_float(in_g[l](y, x) * static_cast<float>(kIntensities - 1));
      const Expr li = min(max(cast<int32_t>(lev), 0), kIntensities - 2);
      const Expr lf = strict_float(lev - cast<float>(li));
      f(y, x) = strict_float(l_p[l](y, x, li) * (1.0f - lf) + l_p[l](y, x, li + 1) * lf);
      out_l.push_back(f);
    }

    // Collapse: outG_7 = outL_7, outG_l = outL_l + up(outG_{l+1}).
    Func out_g = out_l.back();
    for (int l = kLevels - 2; l >= 0; --l) {
      const std::string ux =
          l > 0 ? "Ux_outGPyramid_L" + std::to_string(l) : std::string("Ux_result_ref_gray");
      const std::string u =
          l > 0 ? "outGPyramid_L" + std::to_string(l) : std::string("result_ref_gray");
      out_g = up(out_g, out_l[l], false, l, ux, u, 1.0f);
    }
    const Func result_ref_gray = out_g;

    // The output: the colour image rescaled by result_ref_gray / img, the
    // pyramids read at the interior offset (+2, +2).
    const Expr v = strict_float(result_ref_gray(y + 2, x + 2) *
                                (cast<float>(img_colour(y, x, c)) / 65535.0f + 0.01f) /
                                (img_(y + 2, x + 2) + 0.01f));
    laplacian(y, x, c) = cast<uint16_t>(strict_float(clamp(v, 0.0f, 1.0f) * 65535.0f));
  }

  void schedule() {
    // The benchmark's default size: a 2560 x 1536 x 3 image (R = 2560,
    // C = 1536), in and out.
    img_colour.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    alpha.set_estimate(1.0f / 7.0f);
    beta.set_estimate(1.0f);
    out_rows.set_estimate(2560);
    out_cols.set_estimate(1536);
    laplacian.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    if (auto_schedule) return;

    // The hand-written schedule. Each pyramid level (the Gaussian levels of
    // the input and of the remapped images, the Laplacian levels, the
    // collapsed levels) is computed once (compute_root) in strips of rows,
    // the strips (and the intensity levels k) in parallel, vectorized along
    // the contiguous columns; each level's row pass (Dx_, Ux_) is computed
    // per strip of the column pass that reads it, so it stays in cache. The
    // grey image and the remapped images gPyramid_L0 (each read by two
    // levels) are computed once in strips too; outLPyramid (point-wise) is
    // inlined into the collapse; the finest collapse level
    // (result_ref_gray) is computed per strip of the output.
    const int vec = natural_vector_size<float>();
    remap_lut_.compute_root(); // 3585 scalar expf calls
    schedule_strips(img_, false, 32, vec);
    schedule_strips(g_pyramid0_, true, 32, vec);
    // Every level but the last one defined (result_ref_gray, per strip of
    // the output, below).
    for (std::size_t i = 0; i + 1 < levels_.size(); ++i) {
      const Level& level = levels_[i];
      Func column_pass = level.column_pass, row_pass = level.row_pass;
      const int strip = std::max(32 >> level.l, 4);
      const Var t = schedule_strips(column_pass, level.has_k, strip, vec);
      row_pass.compute_at(column_pass, t).vectorize(y, vec);
    }
    Var xo("xo"), xi("xi");
    laplacian.split(x, xo, xi, 32, TailStrategy::GuardWithIf)
        .reorder(y, c, xi, xo)
        .parallel(xo)
        .vectorize(y, vec);
    Func finest = levels_.back().column_pass, finest_rows = levels_.back().row_pass;
    finest.compute_at(laplacian, xo).vectorize(y, vec);
    finest_rows.compute_at(laplacian, xo).vectorize(y, vec);
  }

private:
  Var x{"x"}, y{"y"}, k{"k"}, c{"c"}, r{"r"};
  Expr R_, C_;
  Func img_{"img"}, remap_lut_{"remapLUT"}, g_pyramid0_{"gPyramid_L0"};

  /// The two stages of one down- or up-sampling (for the schedule).
  struct Level {
    int l = 0;
    bool has_k = false;
    Func row_pass, column_pass;
  };
  std::vector<Level> levels_; // in order of definition; result_ref_gray last

  Expr rows(int l) const { return R_ / (1 << l); }
  Expr cols(int l) const { return C_ / (1 << l); }

  /// f(y, x) or f(y, x, k) at (yi, xi).
  Expr at(const Func& f, bool has_k, const Expr& yi, const Expr& xi) const {
    return has_k ? f(yi, xi, k) : f(yi, xi);
  }
  void define(Func& f, bool has_k, const Expr& value) const {
    if (has_k) {
      f(y, x, k) = value;
    } else {
      f(y, x) = value;
    }
  }

  /// `value` (the interior formula) on the interior, columns [2, n_cols + 1]
  /// and rows [2, n_rows + 1], and 0 outside it. Both are likely, as in
  /// Halide's boundary conditions, so that loop partitioning gives the
  /// interior a loop without the select.
  Expr zero_outside(const Expr& value, const Expr& n_rows, const Expr& n_cols) const {
    const Expr outside = x < 2 || x > n_rows + 1 || y < 2 || y > n_cols + 1;
    return select(outside, 0.0f, likely(value));
  }
  /// The coordinate v clamped to the interior [2, n + 1] along the
  /// filtered dimension. It is v itself wherever the interior formula's
  /// value is used; the clamp keeps the formula's taps (evaluated
  /// everywhere by select) inside the producer's domain, so that bounds
  /// inference never reaches beyond the input.
  static Expr interior(const Expr& v, const Expr& n) { return clamp(likely(v), 2, n + 1); }

  /// down_l(f): Dx_<name>_Ll along rows, then D_<name>_Ll along columns, the
  /// [1 3 3 1]/8 filter at 2(i-1)-1 .. 2(i-1)+2.
  Func down(const Func& f, bool has_k, int l, const std::string& name) {
    const std::string suffix = name + "_L" + std::to_string(l);
    const auto taps = [](const std::function<Expr(Expr)>& g, const Expr& i) {
      return strict_float((g(2 * (i - 1) - 1) + 3.0f * g(2 * (i - 1)) + 3.0f * g(2 * (i - 1) + 1) +
                           g(2 * (i - 1) + 2)) *
                          0.125f);
    };
    Func dx("Dx_" + suffix);
    const Expr xi = interior(x, rows(l));
    define(dx, has_k,
           zero_outside(taps([&](const Expr& i) { return at(f, has_k, y, i); }, xi), rows(l),
                        cols(l - 1)));
    Func d("D_" + suffix);
    const Expr yi = interior(y, cols(l));
    define(d, has_k,
           zero_outside(taps([&](const Expr& i) { return at(dx, has_k, i, x); }, yi), rows(l),
                        cols(l)));
    levels_.push_back({l, has_k, dx, d});
    return d;
  }

  /// Up-sampling of `coarse` (level l+1) to level l, combined with `base`
  /// (level l): base + sign * up-cols(up-rows(coarse)) on the interior.
  Func up(const Func& coarse, const Func& base, bool has_k, int l, const std::string& ux_name,
          const std::string& u_name, float sign) {
    const auto upsample = [](const std::function<Expr(Expr)>& g, const Expr& i) {
      const Expr even = 0.25f * g(i / 2) + 0.75f * g(i / 2 + 1);
      const Expr odd = 0.25f * g(i / 2 + 2) + 0.75f * g(i / 2 + 1);
      return select(i % 2 == 0, even, odd);
    };
    Func ux(ux_name);
    const Expr xi = interior(x, rows(l));
    define(ux, has_k,
           zero_outside(
               strict_float(upsample([&](const Expr& i) { return at(coarse, has_k, y, i); }, xi)),
               rows(l), cols(l + 1)));
    const Expr b = at(base, has_k, y, x);
    const Expr yi = interior(y, cols(l));
    const Expr upsampled = upsample([&](const Expr& i) { return at(ux, has_k, i, x); }, yi);
    Func u(u_name);
    define(u, has_k,
           zero_outside(strict_float(sign > 0 ? b + upsampled : b - upsampled), rows(l), cols(l)));
    levels_.push_back({l, has_k, ux, u});
    return u;
  }

  /// compute_root `f` in strips of `strip` rows, the strips (and k) in
  /// parallel, columns vectorized. Returns the parallel loop's variable.
  Var schedule_strips(Func f, bool has_k, int strip, int vec) const {
    Var xo("xo"), xi("xi"), t("t");
    f.compute_root().split(x, xo, xi, strip, TailStrategy::GuardWithIf).vectorize(y, vec);
    if (has_k) {
      f.fuse(xo, k, t).parallel(t);
      return t;
    }
    f.parallel(xo);
    return xo;
  }
};

} // namespace

HALIDE_REGISTER_GENERATOR(LocalLaplacianGenerator, local_laplacian)
