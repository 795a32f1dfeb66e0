// interpolate (benchmarks.md section 6, 10 levels) in Halide 14, for trapeze
// bench.
//
// Coordinates: trapeze's stages are f(c, x, y) with c the channel
// (outermost), x the row and y the column (contiguous); Halide lists the
// innermost dimension first, so every Func here is f(y, x, c) over the same
// index values. The input [4][R][C] and the output [3][R][C] start at 0,
// as in the trapeze pipeline. The spec's input is the image inside a 1-pixel
// zero ring; here, as in trapeze's app, the image comes unpadded and the ring
// is a boundary condition (BoundaryConditions::constant_exterior, read at
// (x - 1, y - 1)).
//
// Domains: trapeze's bordered stages (a case on the interior x in [1, Rl],
// y in [1, Cl], default 0 elsewhere) are select()s on the coordinates. Halide
// evaluates the interior formula on the border lines too (and discards it),
// which reads the previous level two points beyond its domain; the only
// stage that reads an input, downsampled_L0, reads the image through the
// boundary condition, which is 0 there as the ring is.
#include "Halide.h"

#include <string>
#include <vector>

namespace {

using namespace Halide;

constexpr int kLevels = 10;

class InterpolateGenerator : public Generator<InterpolateGenerator> {
public:
  Input<Buffer<float>> img{"img", 3};
  Output<Buffer<float>> interpolate{"interpolate", 3};

  void generate() {
    const Expr R = img.dim(1).extent(), C = img.dim(0).extent();
    // N / 2^l, floor division as in trapeze (non-negative here).
    const auto at_level = [](const Expr& n, int l) { return l == 0 ? n : n / (1 << l); };
    // `value` on the interior [1, rows] x [1, cols], 0 on the border lines.
    const auto bordered = [&](Func f, const Expr& rows, const Expr& cols, const Expr& value) {
      f(y, x, c) = select(x >= 1 && x <= rows && y >= 1 && y <= cols, value, 0.0f);
    };

    const Func in = BoundaryConditions::constant_exterior(
        img, 0.0f,
        {{img.dim(0).min(), img.dim(0).extent()}, {img.dim(1).min(), img.dim(1).extent()}});
    D.emplace_back("downsampled_L0");
    D[0](y, x, c) = in(y - 1, x - 1, c) * in(y - 1, x - 1, 3);

    for (int l = 1; l < kLevels; ++l) {
      const Func prev = D.back();
      const std::string level = std::to_string(l);
      Dx.emplace_back("Dx_" + level);
      bordered(Dx.back(), at_level(R, l), at_level(C, l - 1),
               (prev(y, 2 * x - 2, c) + 2.0f * prev(y, 2 * x - 1, c) + prev(y, 2 * x, c)) * 0.25f);
      const Func dx = Dx.back();
      D.emplace_back("D_" + level);
      bordered(D.back(), at_level(R, l), at_level(C, l),
               (dx(2 * y - 2, x, c) + 2.0f * dx(2 * y - 1, x, c) + dx(2 * y, x, c)) * 0.25f);
    }

    // Ux[l] and interp[l] belong to level l (0..8); interp[9] is D_9.
    Ux.resize(kLevels - 1);
    interp.resize(kLevels);
    interp[kLevels - 1] = D.back();
    for (int l = kLevels - 2; l >= 0; --l) {
      const std::string level = std::to_string(l);
      const Func coarse = interp[static_cast<std::size_t>(l + 1)];
      Func& ux = Ux[static_cast<std::size_t>(l)];
      ux = Func("Ux_interpolated_L" + level);
      bordered(ux, at_level(R, l), at_level(C, l + 1),
               (coarse(y, (x + 1) / 2, c) + coarse(y, (x + 2) / 2, c)) / 2.0f);
      const Func& d = D[static_cast<std::size_t>(l)];
      Func& fine = interp[static_cast<std::size_t>(l)];
      fine = Func("interpolated_L" + level);
      bordered(fine, at_level(R, l), at_level(C, l),
               d(y, x, c) +
                   (1.0f - d(y, x, 3)) * (ux((y + 1) / 2, x, c) + ux((y + 2) / 2, x, c)) / 2.0f);
    }

    interpolate(y, x, c) = interp[0](y + 1, x + 1, c) / interp[0](y + 1, x + 1, 3);
  }

  void schedule() {
    // The benchmark's default size: a 2560 x 1536 image (input [4][2560][1536]).
    img.set_estimates({{0, 1536}, {0, 2560}, {0, 4}});
    interpolate.set_estimates({{0, 1536}, {0, 2560}, {0, 3}});
    if (auto_schedule) return;

    // The schedule an expert writes for a pyramid: every level computed once
    // over its whole extent (compute_root), rows split into strips processed
    // in parallel, the four channels of a row together, vectorized across
    // columns. Each separable intermediate (Dx_l for D_l, the row upsample
    // Ux for interpolated_l) is computed per strip of its consumer, so it
    // stays in cache. The finest level is fused into the output: per strip
    // of output rows, interpolated_L0 (all four channels, the alpha channel
    // being the divisor) and its Ux; downsampled_L0 is a product of two
    // image values, inlined into its readers.
    const int vec = natural_vector_size<float>();
    Var xo("xo"), xi("xi");
    const auto strips = [&](Func f, int rows) {
      f.reorder(y, c, x).split(x, xo, xi, rows).parallel(xo).vectorize(y, vec);
    };
    interpolate.bound(c, 0, 3);
    strips(interpolate, 16);
    for (int l = 1; l < kLevels; ++l) {
      Func d = D[static_cast<std::size_t>(l)];
      d.compute_root().bound(c, 0, 4);
      strips(d, 8);
      Dx[static_cast<std::size_t>(l - 1)].compute_at(d, xo).reorder(y, c, x).vectorize(y, vec);
    }
    for (int l = 0; l < kLevels - 1; ++l) {
      Func fine = interp[static_cast<std::size_t>(l)];
      Func ux = Ux[static_cast<std::size_t>(l)];
      if (l == 0) {
        fine.compute_at(interpolate, xo).bound(c, 0, 4).reorder(y, c, x).vectorize(y, vec);
        ux.compute_at(interpolate, xo).reorder(y, c, x).vectorize(y, vec);
      } else {
        fine.compute_root().bound(c, 0, 4);
        strips(fine, 8);
        ux.compute_at(fine, xo).reorder(y, c, x).vectorize(y, vec);
      }
    }
  }

private:
  Var c{"c"}, x{"x"}, y{"y"};
  std::vector<Func> D, Dx, Ux, interp;
};

} // namespace

HALIDE_REGISTER_GENERATOR(InterpolateGenerator, interpolate)
