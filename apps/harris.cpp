/// \file
/// Harris corner detection: benchmarks.md section 2 ("Harris corner detection
/// (11 stages)").
///
///   img  float [R+2][C+2], a grey image in [0, 1]; R = rows-2, C = cols-2
///   every stage has domain [0,R+1] x [0,C+1] and is 0 outside its interior
///   Iy, Ix         on I1 = [1,R] x [1,C]: Sobel across columns / rows, / 12
///   Ixx, Iyy, Ixy  on I1: Ix*Ix, Iy*Iy, Ix*Iy
///   Sxx, Syy, Sxy  on I2 = [2,R-1] x [2,C-1]: unweighted 3x3 box sums
///   det, trace     on I2: Sxx*Syy - Sxy*Sxy, Sxx + Syy
///   harris         (output) on I2: det - 0.04*trace*trace
///
/// Interpretation: the stated default size 2832 x 4256 is the image, which is
/// the whole input (R = 2830, C = 4254). The spec gives det and trace no
/// interior of their own; they take I2 like the sums they combine and like
/// harris. Interiors are Cases (x.in(lo, hi) && y.in(lo, hi)) with default 0.
/// Box sums add the nine taps row by row (x-1, x, x+1), each row left to right;
/// the Sobel sums add their six terms in the order the spec writes them.
#include "app.h"

#include "trapeze/dsl.h"
#include "trapeze/image_io.h"

namespace trapeze::apps {

namespace {

Pipeline build_harris() {
  Param R("R"), C("C");
  Var x("x"), y("y");
  Image img("img", ScalarType::Float32, {R + 2, C + 2});
  const std::vector<Interval> domain = {{0, R + 1}, {0, C + 1}};
  const Expr I1 = x.in(1, R) && y.in(1, C);
  const Expr I2 = x.in(2, R - 1) && y.in(2, C - 1);
  const auto stage = [&](const char* name, const Expr& interior, const Expr& value) {
    Func f(name, ScalarType::Float32, {x, y}, domain);
    f.define({Case(interior, value)}, 0.0f);
    return f;
  };
  const auto box = [&](const Func& f) {
    return f(x - 1, y - 1) + f(x - 1, y) + f(x - 1, y + 1) + f(x, y - 1) + f(x, y) + f(x, y + 1) +
           f(x + 1, y - 1) + f(x + 1, y) + f(x + 1, y + 1);
  };

  const Func Iy = stage("Iy", I1,
                        (-img(x - 1, y - 1) + img(x - 1, y + 1) - 2.0f * img(x, y - 1) +
                         2.0f * img(x, y + 1) - img(x + 1, y - 1) + img(x + 1, y + 1)) /
                            12.0f);
  const Func Ix = stage("Ix", I1,
                        (-img(x - 1, y - 1) - 2.0f * img(x - 1, y) - img(x - 1, y + 1) +
                         img(x + 1, y - 1) + 2.0f * img(x + 1, y) + img(x + 1, y + 1)) /
                            12.0f);
  const Func Ixx = stage("Ixx", I1, Ix(x, y) * Ix(x, y));
  const Func Iyy = stage("Iyy", I1, Iy(x, y) * Iy(x, y));
  const Func Ixy = stage("Ixy", I1, Ix(x, y) * Iy(x, y));
  const Func Sxx = stage("Sxx", I2, box(Ixx));
  const Func Syy = stage("Syy", I2, box(Iyy));
  const Func Sxy = stage("Sxy", I2, box(Ixy));
  const Func det = stage("det", I2, Sxx(x, y) * Syy(x, y) - Sxy(x, y) * Sxy(x, y));
  const Func trace = stage("trace", I2, Sxx(x, y) + Syy(x, y));
  const Func harris = stage("harris", I2, det(x, y) - 0.04f * trace(x, y) * trace(x, y));

  Pipeline p({harris}, "harris");
  p.set_default("R", std::int64_t{2830});
  p.set_default("C", std::int64_t{4254});
  return p;
}

ParamValues harris_size_for_image(std::int64_t rows, std::int64_t cols) {
  // 5 x 5 is the smallest image whose output interior I2 is not empty.
  require_image_size("harris", rows, cols, 5, 5);
  return {{"R", rows - 2}, {"C", cols - 2}};
}

BufferMap harris_inputs(const Pipeline& p, const ParamValues& params) {
  return synthetic_float_input(p, params, "img", 2);
}

} // namespace

App make_harris_app() {
  App app;
  app.name = "harris";
  app.description = "Harris corner detection: Sobel gradients, 3x3 structure tensor, response";
  app.build = build_harris;
  app.default_size = harris_size_for_image(2832, 4256);
  app.small_size = harris_size_for_image(64, 80);
  app.make_inputs = harris_inputs;
  app.manual_schedule = make_manual_schedule_harris;
  app.size_for_image = harris_size_for_image;
  app.inputs_from_image = [](const Pipeline& p, const ParamValues& params, const Buffer& image) {
    return image_input(p, params, image, "img", 1, 0, 0); // the whole image, grey
  };
  app.tolerance = 1e-4;
  return app;
}

Schedule make_manual_schedule_harris(const Pipeline& p) {
  // As Halide's expert schedule does: the box sums, det and trace are
  // inlined into harris (each of their cases resolves by its box: harris reads
  // them only inside I2, where every tap of the sums lies inside I1), so a
  // tile keeps Ix, Iy and the three products in scratchpads; intra-tile fusion
  // computes Ix with Iy and the three products in one nest each.
  Schedule s = fuse_all_stages(p, {32, 256}, 2,
                               "hand-written: all stages fused; the 3x3 sums, det and trace "
                               "inlined into harris; gradients and products in scratchpads");
  for (const char* stage : {"Sxx", "Syy", "Sxy", "det", "trace"})
    s.storage[stage] = Storage::Inlined;
  return s;
}

} // namespace trapeze::apps
