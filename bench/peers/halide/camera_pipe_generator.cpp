// camera_pipe (benchmarks.md section 4) in Halide 14, for trapeze bench.
//
// Coordinates: trapeze's stages are f(x, y) and f(c, x, y) with x the row,
// y the column (contiguous) and c the channel (outermost); Halide lists the
// innermost dimension first, so every Func here is f(y, x) or f(y, x, c) over
// the same index values. at(f, dx, dy) reads f at trapeze's offsets (row +dx,
// column +dy) so that the formulas can be checked against the trapeze app
// term by term. The raw image starts at (0, 0), the output `process` at
// (c, x, y) = (0, 12, 16), as in the trapeze pipeline.
//
// Arithmetic: as in trapeze (and C), int16 values are promoted to int32,
// "/2" and "/256" truncate toward zero (div_round_to_zero; Halide's own "/"
// rounds down) and every int16 stage casts its result back to int16. The
// domains need no selects: the trapeze pipeline reads every stage inside its
// domain only, so computing the same formulas wherever Halide's bounds
// inference asks gives the same values there. deinterleaved's default
// (no case covers it) is never read. The colour matrix and the curve are
// strict_float so that Halide does not turn their divisions by constants
// into multiplications by reciprocals: the output is compared exactly.
//
// The raw image is read through clamped coordinates (repeat_edge), which
// changes nothing inside the domains: the autoscheduled versions are run on
// outputs padded to the default size when the output is smaller (see
// halide_camera_pipe.cpp), and their tiles may then reach beyond the image.
#include "Halide.h"

namespace {

using namespace Halide;

class CameraPipeGenerator : public Generator<CameraPipeGenerator> {
public:
  Input<Buffer<int16_t>> img{"img", 2};
  Input<Buffer<float>> matrix_3200{"matrix_3200", 2};
  Input<Buffer<float>> matrix_7000{"matrix_7000", 2};
  Input<float> colour_temp{"colour_temp", 3700.0f};
  Input<float> gamma{"gamma", 2.0f};
  Input<float> contrast{"contrast", 50.0f};
  Output<Buffer<uint8_t>> process{"process", 3};

  void generate() {
    // 1. Hot-pixel suppression (min and max of int16 values need no promotion).
    const Func clamped = BoundaryConditions::repeat_edge(img);
    const auto raw = [&](int dx, int dy) { return clamped(y + dy, x + dx); };
    const Expr hi = max(max(raw(-2, 0), raw(2, 0)), max(raw(0, -2), raw(0, 2)));
    const Expr lo = min(min(raw(-2, 0), raw(2, 0)), min(raw(0, -2), raw(0, 2)));
    denoised(y, x) = max(lo, min(hi, raw(0, 0)));

    // 2-3. The four Bayer channels at half resolution: trapeze's c = 0..3 read
    // denoised at (2x, 2y), (2x, 2y+1), (2x+1, 2y), (2x+1, 2y+1).
    deinterleaved(y, x, c) = mux(c, {denoised(2 * y, 2 * x), denoised(2 * y + 1, 2 * x),
                                     denoised(2 * y, 2 * x + 1), denoised(2 * y + 1, 2 * x + 1)});
    g_gr(y, x) = deinterleaved(y, x, 0);
    r_r(y, x) = deinterleaved(y, x, 1);
    b_b(y, x) = deinterleaved(y, x, 2);
    g_gb(y, x) = deinterleaved(y, x, 3);

    // 4. Green at the red and blue sites: the direction of the smaller difference.
    const auto green_at = [&](Func f, const Expr& v1, const Expr& v2, const Expr& h1,
                              const Expr& h2) {
      const Expr gv = half(v1 + v2), gvd = absd_c(v1, v2);
      const Expr gh = half(h1 + h2), ghd = absd_c(h1, h2);
      f(y, x) = i16(select(ghd < gvd, gh, gv));
    };
    green_at(g_r, at(g_gb, -1, 0), at(g_gb, 0, 0), at(g_gr, 0, 1), at(g_gr, 0, 0));
    green_at(g_b, at(g_gr, 1, 0), at(g_gr, 0, 0), at(g_gb, 0, -1), at(g_gb, 0, 0));

    // 5. Red and blue at the green sites.
    const auto at_green = [&](Func f, const Func& g, const Expr& gn1, const Expr& gn2,
                              const Expr& cn1, const Expr& cn2) {
      f(y, x) = i16(at(g, 0, 0) - half(gn1 + gn2) + half(cn1 + cn2));
    };
    at_green(r_gr, g_gr, at(g_r, 0, 0), at(g_r, 0, -1), at(r_r, 0, -1), at(r_r, 0, 0));
    at_green(b_gr, g_gr, at(g_b, 0, 0), at(g_b, -1, 0), at(b_b, 0, 0), at(b_b, -1, 0));
    at_green(r_gb, g_gb, at(g_r, 0, 0), at(g_r, 1, 0), at(r_r, 0, 0), at(r_r, 1, 0));
    at_green(b_gb, g_gb, at(g_b, 0, 0), at(g_b, 0, 1), at(b_b, 0, 0), at(b_b, 0, 1));

    // 6. Red at blue sites and blue at red sites: the diagonal of the smaller difference.
    const auto diagonal = [&](Func f, const Func& g, const Func& gc, const Func& col, int dx,
                              int dy) {
      const Expr p =
          at(g, 0, 0) - half(at(gc, 0, 0) + at(gc, dx, dy)) + half(at(col, 0, 0) + at(col, dx, dy));
      const Expr pd = absd_c(at(col, 0, 0), at(col, dx, dy));
      const Expr n =
          at(g, 0, 0) - half(at(gc, 0, dy) + at(gc, dx, 0)) + half(at(col, 0, dy) + at(col, dx, 0));
      const Expr nd = absd_c(at(col, 0, dy), at(col, dx, 0));
      f(y, x) = i16(select(pd < nd, p, n));
    };
    diagonal(r_b, g_b, g_r, r_r, 1, -1);
    diagonal(b_r, g_r, g_b, b_b, -1, 1);

    // 7. Interleaving back to full resolution: columns (y), then rows (x).
    const auto iy = [&](Func f, const Func& a, const Func& b) {
      f(y, x) = select(y % 2 == 0, a(y / 2, x), b(y / 2, x));
    };
    const auto ix = [&](Func f, const Func& a, const Func& b) {
      f(y, x) = select(x % 2 == 0, a(y, x / 2), b(y, x / 2));
    };
    iy(redX1, r_gr, r_r);
    iy(redX2, r_b, r_gb);
    iy(greenX1, g_gr, g_r);
    iy(greenX2, g_b, g_gb);
    iy(blueX1, b_gr, b_r);
    iy(blueX2, b_b, b_gb);
    ix(red, redX1, redX2);
    ix(green, greenX1, greenX2);
    ix(blue, blueX1, blueX2);

    // 8. The colour matrix for the colour temperature, in Q8.8; trapeze's
    // matrix(i, j) (row i) is matrix(j, i) here, as are the inputs.
    const Expr alpha = (1.0f / colour_temp - 1.0f / 3200.0f) / (1.0f / 7000.0f - 1.0f / 3200.0f);
    matrix(j, i) = cast<int32_t>(
        strict_float((matrix_3200(j, i) * alpha + matrix_7000(j, i) * (1.0f - alpha)) * 256.0f));

    // 9. Colour correction; channel c takes matrix row 2 - c (BGR output order).
    const Expr k = 2 - c;
    const Expr v = matrix(3, k) + matrix(0, k) * at(red, 0, 0) + matrix(1, k) * at(green, 0, 0) +
                   matrix(2, k) * at(blue, 0, 0);
    corrected(y, x, c) = i16(div_round_to_zero(v, 256));

    // 10. Gamma and contrast curve over v in [-32768, 32767] itself (Halide
    // Funcs take negative coordinates; bounds inference derives the range
    // from corrected's type).
    {
      const Expr xf = clamp(cast<float>(lut) / 1024.0f, 0.0f, 1.0f);
      const Expr g = pow(xf, 1.0f / gamma);
      const Expr b = 2.0f - pow(2.0f, contrast / 100.0f);
      const Expr a = 2.0f - 2.0f * b;
      const Expr z = select(g > 0.5f, 1.0f - (a * (1.0f - g) * (1.0f - g) + b * (1.0f - g)),
                            a * g * g + b * g);
      curveLUT(lut) = cast<uint8_t>(strict_float(min(max(256.0f * z, 0.0f), 255.0f)));
    }

    // 11. The output: a data-dependent index, clamped into curveLUT's domain
    // as trapeze does (a no-op for int16 values).
    process(y, x, c) = curveLUT(clamp(cast<int32_t>(corrected(y, x, c)), -32768, 32767));
  }

  void schedule() {
    // The benchmark's default size: a 1968 x 2592 raw image, the output
    // [3][1920][2528] starting at (c, x, y) = (0, 12, 16).
    img.set_estimates({{0, 2592}, {0, 1968}});
    matrix_3200.set_estimates({{0, 4}, {0, 3}});
    matrix_7000.set_estimates({{0, 4}, {0, 3}});
    colour_temp.set_estimate(3700.0f);
    gamma.set_estimate(2.0f);
    contrast.set_estimate(50.0f);
    process.set_estimates({{16, 2528}, {12, 1920}, {0, 3}});
    if (auto_schedule) return;

    // The schedule an expert writes: strips of 32 output rows in parallel.
    // Per strip, the half-resolution demosaic (16 rows plus a halo of 2) is
    // computed once into small buffers, vectorized across columns:
    // deinterleaved with its four channels unrolled (denoised inlined, so the
    // raw image is read straight), the green and colour-difference stages.
    // The interleaving, the colour sums and the matrix product are inlined
    // into `corrected`, computed per output row with its three channels
    // unrolled (red, green and blue shared between them); the output is the
    // curve's table look-up. The matrix and the 64 K-entry curve are
    // computed once per run, the curve vectorized and in parallel.
    const int vec16 = natural_vector_size<int16_t>();
    const int vec8 = natural_vector_size<uint8_t>();
    Var xo("xo"), xi("xi"), lo("lo"), li("li");

    process.bound(c, 0, 3)
        .split(x, xo, xi, 32)
        .reorder(y, c, xi, xo)
        .parallel(xo)
        .vectorize(y, vec8);
    corrected.compute_at(process, xi).reorder(c, y, x).unroll(c).vectorize(y, vec16);
    for (Func f : {g_r, g_b, r_gr, b_gr, r_gb, b_gb, r_b, b_r})
      f.compute_at(process, xo).vectorize(y, vec16);
    deinterleaved.compute_at(process, xo)
        .bound(c, 0, 4)
        .reorder(c, y, x)
        .unroll(c)
        .vectorize(y, vec16);

    matrix.compute_root();
    curveLUT.compute_root()
        .split(lut, lo, li, 8192)
        .parallel(lo)
        .vectorize(li, natural_vector_size<float>());
  }

private:
  static Expr i16(const Expr& e) { return cast<int16_t>(e); }
  static Expr half(const Expr& sum) { return div_round_to_zero(sum, 2); }
  /// trapeze's absd on promoted values (Halide's absd returns an unsigned type).
  static Expr absd_c(const Expr& a, const Expr& b) { return select(a > b, a - b, b - a); }
  /// f at trapeze's (x + dx, y + dy), promoted to int32.
  Expr at(const Func& f, int dx, int dy) const { return cast<int32_t>(f(y + dy, x + dx)); }

  Var c{"c"}, x{"x"}, y{"y"}, i{"i"}, j{"j"}, lut{"v"};
  Func denoised{"denoised"}, deinterleaved{"deinterleaved"};
  Func g_gr{"g_gr"}, r_r{"r_r"}, b_b{"b_b"}, g_gb{"g_gb"}, g_r{"g_r"}, g_b{"g_b"};
  Func r_gr{"r_gr"}, b_gr{"b_gr"}, r_gb{"r_gb"}, b_gb{"b_gb"}, r_b{"r_b"}, b_r{"b_r"};
  Func redX1{"redX1"}, redX2{"redX2"}, greenX1{"greenX1"}, greenX2{"greenX2"};
  Func blueX1{"blueX1"}, blueX2{"blueX2"}, red{"red"}, green{"green"}, blue{"blue"};
  Func matrix{"matrix"}, corrected{"corrected"}, curveLUT{"curveLUT"};
};

} // namespace

HALIDE_REGISTER_GENERATOR(CameraPipeGenerator, camera_pipe)
