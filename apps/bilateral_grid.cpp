/// \file
/// Bilateral grid: benchmarks.md section 3 ("Bilateral grid (sigma_s = 8,
/// 1/sigma_r = 10; 6 stages, the first a histogram reduction)").
///
///   R, C (int64)  image rows / cols
///   input         float [R][C]: a grey image in [0, 1)
///   input_repeat_edge: input clamped to its edges (boundary::repeat_edge), by
///                 28 along x and y: as far as the histogram reads
///   grid          (c, X, Y, z) in [0,1] x [-2,(R-1)/8+3] x [-2,(C-1)/8+3] x [0,14]:
///                 reduction, init 0; for every (X, Y) and rx, ry in [0, 8]:
///                 v = input_repeat_edge(8X-4+rx, 8Y-4+ry), z = 2 + (int)(10v + 0.5),
///                 grid(0,X,Y,z) += v, grid(1,X,Y,z) += 1
///   blurz         z in [2,12]: 1 4 6 4 1 taps of grid along z (unnormalised)
///   blurx         X in [0,(R-1)/8+1]: the same taps of blurz along X
///   blury         Y in [0,(C-1)/8+1]: the same taps of blurx along Y
///   interpolated  (c, x, y) in [0,1] x [0,R-1] x [0,C-1]: trilinear
///                 interpolation of blury at (x/8, y/8, 2 + 10*input(x, y))
///   filtered      (output) on [0,R-1] x [0,C-1]: interpolated(0) /
///                 interpolated(1) where interpolated(1) > 0, else input(x, y)
///
/// Interpretation: the spec pads the image by hand with clamp-to-edge (24
/// before, 32 after) and indexes everything from the padded corner; here the
/// pipeline takes the image as it is, indexes from the image's corner (the
/// spec's point x is x - 24 here, its grid cell X is X - 3: 24 is a multiple
/// of 8, so x / 8 and x % 8 agree) and a boundary condition gives the clamped
/// samples. Every value is the spec's. The margin is given, not inferred: the
/// histogram reaches 8 * ((R-1)/8 + 3) + 4 <= R - 1 + 28, a distance from the
/// image that depends on R modulo 8. The reduction variables run (X, Y, rx,
/// ry), X outermost, and at each point the update of channel 0 comes before
/// that of channel 1. "10v" is 10.0f * v; taps are summed in the order written
/// in the spec, weights as float32 constants (4.0f * f). In interpolated, zi =
/// (int)zv, zf = zv - (float)zi, xf = (float)(x % 8) / 8.0f, and the eight
/// corners are combined first along X (for (Y, z) = (0,0), (1,0), (0,1),
/// (1,1)), then along Y, then along z, with lerp(a, b, w) = a + w * (b - a).
/// The z index 2 + zi (+1) reads memory, so it is clamped into blury's [2, 12]
/// (the v = 1.0 edge case of the spec).
#include "app.h"

#include "trapeze/boundary.h"
#include "trapeze/dsl.h"
#include "trapeze/error.h"
#include "trapeze/image_io.h"

namespace trapeze::apps {

namespace {

/// How far beyond the image the histogram reads: 8 * ((N-1)/8 + 3) + 4 - (N-1) <= 28.
constexpr std::int64_t kMargin = 28;

Pipeline build_bilateral_grid() {
  Param R("R"), C("C");
  Var c("c"), X("X"), Y("Y"), z("z"), x("x"), y("y");
  Image input("input", ScalarType::Float32, {R, C});
  const Func clamped = boundary::repeat_edge(input, {kMargin, kMargin});
  // Grid cells cover the image and two more on each side (the blurs' reach).
  const Expr grid_x_hi = (R - 1) / 8 + 3, grid_y_hi = (C - 1) / 8 + 3;

  Func grid("grid", ScalarType::Float32, {c, X, Y, z},
            {{0, 1}, {-2, grid_x_hi}, {-2, grid_y_hi}, {0, 14}});
  RVar gX("gX", {-2, grid_x_hi}), gY("gY", {-2, grid_y_hi}), rx("rx", {0, 8}), ry("ry", {0, 8});
  const Expr sample = clamped(8 * Expr(gX) - 4 + rx, 8 * Expr(gY) - 4 + ry);
  const Expr bin = 2 + cast<std::int32_t>(10.0f * sample + 0.5f);
  grid.define_reduction(0.0f, {gX, gY, rx, ry},
                        {sum_into({0, gX, gY, bin}, sample), sum_into({1, gX, gY, bin}, 1.0f)});

  const auto taps = [](const Expr& m2, const Expr& m1, const Expr& c0, const Expr& p1,
                       const Expr& p2) { return m2 + 4.0f * m1 + 6.0f * c0 + 4.0f * p1 + p2; };

  Func blurz("blurz", ScalarType::Float32, {c, X, Y, z},
             {{0, 1}, {-2, grid_x_hi}, {-2, grid_y_hi}, {2, 12}});
  blurz.define(taps(grid(c, X, Y, z - 2), grid(c, X, Y, z - 1), grid(c, X, Y, z),
                    grid(c, X, Y, z + 1), grid(c, X, Y, z + 2)));

  Func blurx("blurx", ScalarType::Float32, {c, X, Y, z},
             {{0, 1}, {0, (R - 1) / 8 + 1}, {-2, grid_y_hi}, {2, 12}});
  blurx.define(taps(blurz(c, X - 2, Y, z), blurz(c, X - 1, Y, z), blurz(c, X, Y, z),
                    blurz(c, X + 1, Y, z), blurz(c, X + 2, Y, z)));

  Func blury("blury", ScalarType::Float32, {c, X, Y, z},
             {{0, 1}, {0, (R - 1) / 8 + 1}, {0, (C - 1) / 8 + 1}, {2, 12}});
  blury.define(taps(blurx(c, X, Y - 2, z), blurx(c, X, Y - 1, z), blurx(c, X, Y, z),
                    blurx(c, X, Y + 1, z), blurx(c, X, Y + 2, z)));

  const std::vector<Interval> image_domain = {{0, R - 1}, {0, C - 1}};
  Func interpolated("interpolated", ScalarType::Float32, {c, x, y},
                    {{0, 1}, image_domain[0], image_domain[1]});
  {
    const Expr zv = 10.0f * input(x, y);
    const Expr zi = cast<std::int32_t>(zv);
    const Expr zf = zv - cast<float>(zi);
    const Expr xi = x / 8, yi = y / 8;
    const Expr xf = cast<float>(x % 8) / 8.0f, yf = cast<float>(y % 8) / 8.0f;
    const auto lerp = [](const Expr& a, const Expr& b, const Expr& w) { return a + w * (b - a); };
    const auto along_x = [&](int dy, int dz) {
      return lerp(blury(c, xi, yi + dy, 2 + zi + dz), blury(c, xi + 1, yi + dy, 2 + zi + dz), xf);
    };
    const auto along_y = [&](int dz) { return lerp(along_x(0, dz), along_x(1, dz), yf); };
    interpolated.define(lerp(along_y(0), along_y(1), zf));
  }

  Func filtered("filtered", ScalarType::Float32, {x, y}, image_domain);
  filtered.define(select(interpolated(1, x, y) > 0.0f,
                         interpolated(0, x, y) / interpolated(1, x, y), input(x, y)));

  Pipeline p({filtered}, "bilateral_grid");
  p.set_default("R", std::int64_t{2560});
  p.set_default("C", std::int64_t{1536});
  return p;
}

ParamValues bilateral_grid_size_for_image(std::int64_t rows, std::int64_t cols) {
  require_image_size("bilateral_grid", rows, cols, 1, 1);
  return {{"R", rows}, {"C", cols}};
}

/// A grey image in [0, 1).
BufferMap bilateral_grid_inputs(const Pipeline& p, const ParamValues& params) {
  SyntheticSpec spec;
  spec.type = ScalarType::Float32;
  spec.extents = input_extents(p, "input", params);
  spec.lo = 0.0;
  spec.hi = 0.999; // [0, 1): the spec's synthetic input never reaches 1.0
  spec.seed = 3;
  return {{"input", synthetic_image(spec)}};
}

} // namespace

App make_bilateral_grid_app() {
  App app;
  app.name = "bilateral_grid";
  app.description = "bilateral grid: histogram into a 3-D grid, 5-tap blurs, trilinear slicing";
  app.build = build_bilateral_grid;
  app.default_size = bilateral_grid_size_for_image(2560, 1536);
  app.small_size = bilateral_grid_size_for_image(64, 80);
  app.manual_schedule = make_manual_schedule_bilateral_grid;
  app.make_inputs = bilateral_grid_inputs;
  app.size_for_image = bilateral_grid_size_for_image;
  app.inputs_from_image = [](const Pipeline& p, const ParamValues& params, const Buffer& image) {
    return image_input(p, params, image, "input", 1, 0, 0);
  };
  // Each grid cell sums up to 81 values and the blurs weigh 5^3 cells by up
  // to 6^3: sums of a few thousand float32 terms (relative rounding ~1e-5 in
  // the worst case), whose order the JIT may change only through contraction.
  app.tolerance = 1e-4;
  return app;
}

Schedule make_manual_schedule_bilateral_grid(const Pipeline& p) {
  Schedule s;
  s.groups.push_back(fused_group(
      {"input_repeat_edge", "grid", "blurz"}, {2, 2, 4096, 16}, 2,
      "the histogram fused with blurz, as Halide's hand-written schedule computes it at blurz's "
      "rows: a tile of two grid rows (both channels, every column and bin: 48 KiB) runs only the "
      "updates of its cells (X and Y follow gX and gY) and blurz reads it from cache; the X "
      "tiles in parallel; the clamped input inlined into the histogram's reads"));
  s.storage["input_repeat_edge"] = Storage::Inlined;
  s.groups.push_back(fused_group(
      {"blurx", "blury"}, {1, 16, 64, 11}, 2,
      "the two other 5-tap blurs of the grid fused (constant distances along X, Y); a tile holds "
      "all 11 bins and 16 x 64 cells: the blurx scratchpad in L2; the c and X tile loops "
      "parallel"));
  s.groups.push_back(fused_group(
      {"interpolated", "filtered"}, {2, 16, 1536}, 2,
      "slicing fused with the division: both channels of interpolated in a 2 x 16 x 1536 "
      "scratchpad (192 KiB, in L2) read at once by filtered; not fused with the blurs: the "
      "z index is data-dependent"));
  add_remaining_stages(p, s, "not fused");
  return s;
}

} // namespace trapeze::apps
