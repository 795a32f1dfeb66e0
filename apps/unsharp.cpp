/// \file
/// Unsharp mask: benchmarks.md section 1 ("Unsharp mask (4 stages)").
///
///   R, C (int64)      image rows / cols
///   threshold, weight float32 parameters, defaults 0.001 and 3
///   img     float [3][R][C]: a colour image in [0, 1]
///   img_constant_exterior: img with 0 beyond its edges (the spec's 2-pixel
///           zero ghost zone, boundary::constant_exterior; margins inferred)
///   blurx   (c, x, y) in [0,2] x [0,R-1] x [-2,C+1]: vertical 5-tap binomial
///   blury   (c, x, y) in [0,2] x [0,R-1] x [0,C-1]: horizontal 5-tap binomial of blurx
///   sharpen on blury's domain: img * (1 + weight) - blury * weight
///   mask    (output) on blury's domain: |img - blury| < threshold ? img : sharpen
///
/// Interpretation: the stated default size 2832 x 4256 x 3 is the colour image,
/// in and out (R = 2832, C = 4256); size_for_image(rows, cols) gives R = rows,
/// C = cols. The spec pads the input with a 2-pixel zero ghost zone by hand;
/// here the pipeline takes the image as it is and a boundary condition gives
/// the zeros (the values are the spec's: the spec's stages shifted by 2 along
/// x and y). Taps are summed left to right in the order written in the spec
/// and multiplied by 0.0625f; all literals are float32.
#include "app.h"

#include "trapeze/boundary.h"
#include "trapeze/dsl.h"
#include "trapeze/image_io.h"

namespace trapeze::apps {

namespace {

Pipeline build_unsharp() {
  Param R("R"), C("C");
  Param threshold("threshold", ScalarType::Float32), weight("weight", ScalarType::Float32);
  Var c("c"), x("x"), y("y");
  Image img("img", ScalarType::Float32, {3, R, C});
  // Zeros beyond the edges, as far as the blur reads (2 along x and y).
  const Func in = boundary::constant_exterior(img, 0.0f);

  Func blurx("blurx", ScalarType::Float32, {c, x, y}, {{0, 2}, {0, R - 1}, {-2, C + 1}});
  blurx.define((in(c, x - 2, y) + 4.0f * in(c, x - 1, y) + 6.0f * in(c, x, y) +
                4.0f * in(c, x + 1, y) + in(c, x + 2, y)) *
               0.0625f);

  const std::vector<Interval> image = {{0, 2}, {0, R - 1}, {0, C - 1}};
  Func blury("blury", ScalarType::Float32, {c, x, y}, image);
  blury.define((blurx(c, x, y - 2) + 4.0f * blurx(c, x, y - 1) + 6.0f * blurx(c, x, y) +
                4.0f * blurx(c, x, y + 1) + blurx(c, x, y + 2)) *
               0.0625f);

  Func sharpen("sharpen", ScalarType::Float32, {c, x, y}, image);
  sharpen.define(img(c, x, y) * (1.0f + weight) - blury(c, x, y) * weight);

  Func mask("mask", ScalarType::Float32, {c, x, y}, image);
  mask.define(
      select(abs(img(c, x, y) - blury(c, x, y)) < threshold, img(c, x, y), sharpen(c, x, y)));

  Pipeline p({mask}, "unsharp");
  p.set_default("R", std::int64_t{2832});
  p.set_default("C", std::int64_t{4256});
  // The blur's border pieces (rows 0, 1, R - 2, R - 1 and the columns
  // likewise) are ordered for images of at least 4 x 4 pixels: declared, so
  // that lowering turns them into loops (docs/lowering.md).
  p.set_range("R", 4, std::nullopt);
  p.set_range("C", 4, std::nullopt);
  p.set_default("threshold", 0.001);
  p.set_default("weight", 3.0);
  return p;
}

ParamValues unsharp_size_for_image(std::int64_t rows, std::int64_t cols) {
  require_image_size("unsharp", rows, cols, 4, 4);
  return {{"R", rows}, {"C", cols}};
}

/// A colour image in [0, 1].
BufferMap unsharp_inputs(const Pipeline& p, const ParamValues& params) {
  SyntheticSpec spec;
  spec.type = ScalarType::Float32;
  spec.extents = input_extents(p, "img", params);
  spec.lo = 0.0;
  spec.hi = 1.0;
  spec.seed = 1;
  return {{"img", synthetic_image(spec)}};
}

} // namespace

App make_unsharp_app() {
  App app;
  app.name = "unsharp";
  app.description = "unsharp mask: 5-tap binomial blur, sharpen, threshold mask (colour float)";
  app.build = build_unsharp;
  app.default_size = unsharp_size_for_image(2832, 4256);
  app.small_size = unsharp_size_for_image(64, 80);
  app.make_inputs = unsharp_inputs;
  app.manual_schedule = make_manual_schedule_unsharp;
  app.size_for_image = unsharp_size_for_image;
  app.inputs_from_image = [](const Pipeline& p, const ParamValues& params, const Buffer& image) {
    return image_input(p, params, image, "img", 3, 0, 0); // colour, the whole image
  };
  app.tolerance = 1e-4;
  return app;
}

Schedule make_manual_schedule_unsharp(const Pipeline& p) {
  // Tiles of 8 whole rows (up to 8192 columns): the rows a tile reads and
  // writes are long contiguous streams that the hardware prefetchers follow,
  // and blurx has no overlap to recompute along y. Measured on this project's
  // machine kind (AMD EPYC, 2 threads): 8 x 512 tiles 18-19 ms, 8 x 8192 13-16 ms.
  Schedule s = fuse_all_stages(
      p, {1, 8, 8192}, 2,
      "hand-written: all four stages fused in tiles of 8 whole rows, sharpen (point-wise) "
      "inlined into mask, the zero border inlined into blurx");
  s.storage["sharpen"] = Storage::Inlined;
  s.storage["img_constant_exterior"] = Storage::Inlined;
  return s;
}

} // namespace trapeze::apps
