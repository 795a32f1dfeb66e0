/// \file
/// Bilateral grid: benchmarks.md section 3 ("Bilateral grid (sigma_s = 8,
/// 1/sigma_r = 10; 6 stages, the first a histogram reduction)").
///
///   R, C (int64)  input rows / cols = output rows / cols + 56
///   input         float [R][C]: a grey image in [0, 1) padded with clamp-to-edge
///                 by 24 (top/left) and 32 (bottom/right)
///   grid          (c, X, Y, z) in [0,1] x [1,(R-1)/8-1] x [1,(C-1)/8-1] x [0,14]:
///                 reduction, init 0; for every (X, Y) and rx, ry in [0, 8]:
///                 v = input(8X-4+rx, 8Y-4+ry), z = 2 + (int)(10v + 0.5),
///                 grid(0,X,Y,z) += v, grid(1,X,Y,z) += 1
///   blurz         z in [2,12]: 1 4 6 4 1 taps of grid along z (unnormalised)
///   blurx         X in [3,(R-1)/8-3]: the same taps of blurz along X
///   blury         Y in [3,(C-1)/8-3]: the same taps of blurx along Y
///   interpolated  (c, x, y) in [0,1] x [24,R-33] x [24,C-33]: trilinear
///                 interpolation of blury at (x/8, y/8, 2 + 10*input(x, y))
///   filtered      (output) on [24,R-33] x [24,C-33]: interpolated(0) /
///                 interpolated(1) where interpolated(1) > 0, else input(x, y)
///
/// Interpretation: the reduction variables run (X, Y, rx, ry), X outermost,
/// and at each point the update of channel 0 comes before that of channel 1.
/// "10v" is 10.0f * v; taps are summed in the order written in the spec,
/// weights as float32 constants (4.0f * f). In interpolated, zi = (int)zv,
/// zf = zv - (float)zi, xf = (float)(x % 8) / 8.0f (x >= 24, so floor and C
/// division agree), and the eight corners are combined first along X (for
/// (Y, z) = (0,0), (1,0), (0,1), (1,1)), then along Y, then along z, with
/// lerp(a, b, w) = a + w * (b - a). The z index 2 + zi (+1) reads memory, so
/// it is clamped into blury's [2, 12] (the v = 1.0 edge case of the spec).
/// `filtered`'s buffer [rows][cols] holds point (x, y) at (x-24, y-24).
#include "app.h"

#include "trapeze/dsl.h"
#include "trapeze/error.h"
#include "trapeze/image_io.h"

#include <algorithm>

namespace trapeze::apps {

namespace {

// The clamp-to-edge border around the image: rows x cols sit at (24, 24).
constexpr std::int64_t pad_before = 24;
constexpr std::int64_t pad_after = 32;

Pipeline build_bilateral_grid() {
  Param R("R"), C("C");
  Var c("c"), X("X"), Y("Y"), z("z"), x("x"), y("y");
  Image input("input", ScalarType::Float32, {R, C});
  const Expr grid_x_hi = (R - 1) / 8 - 1, grid_y_hi = (C - 1) / 8 - 1;

  Func grid("grid", ScalarType::Float32, {c, X, Y, z},
            {{0, 1}, {1, grid_x_hi}, {1, grid_y_hi}, {0, 14}});
  RVar gX("gX", {1, grid_x_hi}), gY("gY", {1, grid_y_hi}), rx("rx", {0, 8}), ry("ry", {0, 8});
  const Expr sample = input(8 * Expr(gX) - 4 + rx, 8 * Expr(gY) - 4 + ry);
  const Expr bin = 2 + cast<std::int32_t>(10.0f * sample + 0.5f);
  grid.define_reduction(0.0f, {gX, gY, rx, ry},
                        {sum_into({0, gX, gY, bin}, sample), sum_into({1, gX, gY, bin}, 1.0f)});

  const auto taps = [](const Expr& m2, const Expr& m1, const Expr& c0, const Expr& p1,
                       const Expr& p2) { return m2 + 4.0f * m1 + 6.0f * c0 + 4.0f * p1 + p2; };

  Func blurz("blurz", ScalarType::Float32, {c, X, Y, z},
             {{0, 1}, {1, grid_x_hi}, {1, grid_y_hi}, {2, 12}});
  blurz.define(taps(grid(c, X, Y, z - 2), grid(c, X, Y, z - 1), grid(c, X, Y, z),
                    grid(c, X, Y, z + 1), grid(c, X, Y, z + 2)));

  Func blurx("blurx", ScalarType::Float32, {c, X, Y, z},
             {{0, 1}, {3, (R - 1) / 8 - 3}, {1, grid_y_hi}, {2, 12}});
  blurx.define(taps(blurz(c, X - 2, Y, z), blurz(c, X - 1, Y, z), blurz(c, X, Y, z),
                    blurz(c, X + 1, Y, z), blurz(c, X + 2, Y, z)));

  Func blury("blury", ScalarType::Float32, {c, X, Y, z},
             {{0, 1}, {3, (R - 1) / 8 - 3}, {3, (C - 1) / 8 - 3}, {2, 12}});
  blury.define(taps(blurx(c, X, Y - 2, z), blurx(c, X, Y - 1, z), blurx(c, X, Y, z),
                    blurx(c, X, Y + 1, z), blurx(c, X, Y + 2, z)));

  const std::vector<Interval> image_domain = {{24, R - 33}, {24, C - 33}};
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
  p.set_default("R", std::int64_t{2560 + pad_before + pad_after});
  p.set_default("C", std::int64_t{1536 + pad_before + pad_after});
  return p;
}

ParamValues bilateral_grid_size_for_image(std::int64_t rows, std::int64_t cols) {
  // Every domain is non-empty from 1 x 1 on (the grid needs R >= 49).
  require_image_size("bilateral_grid", rows, cols, 1, 1);
  return {{"R", rows + pad_before + pad_after}, {"C", cols + pad_before + pad_after}};
}

/// Fills the border of `padded` (float [R][C]) around the image at
/// [pad_before, R-1-pad_after] x [pad_before, C-1-pad_after] by clamp-to-edge.
void fill_clamped_border(Buffer& padded) {
  const std::int64_t R = padded.extent(0), C = padded.extent(1);
  const std::int64_t last_row = R - 1 - pad_after, last_col = C - 1 - pad_after;
  float* data = padded.data<float>();
  for (std::int64_t x = 0; x < R; ++x) {
    const std::int64_t src_row = std::clamp(x, pad_before, last_row);
    for (std::int64_t y = 0; y < C; ++y) {
      const std::int64_t src_col = std::clamp(y, pad_before, last_col);
      data[x * C + y] = data[src_row * C + src_col];
    }
  }
}

/// A grey image in [0, 1) in the middle of the input, padded with clamp-to-edge.
BufferMap bilateral_grid_inputs(const Pipeline& p, const ParamValues& params) {
  const std::vector<std::int64_t> extents = input_extents(p, "input", params);
  const std::int64_t rows = extents[0] - pad_before - pad_after;
  const std::int64_t cols = extents[1] - pad_before - pad_after;
  if (rows < 1 || cols < 1)
    throw Error("bilateral_grid: the input must be at least " +
                std::to_string(pad_before + pad_after + 1) + " x " +
                std::to_string(pad_before + pad_after + 1) + " (R x C), got " +
                std::to_string(extents[0]) + " x " + std::to_string(extents[1]));
  SyntheticSpec spec;
  spec.type = ScalarType::Float32;
  spec.extents = {rows, cols};
  spec.lo = 0.0;
  spec.hi = 0.999; // [0, 1): the spec's synthetic input never reaches 1.0
  spec.seed = 3;
  const Buffer grey = synthetic_image(spec);
  Buffer input(ScalarType::Float32, extents);
  for (std::int64_t x = 0; x < rows; ++x)
    std::copy_n(&grey.at<float>({x, 0}), cols, &input.at<float>({x + pad_before, pad_before}));
  fill_clamped_border(input);
  return {{"input", input}};
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
    BufferMap inputs = image_input(p, params, image, "input", 1, pad_before, pad_before);
    fill_clamped_border(inputs.at("input"));
    return inputs;
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
      {"grid", "blurz"}, {2, 2, 4096, 16}, 2,
      "the histogram fused with blurz, as Halide's hand-written schedule computes it at blurz's "
      "rows: a tile of two grid rows (both channels, every column and bin: 48 KiB) runs only the "
      "updates of its cells (X and Y follow gX and gY) and blurz reads it from cache; the X "
      "tiles in parallel"));
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
