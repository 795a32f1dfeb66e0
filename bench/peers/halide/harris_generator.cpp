// harris (benchmarks.md section 2) in Halide 14, for trapeze bench.
//
// Coordinates: trapeze's harris is f(x, y) with x the row (outer) and y the
// column (contiguous); Halide lists the innermost dimension first, so every
// Func here is f(y, x) over the same index values. Input and output both
// start at (0, 0) and cover [0, R+1] x [0, C+1], as in the trapeze pipeline.
//
// Boundary handling: every trapeze stage is `x.in(lo, hi) && y.in(lo, hi) ?
// value : 0` on its interior (I1 or I2); here that is a select() on the
// coordinates. Halide's bounds inference does not look at select conditions,
// so the reads of the value branch reach up to 2 pixels past the image on
// the border; the image is therefore read through repeat_edge, which changes
// nothing inside the interiors (where all reads are in bounds, as in
// trapeze) and only feeds the discarded branch outside them. The value
// branches are marked likely() so that Halide peels the border off the
// loops instead of testing the condition at every point.
#include "Halide.h"

namespace {

using namespace Halide;

class HarrisGenerator : public Generator<HarrisGenerator> {
public:
  Input<Buffer<float>> img{"img", 2};
  // trapeze's size parameters (the image is [R+2][C+2]), passed rather than
  // taken from img's extents so that the interiors stay those of the real
  // image when the peer runs the pipeline on a grown copy (call_grown).
  Input<int> R{"R", 2830};
  Input<int> C{"C", 4254};
  Output<Buffer<float>> harris{"harris", 2};

  void generate() {
    const Expr I1 = x >= 1 && x <= R && y >= 1 && y <= C;
    const Expr I2 = x >= 2 && x <= R - 1 && y >= 2 && y <= C - 1;
    // strict_float: IEEE evaluation in the order written, without fused
    // multiply-adds, as trapeze's generated code (-ffp-contract=off).
    const auto interior = [](const Expr& in, const Expr& value) {
      return select(in, likely(strict_float(value)), 0.0f);
    };
    const auto box = [&](const Func& f) {
      return f(y - 1, x - 1) + f(y, x - 1) + f(y + 1, x - 1) + f(y - 1, x) + f(y, x) + f(y + 1, x) +
             f(y - 1, x + 1) + f(y, x + 1) + f(y + 1, x + 1);
    };
    Func in = BoundaryConditions::repeat_edge(img);

    // The Sobel terms in the order the spec writes them (trapeze's order).
    Iy(y, x) = interior(I1, (-in(y - 1, x - 1) + in(y + 1, x - 1) - 2.0f * in(y - 1, x) +
                             2.0f * in(y + 1, x) - in(y - 1, x + 1) + in(y + 1, x + 1)) /
                                12.0f);
    Ix(y, x) = interior(I1, (-in(y - 1, x - 1) - 2.0f * in(y, x - 1) - in(y + 1, x - 1) +
                             in(y - 1, x + 1) + 2.0f * in(y, x + 1) + in(y + 1, x + 1)) /
                                12.0f);
    Ixx(y, x) = interior(I1, Ix(y, x) * Ix(y, x));
    Iyy(y, x) = interior(I1, Iy(y, x) * Iy(y, x));
    Ixy(y, x) = interior(I1, Ix(y, x) * Iy(y, x));
    Sxx(y, x) = interior(I2, box(Ixx));
    Syy(y, x) = interior(I2, box(Iyy));
    Sxy(y, x) = interior(I2, box(Ixy));
    det(y, x) = interior(I2, Sxx(y, x) * Syy(y, x) - Sxy(y, x) * Sxy(y, x));
    trace(y, x) = interior(I2, Sxx(y, x) + Syy(y, x));
    harris(y, x) = interior(I2, det(y, x) - 0.04f * trace(y, x) * trace(y, x));
  }

  void schedule() {
    // The benchmark's default size: the 2832 x 4256 image is input and output.
    img.set_estimates({{0, 4256}, {0, 2832}});
    R.set_estimate(2830);
    C.set_estimate(4254);
    harris.set_estimates({{0, 4256}, {0, 2832}});
    if (auto_schedule) return;
    // The schedule an expert writes: strips of 32 rows in parallel; in a
    // strip, line buffers (store_at the strip, compute_at the row, so that
    // Halide slides them and folds their storage to a few rows): per output
    // row one new row of Ix and Iy, and of the products Ixx, Iyy, Ixy that
    // the 3 x 3 sums read; the sums, det and trace are inlined into harris.
    // Everything is vectorized across columns.
    const int vec = natural_vector_size<float>();
    Var xo("xo"), xi("xi");
    harris.split(x, xo, xi, 32).parallel(xo).vectorize(y, vec);
    for (Func f : {Ix, Iy, Ixx, Iyy, Ixy})
      f.store_at(harris, xo).compute_at(harris, xi).vectorize(y, vec);
  }

private:
  Var x{"x"}, y{"y"};
  Func Ix{"Ix"}, Iy{"Iy"}, Ixx{"Ixx"}, Iyy{"Iyy"}, Ixy{"Ixy"};
  Func Sxx{"Sxx"}, Syy{"Syy"}, Sxy{"Sxy"}, det{"det"}, trace{"trace"};
};

} // namespace

HALIDE_REGISTER_GENERATOR(HarrisGenerator, harris)
