/// \file
/// Blur: benchmarks.md section 0 ("Blur (2 stages)").
///
///   img    float [R+2][C+2], values in [0, 1]
///   blurx  (x, y), x in [1, R], y in [0, C+1]: (img(x-1,y) + img(x,y) + img(x+1,y)) / 3
///   blury  (x, y), x in [1, R], y in [1, C]:   (blurx(x,y-1) + blurx(x,y) + blurx(x,y+1)) / 3
///
/// Interpretation: the stated default size, 4800 x 6400 (grey float), is the
/// size of the image, i.e. of the input `img` (the spec gives the input no
/// padding, unlike unsharp's), so R = rows - 2 = 4798 and C = cols - 2 = 6398;
/// the output is R x C. size_for_image follows the same rule. The divisions
/// are by the float literal 3.0f (float literals are single precision).
#include "app.h"

#include "trapeze/dsl.h"
#include "trapeze/image_io.h"

namespace trapeze::apps {

namespace {

Pipeline build_blur() {
  Param R("R"), C("C");
  Var x("x"), y("y");
  Image img("img", ScalarType::Float32, {R + 2, C + 2});

  Func blurx("blurx", ScalarType::Float32, {x, y}, {{1, R}, {0, C + 1}});
  blurx.define((img(x - 1, y) + img(x, y) + img(x + 1, y)) / 3.0f);

  Func blury("blury", ScalarType::Float32, {x, y}, {{1, R}, {1, C}});
  blury.define((blurx(x, y - 1) + blurx(x, y) + blurx(x, y + 1)) / 3.0f);

  Pipeline p({blury}, "blur");
  p.set_default("R", std::int64_t{4798});
  p.set_default("C", std::int64_t{6398});
  return p;
}

ParamValues blur_size_for_image(std::int64_t rows, std::int64_t cols) {
  require_image_size("blur", rows, cols, 3, 3);
  return {{"R", rows - 2}, {"C", cols - 2}};
}

BufferMap blur_inputs(const Pipeline& p, const ParamValues& params) {
  return synthetic_float_input(p, params, "img", 1);
}

} // namespace

App make_blur_app() {
  App app;
  app.name = "blur";
  app.description = "3x3 box blur as two separable 3-tap passes (grey float)";
  app.build = build_blur;
  app.default_size = blur_size_for_image(4800, 6400);
  app.small_size = blur_size_for_image(64, 80);
  app.make_inputs = blur_inputs;
  app.manual_schedule = make_manual_schedule_blur;
  app.size_for_image = blur_size_for_image;
  app.inputs_from_image = [](const Pipeline& p, const ParamValues& params, const Buffer& image) {
    return image_input(p, params, image, "img", 1, 0, 0); // the whole image, grey
  };
  app.tolerance = 1e-4;
  return app;
}

Schedule make_manual_schedule_blur(const Pipeline& p) {
  // Tiles of 32 whole rows, blurx inlined into blury (9 loads a point, all
  // from the three input rows in cache): no scratchpad round trip, and long
  // row streams for the prefetchers. Measured on this project's machine kind
  // (AMD EPYC, 2 threads, medians of 15): 32 x 256 tiles with a blurx
  // scratchpad 18-22 ms, whole rows with the scratchpad 15-18 ms, whole rows
  // inlined 12-16 ms; 8 to 128 rows differ by less than the noise.
  Schedule s = fuse_all_stages(p, {32, 8192}, 2,
                               "hand-written: both stages fused in tiles of 32 whole rows, blurx "
                               "inlined into blury");
  s.storage["blurx"] = Storage::Inlined;
  return s;
}

} // namespace trapeze::apps
