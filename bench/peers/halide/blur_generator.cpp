// blur (benchmarks.md section 0) in Halide 14, for trapeze bench.
//
// Coordinates: trapeze's blur is f(x, y) with x the row (outer) and y the
// column (contiguous); Halide lists the innermost dimension first, so every
// Func here is f(y, x) over the same index values. The input starts at
// (0, 0), the output at (1, 1), as in the trapeze pipeline.
#include "Halide.h"

namespace {

using namespace Halide;

class BlurGenerator : public Generator<BlurGenerator> {
public:
  Input<Buffer<float>> img{"img", 2};
  Output<Buffer<float>> blury{"blury", 2};

  void generate() {
    blurx(y, x) = (img(y, x - 1) + img(y, x) + img(y, x + 1)) / 3.0f;
    blury(y, x) = (blurx(y - 1, x) + blurx(y, x) + blurx(y + 1, x)) / 3.0f;
  }

  void schedule() {
    // The benchmark's default size (4800 x 6400 image, 4798 x 6398 output).
    img.set_estimates({{0, 6400}, {0, 4800}});
    blury.set_estimates({{1, 6398}, {1, 4798}});
    if (auto_schedule) return;
    // The schedule an expert writes for a separable blur: strips of 32 rows
    // in parallel, blurx computed per row of the strip into a sliding
    // window of three rows, both vectorized across columns.
    const int vec = natural_vector_size<float>();
    Var xo("xo"), xi("xi");
    blury.split(x, xo, xi, 32).parallel(xo).vectorize(y, vec);
    blurx.store_at(blury, xo).compute_at(blury, xi).vectorize(y, vec);
  }

private:
  Var x{"x"}, y{"y"};
  Func blurx{"blurx"};
};

} // namespace

HALIDE_REGISTER_GENERATOR(BlurGenerator, blur)
