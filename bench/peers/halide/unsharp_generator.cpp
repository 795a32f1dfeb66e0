// unsharp (benchmarks.md section 1) in Halide 14, for trapeze bench.
//
// Coordinates: trapeze's unsharp is f(c, x, y) with c the channel (outer), x
// the row and y the column (contiguous); Halide lists the innermost dimension
// first, so every Func here is f(y, x, c) over the same index values. The
// input and the output `mask` start at (0, 0, 0), as in the trapeze
// pipeline; the image is unpadded, and the blur reads zeros beyond its edges
// (BoundaryConditions::constant_exterior over rows and columns, as trapeze's
// boundary::constant_exterior).
#include "Halide.h"

namespace {

using namespace Halide;

class UnsharpGenerator : public Generator<UnsharpGenerator> {
public:
  Input<Buffer<float>> img{"img", 3};
  Input<float> threshold{"threshold", 0.001f};
  Input<float> weight{"weight", 3.0f};
  Output<Buffer<float>> mask{"mask", 3};

  void generate() {
    // The taps summed left to right and multiplied by 0.0625f, as trapeze's.
    // strict_float: IEEE evaluation in the order written, without fused
    // multiply-adds, as trapeze's generated code (-ffp-contract=off); mask's
    // threshold test would otherwise flip at a few points.
    padded = BoundaryConditions::constant_exterior(
        img, 0.0f,
        {{img.dim(0).min(), img.dim(0).extent()}, {img.dim(1).min(), img.dim(1).extent()}});
    blurx(y, x, c) =
        strict_float((padded(y, x - 2, c) + 4.0f * padded(y, x - 1, c) + 6.0f * padded(y, x, c) +
                      4.0f * padded(y, x + 1, c) + padded(y, x + 2, c)) *
                     0.0625f);
    blury(y, x, c) =
        strict_float((blurx(y - 2, x, c) + 4.0f * blurx(y - 1, x, c) + 6.0f * blurx(y, x, c) +
                      4.0f * blurx(y + 1, x, c) + blurx(y + 2, x, c)) *
                     0.0625f);
    sharpen(y, x, c) = strict_float(img(y, x, c) * (1.0f + weight) - blury(y, x, c) * weight);
    mask(y, x, c) = strict_float(
        select(abs(img(y, x, c) - blury(y, x, c)) < threshold, img(y, x, c), sharpen(y, x, c)));
  }

  void schedule() {
    // The benchmark's default size: a 2832 x 4256 colour image, in and out.
    img.set_estimates({{0, 4256}, {0, 2832}, {0, 3}});
    threshold.set_estimate(0.001f);
    weight.set_estimate(3.0f);
    mask.set_estimates({{0, 4256}, {0, 2832}, {0, 3}});
    if (auto_schedule) return;
    // The schedule an expert writes: strips of 8 rows of one channel, the
    // (channel, strip) loops fused and parallel; inside a strip, per output
    // row, blurx (the vertical blur) is computed for the row's columns plus
    // the 4 blury needs, then blury, then mask (sharpen inlined), all
    // vectorized across columns. A row's intermediates (17 KB each at the
    // default size) stay in L1/L2. Rows are not split across columns, so
    // that any image at least one vector wide works. The boundary condition
    // (the strip's rows of the image and the zeros around them) is copied
    // once per strip, as an expert would: inlined, its clamped reads would be
    // computed in every tap of blurx.
    const int vec = natural_vector_size<float>();
    Var xo("xo"), xi("xi"), strip("strip");
    mask.split(x, xo, xi, 8).fuse(xo, c, strip).parallel(strip).vectorize(y, vec);
    padded.compute_at(mask, strip).vectorize(padded.args()[0], vec);
    blury.compute_at(mask, xi).vectorize(y, vec);
    blurx.compute_at(mask, xi).vectorize(y, vec);
  }

private:
  Var c{"c"}, x{"x"}, y{"y"};
  Func padded{"padded"}, blurx{"blurx"}, blury{"blury"}, sharpen{"sharpen"};
};

} // namespace

HALIDE_REGISTER_GENERATOR(UnsharpGenerator, unsharp)
