// bilateral_grid (benchmarks.md section 3) in Halide 14, for trapeze bench.
//
// Coordinates: trapeze's stages are grid(c, X, Y, z), interpolated(c, x, y)
// and filtered(x, y), with x (X) the row, y (Y) the column and the last
// dimension contiguous; Halide lists the innermost dimension first, so here
// they are grid(z, Y, X, c), interpolated(y, x, c) and filtered(y, x) over
// the same index values. The input (the unpadded image) and the output start
// at (0, 0); the histogram reads the input through
// BoundaryConditions::repeat_edge over the extents passed as `rows` and
// `cols` (not the buffer's, which bench grows for small sizes), as trapeze's
// boundary::repeat_edge.
//
// Domains: the grid stages are pure in X, Y (and c, z), so Halide computes
// them over what their consumers need, which is exactly trapeze's domains
// (filtered's rows [0, R-1] need blury's X in [0, (R-1)/8+1], and so on).
// The data-dependent indices (the histogram bin written, the z read by the
// interpolation) are clamped into the producer's domain, as trapeze does.
#include "Halide.h"

namespace {

using namespace Halide;

class BilateralGridGenerator : public Generator<BilateralGridGenerator> {
public:
  Input<Buffer<float>> input{"input", 2};
  Input<int> rows{"rows"}, cols{"cols"}; // the image's extents
  Output<Buffer<float>> filtered{"filtered", 2};

  void generate() {
    // The histogram: for every cell (X, Y), the 9 x 9 samples with rx
    // outer and ry inner (r.y is rx, r.x is ry: an RDom's first dimension
    // is innermost), as trapeze's reduction order; channel 0 sums the
    // values, channel 1 counts them.
    r = RDom(0, 9, 0, 9, "r");
    clamped = BoundaryConditions::repeat_edge(input, {{0, cols}, {0, rows}});
    const Expr sample = clamped(8 * Y - 4 + r.x, 8 * X - 4 + r.y);
    // strict_float (here and below): IEEE evaluation in the order written,
    // without fused multiply-adds, as trapeze's generated code
    // (-ffp-contract=off); a fused 10v + 0.5 could put a sample in another bin.
    const Expr bin = clamp(2 + cast<int>(strict_float(10.0f * sample + 0.5f)), 0, 14);
    grid(z, Y, X, c) = 0.0f;
    grid(bin, Y, X, c) += select(c == 0, sample, 1.0f);

    // The unnormalised 1 4 6 4 1 taps, summed in the spec's order.
    const auto taps = [](const Expr& m2, const Expr& m1, const Expr& c0, const Expr& p1,
                         const Expr& p2) {
      return strict_float(m2 + 4.0f * m1 + 6.0f * c0 + 4.0f * p1 + p2);
    };
    blurz(z, Y, X, c) = taps(grid(z - 2, Y, X, c), grid(z - 1, Y, X, c), grid(z, Y, X, c),
                             grid(z + 1, Y, X, c), grid(z + 2, Y, X, c));
    blurx(z, Y, X, c) = taps(blurz(z, Y, X - 2, c), blurz(z, Y, X - 1, c), blurz(z, Y, X, c),
                             blurz(z, Y, X + 1, c), blurz(z, Y, X + 2, c));
    blury(z, Y, X, c) = taps(blurx(z, Y - 2, X, c), blurx(z, Y - 1, X, c), blurx(z, Y, X, c),
                             blurx(z, Y + 1, X, c), blurx(z, Y + 2, X, c));

    // Trilinear interpolation: along X for the four (Y, z) corners, then
    // along Y, then along z, with trapeze's lerp (not Halide's lerp, which
    // weighs a * (1 - w) + b * w). The z index is clamped into blury's
    // [2, 12].
    const Expr zv = 10.0f * input(y, x);
    const Expr zi = cast<int>(zv);
    const Expr zf = zv - cast<float>(zi);
    const Expr xi = x / 8, yi = y / 8;
    const Expr xf = cast<float>(x % 8) / 8.0f, yf = cast<float>(y % 8) / 8.0f;
    const auto mix = [](const Expr& a, const Expr& b, const Expr& w) { return a + w * (b - a); };
    const auto along_x = [&](int dy, int dz) {
      const Expr zz = clamp(2 + zi + dz, 2, 12);
      return mix(blury(zz, yi + dy, xi, c), blury(zz, yi + dy, xi + 1, c), xf);
    };
    const auto along_y = [&](int dz) { return mix(along_x(0, dz), along_x(1, dz), yf); };
    interpolated(y, x, c) = strict_float(mix(along_y(0), along_y(1), zf));

    filtered(y, x) = strict_float(select(
        interpolated(y, x, 1) > 0.0f, interpolated(y, x, 0) / interpolated(y, x, 1), input(y, x)));
  }

  void schedule() {
    // The benchmark's default size: a 2560 x 1536 image, in and out.
    input.set_estimates({{0, 1536}, {0, 2560}});
    rows.set_estimate(2560);
    cols.set_estimate(1536);
    filtered.set_estimates({{0, 1536}, {0, 2560}});
    if (auto_schedule) return;
    // The schedule an expert writes: the grid stages in two passes over the
    // grid's rows X, both parallel over X. Pass 1 (blurz at root): per row
    // X, the histogram of that row (grid, 24 KB, stays in cache; its update
    // is pure in X, Y and c, the two channels unrolled) and its blur along
    // z. Pass 2 (blury at root): per row X, blurx (which reads blurz's rows
    // X-2..X+2) and blury. The blurs are vectorized along z (11 bins: two
    // overlapping vectors), z and c stored innermost. The slicing
    // (interpolated, inlined) and the division are computed in strips of 8
    // rows in parallel, vectorized across columns (the blury reads become
    // gathers).
    const int vec = natural_vector_size<float>();
    for (Func f : {grid, blurz, blurx, blury})
      f.bound(c, 0, 2).reorder_storage(z, c, Y, X);
    blurz.compute_root().reorder(z, c, Y, X).parallel(X).vectorize(z, vec);
    grid.compute_at(blurz, X).reorder(z, c, Y, X).vectorize(z, vec);
    grid.update().reorder(c, r.x, r.y, Y, X).unroll(c);
    blury.compute_root().reorder(z, c, Y, X).parallel(X).vectorize(z, vec);
    blurx.compute_at(blury, X).reorder(z, c, Y, X).vectorize(z, vec);
    Var xo("xo"), xi("xi");
    filtered.split(x, xo, xi, 8).parallel(xo).vectorize(y, vec);
  }

private:
  RDom r; // the histogram's samples (made in generate(), scheduled in schedule())
  Var c{"c"}, x{"x"}, y{"y"}, z{"z"}, X{"X"}, Y{"Y"};
  Func clamped{"clamped"}, grid{"grid"}, blurz{"blurz"}, blurx{"blurx"}, blury{"blury"},
      interpolated{"interpolated"};
};

} // namespace

HALIDE_REGISTER_GENERATOR(BilateralGridGenerator, bilateral_grid)
