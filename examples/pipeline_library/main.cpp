// Two pipelines compiled at build time by trapeze_add_pipeline, called
// through their typed C++ functions: an interleaved RGB image to grey
// (gray, from a C++ generator), then an unsharp mask (sharpen, from a
// pipeline text file). Checks both against direct computations.
#include "gray.h"
#include "sharpen.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

int main() {
  const int64_t R = 301, C = 517; // odd sizes on purpose
  // Interleaved RGB pixels, as a camera or an image library holds them.
  std::vector<uint8_t> pixels(R * C * 3);
  for (int64_t i = 0; i < R; ++i)
    for (int64_t j = 0; j < C; ++j)
      for (int64_t k = 0; k < 3; ++k)
        pixels[(i * C + j) * 3 + k] = static_cast<uint8_t>((i * 7 + j * 13 + k * 50) % 256);

  // The grey image, with a one-pixel border for sharpen's stencil: gray
  // writes the interior of a (R + 2) x (C + 2) array through a view with its
  // row stride, no copy.
  std::vector<float> padded((R + 2) * (C + 2), 0.0f);
  trapeze_aot::view<const uint8_t, 3> rgb;
  rgb.data = pixels.data();
  rgb.extent[0] = 3, rgb.extent[1] = R, rgb.extent[2] = C;
  rgb.stride[0] = 1, rgb.stride[1] = 3 * C, rgb.stride[2] = 3;
  trapeze_aot::view<float, 2> interior;
  interior.data = padded.data() + (C + 2) + 1;
  interior.extent[0] = R, interior.extent[1] = C;
  interior.stride[0] = C + 2, interior.stride[1] = 1;
  if (const trapeze_aot::status s = trapeze_aot::gray(C, R, rgb, interior); !s) {
    std::printf("gray failed (%d): %s\n", s.code, s.message);
    return 1;
  }

  std::vector<float> sharp(R * C);
  const int64_t img_extent[] = {R + 2, C + 2}, sharp_extent[] = {R, C};
  if (const trapeze_aot::status s =
          trapeze_aot::sharpen(C, R, trapeze_aot::dense<const float>(padded.data(), img_extent),
                               trapeze_aot::dense(sharp.data(), sharp_extent));
      !s) {
    std::printf("sharpen failed (%d): %s\n", s.code, s.message);
    return 1;
  }

  // The same computations, directly.
  double worst = 0;
  const auto grey = [&](int64_t i, int64_t j) -> float {
    if (i < 1 || i > R || j < 1 || j > C) return 0.0f;
    const uint8_t* p = &pixels[((i - 1) * C + (j - 1)) * 3];
    return (static_cast<float>(p[0]) * 0.299f + p[1] * 0.587f + p[2] * 0.114f) / 255.0f;
  };
  for (int64_t i = 1; i <= R; ++i)
    for (int64_t j = 1; j <= C; ++j) {
      float b[3];
      for (int d = 0; d < 3; ++d)
        b[d] = (grey(i - 1, j - 1 + d) + grey(i, j - 1 + d) + grey(i + 1, j - 1 + d)) / 3.0f;
      const float blur = (b[0] + b[1] + b[2]) / 3.0f;
      const float expected = grey(i, j) + 0.5f * (grey(i, j) - blur);
      worst = std::fmax(worst, std::fabs(static_cast<double>(sharp[(i - 1) * C + (j - 1)]) -
                                         expected));
    }

  // A buffer of the wrong size is refused with a message, not overrun.
  const int64_t wrong[] = {R, C + 1};
  const trapeze_aot::status refused = trapeze_aot::sharpen(
      C, R, trapeze_aot::dense<const float>(padded.data(), img_extent),
      trapeze_aot::dense(sharp.data(), wrong));
  std::printf("a wrong output extent: code %d, \"%s\"\n", refused.code, refused.message);
  if (refused.code != 4 || !std::strstr(refused.message, "output 'sharp' must be float32[301][517]"))
    return 1;

  std::printf("gray + sharpen %lld x %lld: largest difference %.3g\n", static_cast<long long>(R),
              static_cast<long long>(C), worst);
  if (!(worst <= 1e-5)) {
    std::printf("MISMATCH with the direct computation\n");
    return 1;
  }
  std::printf("matches the reference\n");
  return 0;
}
