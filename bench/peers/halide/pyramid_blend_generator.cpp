// pyramid_blend (benchmarks.md section 5) in Halide 14, for trapeze bench.
//
// Coordinates: trapeze's stages are f(c, x, y) (colour) or f(x, y) (the
// mask's), x the row and y the contiguous column; Halide lists the innermost
// dimension first, so every Func here is f(y, x, c) or f(y, x) over the same
// index values: the spec's padded coordinates, where the image starts at
// (31, 31). The inputs are the unpadded images (and mask), read through
// BoundaryConditions::repeat_edge over the extents passed as `rows` and
// `cols` (not the buffers', which bench grows for small sizes), shifted by
// 31, as trapeze's boundary::repeat_edge; the output `blend` starts at
// (c, x, y) = (0, 31, 31), as in the trapeze pipeline.
//
// Domains: trapeze defines each stage on a box and proves every read inside
// its producer's box; Halide's Funcs are unbounded, so the same formulas give
// the same values wherever trapeze reads them. The up-sampling stages' even
// and odd formulas (trapeze Cases on the parity, the even one starting at the
// first even point of the odd-bounded domain, which inside the domain is just
// "v is even") become a select() on the parity. Halide's bounds inference
// takes the union of both branches, which widens the regions computed by a
// pixel or two; the boundary condition keeps every input read in bounds.
#include "Halide.h"

#include <string>
#include <vector>

namespace {

using namespace Halide;

constexpr int kLevels = 4;

class PyramidBlendGenerator : public Generator<PyramidBlendGenerator> {
public:
  Input<Buffer<float>> img1{"img1", 3};
  Input<Buffer<float>> img2{"img2", 3};
  Input<Buffer<float>> mask{"mask", 2};
  Input<int> rows{"rows"}, cols{"cols"}; // the images' extents
  Output<Buffer<float>> blend{"blend", 3};

  void generate() {
    g1_ = gaussian(input(img1), true, "img1");
    g2_ = gaussian(input(img2), true, "img2");
    gm_ = gaussian(input(mask), false, "mask");
    lap1_ = laplacian(g1_, "img1");
    lap2_ = laplacian(g2_, "img2");

    // Res_l = Lap1_l * M_l + Lap2_l * (1 - M_l).
    for (int l = 0; l < kLevels; ++l) {
      Func res("Res_" + std::to_string(l));
      const Func& m = gm_[l];
      res(y, x, c) = lap1_[l](y, x, c) * m(y, x) + lap2_[l](y, x, c) * (1.0f - m(y, x));
      res_.push_back(res);
    }

    // Collapse: Out_3 = Res_3, Out_l = Res_l + up-sampled Out_{l+1}; Out_0 is
    // the output.
    Func out = res_.back();
    for (int l = kLevels - 2; l >= 0; --l) {
      const std::string name = l == 0 ? "blend" : "Col_" + std::to_string(l);
      Func up_rows = upsample_rows(name + "_x", out);
      collapse_x_.push_back(up_rows);
      const Expr value = res_[l](y, x, c) + upsample_cols(up_rows, y);
      if (l == 0) {
        blend(y, x, c) = value;
      } else {
        Func col(name);
        col(y, x, c) = value;
        collapse_.push_back(col);
        out = col;
      }
    }
  }

  void schedule() {
    // The benchmark's default size: a 2160 x 3840 x 3 image; the output
    // covers it at [31, 2190] x [31, 3870].
    img1.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    img2.set_estimates({{0, 3840}, {0, 2160}, {0, 3}});
    mask.set_estimates({{0, 3840}, {0, 2160}});
    rows.set_estimate(2160);
    cols.set_estimate(3840);
    blend.set_estimates({{31, 3840}, {31, 2160}, {0, 3}});
    if (auto_schedule) return;

    // The hand-written schedule: every pyramid level a Gaussian or collapse
    // level is computed once (compute_root) in strips of rows, the strips of
    // all channels in parallel, vectorized along the contiguous columns; the
    // row pass of each down- or up-sampling (Dx_l, Ux_l, Col_l_x, blend_x) is
    // computed per strip of the column pass that reads it, so it stays in
    // cache. The point-wise stages (the Laplacian levels Uy_l and the blends
    // Res_l) are inlined into the collapse stage that reads them.
    const int vec = natural_vector_size<float>();
    // The inputs in the pyramid's coordinates (the boundary condition) once,
    // in strips of rows: what the padded images were when the harness passed
    // them. Inlined, each clamped read of the first down-sampling and of the
    // finest Laplacian would be computed where it is read, in every pass.
    for (Func g : {g1_[0], g2_[0], gm_[0]}) {
      Var xo("xo"), xi("xi");
      g.compute_root().split(x, xo, xi, 32).parallel(xo).vectorize(y, vec);
    }
    for (int l = 1; l < kLevels; ++l) {
      // Coarser levels have fewer rows: keep some strips per thread.
      const int strip = 32 >> (l - 1);
      for (Func g : {g1_[l], g2_[l], gm_[l]})
        g.compute_root();
      schedule_level(g1_[l], dx1_[l - 1], true, strip, vec);
      schedule_level(g2_[l], dx2_[l - 1], true, strip, vec);
      schedule_level(gm_[l], dxm_[l - 1], false, strip, vec);
    }
    // Col_2 (level 2) and Col_1 (level 1), with their row passes and the
    // Laplacian's row passes of both images at the same level.
    for (int i = 0; i < static_cast<int>(collapse_.size()); ++i) {
      const int l = kLevels - 2 - i;
      const int strip = 32 >> l;
      collapse_[i].compute_root();
      const Var t = schedule_level(collapse_[i], collapse_x_[i], true, strip, vec);
      ux1_[l].compute_at(collapse_[i], t).vectorize(y, vec);
      ux2_[l].compute_at(collapse_[i], t).vectorize(y, vec);
    }
    // The output (level 0): strips of 32 rows.
    const Var t = schedule_level(blend, collapse_x_.back(), true, 32, vec);
    ux1_[0].compute_at(blend, t).vectorize(y, vec);
    ux2_[0].compute_at(blend, t).vectorize(y, vec);
  }

private:
  Var x{"x"}, y{"y"}, c{"c"};
  std::vector<Func> g1_, g2_, gm_;          // Gaussian pyramids: [0] the input, [l] = Dy_l
  std::vector<Func> dx1_, dx2_, dxm_;       // Dx_1..Dx_3 per input
  std::vector<Func> ux1_, ux2_;             // Ux_0..Ux_2 per image
  std::vector<Func> lap1_, lap2_;           // Lap_0..Lap_2 = Uy_l, Lap_3 = G_3
  std::vector<Func> res_;                   // Res_0..Res_3
  std::vector<Func> collapse_, collapse_x_; // Col_2, Col_1; Col_2_x, Col_1_x, blend_x

  /// The input as a Func of the same dimensions (a colour input keeps c).
  /// The input in the pyramid's coordinates: clamped to the image's edges,
  /// the image at (31, 31).
  Func input(const Input<Buffer<float>>& b) const {
    const Func clamped = BoundaryConditions::repeat_edge(b, {{0, cols}, {0, rows}});
    Func g(b.name() + "_padded");
    if (b.dimensions() == 3) {
      g(y, x, c) = clamped(y - 31, x - 31, c);
    } else {
      g(y, x) = clamped(y - 31, x - 31);
    }
    return g;
  }

  /// f read along x (a column) or along y (a row) at index v, the other
  /// coordinates being this stage's own.
  Expr at_x(const Func& f, bool colour, const Expr& v) const {
    return colour ? f(y, v, c) : f(y, v);
  }
  Expr at_y(const Func& f, bool colour, const Expr& v) const {
    return colour ? f(v, x, c) : f(v, x);
  }

  /// The 5-tap binomial at 2v-2 .. 2v+2, summed in the spec's order.
  template <typename Read> static Expr downsample(Read g, const Expr& v) {
    return (g(2 * v - 2) + 4.0f * g(2 * v - 1) + 6.0f * g(2 * v) + 4.0f * g(2 * v + 1) +
            g(2 * v + 2)) *
           0.0625f;
  }

  /// Up-sampling at v: the even formula where v is even, the odd elsewhere.
  template <typename Read> static Expr upsample(Read g, const Expr& v) {
    const Expr even = (g(v / 2 - 1) + 6.0f * g(v / 2) + g(v / 2 + 1)) * 0.125f;
    const Expr odd = (4.0f * g((v - 1) / 2) + 4.0f * g((v + 1) / 2)) * 0.125f;
    return select(v % 2 == 0, even, odd);
  }

  /// G_0 = the input, G_l = Dy_l (l = 1..3); the Dx_l go to dx1_/dx2_/dxm_.
  std::vector<Func> gaussian(const Func& input, bool colour, const std::string& suffix) {
    std::vector<Func>& dx_list = suffix == "img1" ? dx1_ : suffix == "img2" ? dx2_ : dxm_;
    std::vector<Func> g = {input};
    for (int l = 1; l < kLevels; ++l) {
      const std::string level = std::to_string(l);
      Func dx("Dx_" + level + "_" + suffix), dy("Dy_" + level + "_" + suffix);
      const Func prev = g.back();
      const Expr dx_value = downsample([&](const Expr& v) { return at_x(prev, colour, v); }, x);
      if (colour) {
        dx(y, x, c) = dx_value;
      } else {
        dx(y, x) = dx_value;
      }
      const Expr dy_value = downsample([&](const Expr& v) { return at_y(dx, colour, v); }, y);
      if (colour) {
        dy(y, x, c) = dy_value;
      } else {
        dy(y, x) = dy_value;
      }
      dx_list.push_back(dx);
      g.push_back(dy);
    }
    return g;
  }

  /// Lap_l = Uy_l = G_l - column up-sampling of Ux_l (l = 0..2), Lap_3 = G_3.
  std::vector<Func> laplacian(const std::vector<Func>& g, const std::string& suffix) {
    std::vector<Func>& ux_list = suffix == "img1" ? ux1_ : ux2_;
    std::vector<Func> lap;
    for (int l = 0; l + 1 < kLevels; ++l) {
      const std::string level = std::to_string(l);
      Func ux = upsample_rows("Ux_" + level + "_" + suffix, g[l + 1]);
      Func uy("Uy_" + level + "_" + suffix);
      uy(y, x, c) = g[l](y, x, c) - upsample_cols(ux, y);
      ux_list.push_back(ux);
      lap.push_back(uy);
    }
    lap.push_back(g.back());
    return lap;
  }

  /// The row up-sampling of a colour stage `coarse`.
  Func upsample_rows(const std::string& name, const Func& coarse) const {
    Func f(name);
    f(y, x, c) = upsample([&](const Expr& v) { return coarse(y, v, c); }, x);
    return f;
  }
  /// The column up-sampling of a colour stage `fine_rows` at column v.
  Expr upsample_cols(const Func& fine_rows, const Expr& v) const {
    return upsample([&](const Expr& i) { return fine_rows(i, x, c); }, v);
  }

  /// Splits `f` (computed at the root) into strips of `strip` rows, the strips (of every
  /// channel) in parallel, columns vectorized; `rows_pass` is computed per
  /// strip. Returns the parallel loop's variable.
  Var schedule_level(Func f, Func rows_pass, bool colour, int strip, int vec) {
    Var xo("xo"), xi("xi"), t("t");
    f.split(x, xo, xi, strip, TailStrategy::GuardWithIf).vectorize(y, vec);
    if (colour) {
      f.fuse(xo, c, t).parallel(t);
    } else {
      t = xo;
      f.parallel(xo);
    }
    rows_pass.compute_at(f, t).vectorize(y, vec);
    return t;
  }
};

} // namespace

HALIDE_REGISTER_GENERATOR(PyramidBlendGenerator, pyramid_blend)
