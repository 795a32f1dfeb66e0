// A 3x3 box blur written in the trapeze DSL, run by the reference
// interpreter, and checked against the same blur computed by hand.
#include <trapeze/trapeze.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>

namespace {

using namespace trapeze;

// blurx averages three columns, blury three rows of blurx. The output is
// defined on [1, R] x [1, C], so the input needs a one-pixel border.
Pipeline make_blur() {
  Param R("R"), C("C");
  Var x("x"), y("y");
  Image img("img", ScalarType::Float32, {R + 2, C + 2});
  Func blurx("blurx", ScalarType::Float32, {x, y}, {{0, R + 1}, {1, C}});
  blurx.define((img(x, y - 1) + img(x, y) + img(x, y + 1)) / 3.0f);
  Func blury("blury", ScalarType::Float32, {x, y}, {{1, R}, {1, C}});
  blury.define((blurx(x - 1, y) + blurx(x, y) + blurx(x + 1, y)) / 3.0f);
  return Pipeline({blury}, "blur");
}

float input_value(std::int64_t r, std::int64_t c) {
  return static_cast<float>((r * 7 + c * 13) % 17) / 16.0f;
}

int run() {
  const std::int64_t rows = 48, cols = 64;
  const Pipeline blur = make_blur();

  Buffer img(ScalarType::Float32, {rows + 2, cols + 2});
  for (std::int64_t r = 0; r < rows + 2; ++r)
    for (std::int64_t c = 0; c < cols + 2; ++c)
      img.at<float>({r, c}) = input_value(r, c);

  BufferMap out = interpret(blur, blur.bind({{"R", rows}, {"C", cols}}), {{"img", img}});
  const Buffer& result = out.at("blury");

  // Element (i, j) of the output holds the point (1 + i, 1 + j).
  double checksum = 0, worst = 0;
  for (std::int64_t i = 0; i < rows; ++i) {
    for (std::int64_t j = 0; j < cols; ++j) {
      double expected = 0;
      for (std::int64_t dr = -1; dr <= 1; ++dr)
        for (std::int64_t dc = -1; dc <= 1; ++dc)
          expected += input_value(1 + i + dr, 1 + j + dc);
      expected /= 9;
      const double got = result.at<float>({i, j});
      worst = std::fmax(worst, std::fabs(got - expected));
      checksum += got;
    }
  }
  std::printf("trapeze %s: blur %lldx%lld checksum %.4f (max error %.2g)\n", TRAPEZE_VERSION_STRING,
              static_cast<long long>(rows), static_cast<long long>(cols), checksum, worst);
  return worst < 1e-5 ? 0 : 1;
}

} // namespace

int main() {
  try {
    return run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
