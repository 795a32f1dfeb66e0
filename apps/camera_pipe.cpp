/// \file
/// Camera pipeline: benchmarks.md section 4 ("Camera pipeline (27 stages)").
///
///   R, C (int64)   rows / cols of the raw image
///   colour_temp, gamma, contrast  float32 parameters, defaults 3700, 2, 50
///   img            int16 [R][C]: a 10-bit Bayer mosaic (GRBG)
///   matrix_3200, matrix_7000  float32 [3][4]: the colour matrices at 3200 K / 7000 K
///   Z2 = [8,R-31] x [12,C-43]          denoised (hot-pixel clamp)
///   H2 = [4,(R-36)/2+2] x [6,(C-48)/2+2]  deinterleaved (c in [0,3]), g_gr, r_r, b_b, g_gb
///   H1 = [5,(R-36)/2+1] x [7,(C-48)/2+1]  g_r, g_b
///   H0 = [6,(R-36)/2] x [8,(C-48)/2]      r_gr, b_gr, r_gb, b_gb, r_b, b_r
///   Y0 = [6,(R-36)/2] x [16,C-49]         redX1, redX2, greenX1, greenX2, blueX1, blueX2
///   Z0 = [12,R-37] x [16,C-49]            red, green, blue; corrected and process on [0,2] x Z0
///   matrix (i, j) in [0,2] x [0,3]: int32, Q8.8 blend of the two matrices
///   curveLUT (v) in [-32768, 32767]: uint8 gamma and contrast curve
///   process (output, uint8 [3][R-48][C-64]) = curveLUT(corrected)
///
/// Interpretation: int16 values are promoted to int32 for arithmetic (the
/// DSL's C promotion) and every int16 stage casts its result back to int16.
/// "/2" and "/256" are trunc_div (C's division; v_k may be negative), absd(a, b)
/// is select(a > b, a - b, b - a) on the promoted values. deinterleaved has
/// one case per channel (default 0, covered by no point). The interleaving
/// stages select on parity (y % 2 == 0, x % 2 == 0; non-negative indices).
/// alpha = (1/T - 1/3200) / (1/7000 - 1/3200) with float32 literals (1.0f / T
/// etc.), matrix = (int)((m3200 * alpha + m7000 * (1 - alpha)) * 256.0f).
/// corrected(c) reads matrix row 2 - c (channel 2 <- row 0, BGR order) and
/// sums m(k,3) + m(k,0) red + m(k,1) green + m(k,2) blue in that order.
/// curveLUT is defined over v itself; "index offset by 32768" is the storage
/// of its domain [-32768, 32767], which trapeze's domains handle: process
/// reads curveLUT(corrected(c, x, y)) at v = corrected (a data-dependent
/// index, clamped into the domain; int16 values always lie inside). In the
/// curve, a(1-g)^2 is a * (1-g) * (1-g) and a g^2 is a * g * g (left to right).
/// The output buffer [3][R-48][C-64] holds point (c, x, y) at (c, x-12, y-16).
#include "app.h"

#include "trapeze/dsl.h"
#include "trapeze/error.h"
#include "trapeze/image_io.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace trapeze::apps {

namespace {

// The colour matrices of the spec, [3][4], row-major.
constexpr std::array<float, 12> matrix_3200_values = {1.6697f,  -0.2693f, -0.4004f, -42.4346f,
                                                      -0.3576f, 1.0615f,  1.5949f,  -37.1158f,
                                                      -0.2175f, -1.8751f, 6.9640f,  -26.6970f};
constexpr std::array<float, 12> matrix_7000_values = {2.2997f,  -0.4478f, 0.1706f,  -39.0923f,
                                                      -0.3826f, 1.5906f,  -0.2080f, -25.4311f,
                                                      -0.0888f, -0.7344f, 2.2832f,  -20.0826f};

// The smallest raw image whose domains are all non-empty: Z0 needs
// R - 37 >= 12 and C - 49 >= 16.
constexpr std::int64_t min_rows = 49;
constexpr std::int64_t min_cols = 65;

Expr i16(const Expr& e) { return cast<std::int16_t>(e); }
Expr absd(const Expr& a, const Expr& b) { return select(a > b, a - b, b - a); }
Expr half(const Expr& sum) { return trunc_div(sum, 2); }

Pipeline build_camera_pipe() {
  Param R("R"), C("C");
  Param colour_temp("colour_temp", ScalarType::Float32), gamma("gamma", ScalarType::Float32),
      contrast("contrast", ScalarType::Float32);
  Var c("c"), x("x"), y("y"), i("i"), j("j"), v("v");
  Image img("img", ScalarType::Int16, {R, C});
  Image matrix_3200("matrix_3200", ScalarType::Float32, {3, 4});
  Image matrix_7000("matrix_7000", ScalarType::Float32, {3, 4});

  const Interval z2x{8, R - 31}, z2y{12, C - 43};
  const Interval h2x{4, (R - 36) / 2 + 2}, h2y{6, (C - 48) / 2 + 2};
  const Interval h1x{5, (R - 36) / 2 + 1}, h1y{7, (C - 48) / 2 + 1};
  const Interval h0x{6, (R - 36) / 2}, h0y{8, (C - 48) / 2};
  const Interval y0x{6, (R - 36) / 2}, y0y{16, C - 49};
  const Interval z0x{12, R - 37}, z0y{16, C - 49};
  const auto int16_stage = [&](const char* name, const Interval& dx, const Interval& dy,
                               const Expr& value) {
    Func f(name, ScalarType::Int16, {x, y}, {dx, dy});
    f.define(i16(value));
    return f;
  };

  // 1. Hot-pixel suppression.
  const Expr hi = max(max(img(x - 2, y), img(x + 2, y)), max(img(x, y - 2), img(x, y + 2)));
  const Expr lo = min(min(img(x - 2, y), img(x + 2, y)), min(img(x, y - 2), img(x, y + 2)));
  const Func denoised = int16_stage("denoised", z2x, z2y, max(lo, min(hi, img(x, y))));

  // 2-3. The four Bayer channels at half resolution.
  Func deinterleaved("deinterleaved", ScalarType::Int16, {c, x, y}, {{0, 3}, h2x, h2y});
  deinterleaved.define(
      {Case(c == 0, denoised(2 * x, 2 * y)), Case(c == 1, denoised(2 * x, 2 * y + 1)),
       Case(c == 2, denoised(2 * x + 1, 2 * y)), Case(c == 3, denoised(2 * x + 1, 2 * y + 1))},
      i16(0));
  const Func g_gr = int16_stage("g_gr", h2x, h2y, deinterleaved(0, x, y));
  const Func r_r = int16_stage("r_r", h2x, h2y, deinterleaved(1, x, y));
  const Func b_b = int16_stage("b_b", h2x, h2y, deinterleaved(2, x, y));
  const Func g_gb = int16_stage("g_gb", h2x, h2y, deinterleaved(3, x, y));

  // 4. Green at the red and blue sites: the direction of the smaller difference.
  const auto green_at = [&](const char* name, const Expr& v1, const Expr& v2, const Expr& h1,
                            const Expr& h2) {
    const Expr gv = half(v1 + v2), gvd = absd(v1, v2);
    const Expr gh = half(h1 + h2), ghd = absd(h1, h2);
    return int16_stage(name, h1x, h1y, select(ghd < gvd, gh, gv));
  };
  const Func g_r = green_at("g_r", g_gb(x - 1, y), g_gb(x, y), g_gr(x, y + 1), g_gr(x, y));
  const Func g_b = green_at("g_b", g_gr(x + 1, y), g_gr(x, y), g_gb(x, y - 1), g_gb(x, y));

  // 5. Red and blue at the green sites: green plus the neighbours' colour difference.
  const auto at_green = [&](const char* name, const Func& g, const Expr& gn1, const Expr& gn2,
                            const Expr& cn1, const Expr& cn2) {
    return int16_stage(name, h0x, h0y, g(x, y) - half(gn1 + gn2) + half(cn1 + cn2));
  };
  const Func r_gr = at_green("r_gr", g_gr, g_r(x, y), g_r(x, y - 1), r_r(x, y - 1), r_r(x, y));
  const Func b_gr = at_green("b_gr", g_gr, g_b(x, y), g_b(x - 1, y), b_b(x, y), b_b(x - 1, y));
  const Func r_gb = at_green("r_gb", g_gb, g_r(x, y), g_r(x + 1, y), r_r(x, y), r_r(x + 1, y));
  const Func b_gb = at_green("b_gb", g_gb, g_b(x, y), g_b(x, y + 1), b_b(x, y), b_b(x, y + 1));

  // 6. Red at blue sites and blue at red sites: the diagonal of the smaller difference.
  const auto diagonal = [&](const char* name, const Func& g, const Func& gc, const Func& col,
                            int dx, int dy) {
    // Positive diagonal: (x, y) and (x+dx, y+dy); negative: (x, y+dy) and (x+dx, y).
    const Expr p =
        g(x, y) - half(gc(x, y) + gc(x + dx, y + dy)) + half(col(x, y) + col(x + dx, y + dy));
    const Expr pd = absd(col(x, y), col(x + dx, y + dy));
    const Expr n =
        g(x, y) - half(gc(x, y + dy) + gc(x + dx, y)) + half(col(x, y + dy) + col(x + dx, y));
    const Expr nd = absd(col(x, y + dy), col(x + dx, y));
    return int16_stage(name, h0x, h0y, select(pd < nd, p, n));
  };
  const Func r_b = diagonal("r_b", g_b, g_r, r_r, 1, -1);
  const Func b_r = diagonal("b_r", g_r, g_b, b_b, -1, 1);

  // 7. Interleaving back to full resolution: columns, then rows.
  const auto iy = [&](const char* name, const Func& a, const Func& b) {
    return int16_stage(name, y0x, y0y, select(y % 2 == 0, a(x, y / 2), b(x, y / 2)));
  };
  const auto ix = [&](const char* name, const Func& a, const Func& b) {
    return int16_stage(name, z0x, z0y, select(x % 2 == 0, a(x / 2, y), b(x / 2, y)));
  };
  const Func red = ix("red", iy("redX1", r_gr, r_r), iy("redX2", r_b, r_gb));
  const Func green = ix("green", iy("greenX1", g_gr, g_r), iy("greenX2", g_b, g_gb));
  const Func blue = ix("blue", iy("blueX1", b_gr, b_r), iy("blueX2", b_b, b_gb));

  // 8. The colour matrix for the colour temperature, in Q8.8.
  Func matrix("matrix", ScalarType::Int32, {i, j}, {{0, 2}, {0, 3}});
  const Expr alpha = (1.0f / colour_temp - 1.0f / 3200.0f) / (1.0f / 7000.0f - 1.0f / 3200.0f);
  matrix.define(cast<std::int32_t>(
      (matrix_3200(i, j) * alpha + matrix_7000(i, j) * (1.0f - alpha)) * 256.0f));

  // 9. Colour correction; channel c takes matrix row 2 - c (BGR output order).
  Func corrected("corrected", ScalarType::Int16, {c, x, y}, {{0, 2}, z0x, z0y});
  const Expr k = 2 - c;
  corrected.define(i16(trunc_div(matrix(k, 3) + matrix(k, 0) * red(x, y) +
                                     matrix(k, 1) * green(x, y) + matrix(k, 2) * blue(x, y),
                                 256)));

  // 10. Gamma and contrast curve.
  Func curveLUT("curveLUT", ScalarType::UInt8, {v}, {{-32768, 32767}});
  {
    const Expr xf = clamp(cast<float>(v) / 1024.0f, 0.0f, 1.0f);
    const Expr g = pow(xf, 1.0f / gamma);
    const Expr b = 2.0f - pow(2.0f, contrast / 100.0f);
    const Expr a = 2.0f - 2.0f * b;
    const Expr z =
        select(g > 0.5f, 1.0f - (a * (1.0f - g) * (1.0f - g) + b * (1.0f - g)), a * g * g + b * g);
    curveLUT.define(cast<std::uint8_t>(min(max(256.0f * z, 0.0f), 255.0f)));
  }

  // 11. The output.
  Func process("process", ScalarType::UInt8, {c, x, y}, {{0, 2}, z0x, z0y});
  process.define(curveLUT(corrected(c, x, y)));

  Pipeline p({process}, "camera_pipe");
  p.set_default("R", std::int64_t{1968});
  p.set_default("C", std::int64_t{2592});
  p.set_default("colour_temp", 3700.0);
  p.set_default("gamma", 2.0);
  p.set_default("contrast", 50.0);
  return p;
}

ParamValues camera_pipe_size_for_image(std::int64_t rows, std::int64_t cols) {
  require_image_size("camera_pipe", rows, cols, min_rows, min_cols);
  return {{"R", rows}, {"C", cols}};
}

/// The raw GRBG mosaic of a colour image (float [3][R][C], channels R, G, B,
/// or grey [R][C]) in [0, 1], scaled to 10 bits and rounded.
Buffer bayer_mosaic(const Buffer& colour) {
  const int dims = colour.dimensions();
  const std::int64_t rows = colour.extent(dims - 2), cols = colour.extent(dims - 1);
  const bool grey = dims == 2 || colour.extent(0) < 3;
  const float* src = colour.data<float>();
  Buffer raw(ScalarType::Int16, {rows, cols});
  std::int16_t* out = raw.data<std::int16_t>();
  for (std::int64_t x = 0; x < rows; ++x) {
    for (std::int64_t y = 0; y < cols; ++y) {
      // (even, even) green, (even, odd) red, (odd, even) blue, (odd, odd) green.
      const std::int64_t plane = grey ? 0 : (x % 2 == y % 2 ? 1 : (x % 2 == 0 ? 0 : 2));
      const float value = std::clamp(src[(plane * rows + x) * cols + y], 0.0f, 1.0f);
      out[x * cols + y] = static_cast<std::int16_t>(std::lround(value * 1023.0f));
    }
  }
  return raw;
}

Buffer matrix_input(const std::array<float, 12>& values) {
  Buffer m(ScalarType::Float32, {3, 4});
  std::copy(values.begin(), values.end(), m.data<float>());
  return m;
}

BufferMap camera_inputs(Buffer raw) {
  return {{"img", std::move(raw)},
          {"matrix_3200", matrix_input(matrix_3200_values)},
          {"matrix_7000", matrix_input(matrix_7000_values)}};
}

/// The mosaic of a synthetic colour image, and the two matrices.
BufferMap camera_pipe_inputs(const Pipeline& p, const ParamValues& params) {
  SyntheticSpec spec;
  spec.type = ScalarType::Float32;
  const std::vector<std::int64_t> raw = input_extents(p, "img", params);
  spec.extents = {3, raw[0], raw[1]};
  spec.lo = 0.0;
  spec.hi = 1.0;
  spec.seed = 4;
  return camera_inputs(bayer_mosaic(synthetic_image(spec)));
}

BufferMap camera_pipe_inputs_from_image(const Pipeline& p, const ParamValues& params,
                                        const Buffer& image) {
  const std::vector<std::int64_t> raw = input_extents(p, "img", params);
  const int dims = image.dimensions();
  if (dims < 2 || image.extent(dims - 2) != raw[0] || image.extent(dims - 1) != raw[1])
    throw Error("camera_pipe: the image (" + image.describe() + ") must be " +
                std::to_string(raw[0]) + " x " + std::to_string(raw[1]) +
                " pixels, the raw size R x C (use size_for_image)");
  return camera_inputs(bayer_mosaic(to_float(image, ScalarType::Float32)));
}

} // namespace

App make_camera_pipe_app() {
  App app;
  app.name = "camera_pipe";
  app.description = "camera pipeline: denoise, demosaic, colour matrix, gamma curve (10-bit raw)";
  app.build = build_camera_pipe;
  app.default_size = camera_pipe_size_for_image(1968, 2592);
  app.small_size = camera_pipe_size_for_image(120, 160);
  app.manual_schedule = make_manual_schedule_camera_pipe;
  app.make_inputs = camera_pipe_inputs;
  app.size_for_image = camera_pipe_size_for_image;
  app.inputs_from_image = camera_pipe_inputs_from_image;
  app.test_sizes = {{min_rows, min_cols}, {101, 131}, {200, 300}};
  app.tolerance = 0; // integer output: compared exactly
  return app;
}

Schedule make_manual_schedule_camera_pipe(const Pipeline& p) {
  Schedule s;
  s.groups.push_back(fused_group({"matrix"}, {}, 1,
                                 "the 3 x 4 colour matrix: computed once, read by every pixel"));
  s.groups.push_back(fused_group(
      {"curveLUT"}, {}, 1,
      "the gamma curve is a look-up table indexed by pixel values: it cannot be fused"));
  std::vector<std::string> image_stages;
  for (const auto& f : p.stages())
    if (f->name() != "matrix" && f->name() != "curveLUT") image_stages.push_back(f->name());
  s.groups.push_back(fused_group(
      image_stages, {3, 32, 256, 4}, 2,
      "denoise, demosaic, interleave, colour correction and curve fused: every dependence is "
      "a small stencil or a 2x sampling; a tile is 3 x 32 x 256 output pixels (all channels, so "
      "red/green/blue are computed once), ~0.5 MiB of int16 scratchpads, in L2"));
  s.groups.back().reasons.push_back(
      "g_gr, r_r, b_b, g_gb inlined: point-wise copies of deinterleaved's channels");
  for (const char* copy : {"g_gr", "r_r", "b_b", "g_gb"})
    s.storage[copy] = Storage::Inlined;
  add_remaining_stages(p, s, "not fused");
  return s;
}

} // namespace trapeze::apps
