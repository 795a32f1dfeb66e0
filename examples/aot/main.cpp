// Calls the ahead-of-time compiled blur pipeline on a synthetic image, checks
// it against a direct computation, and prints a checksum.
#include "blur.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>

namespace {

/// 64-byte aligned, like trapeze::Buffer, so vectorized code may rely on it.
struct FreeDeleter {
  void operator()(float* p) const { std::free(p); }
};
using Image = std::unique_ptr<float[], FreeDeleter>;

Image allocate(std::int64_t n) {
  const std::size_t bytes = (static_cast<std::size_t>(n) * sizeof(float) + 63) / 64 * 64;
  return Image(static_cast<float*>(std::aligned_alloc(64, bytes)));
}

} // namespace

int main() {
  const std::int64_t R = 301, C = 517; // output rows and columns (odd on purpose)
  const std::int64_t W = C + 2;        // input row length
  Image img = allocate((R + 2) * W), out = allocate(R * C);
  for (std::int64_t x = 0; x < R + 2; ++x)
    for (std::int64_t y = 0; y < W; ++y)
      img[x * W + y] =
          static_cast<float>((x * 7 + y * 13) % 64) / 64.0f + (y > C / 2 ? 0.25f : 0.0f);

  // Parameters in Pipeline::params() order (sorted by name: C, then R); inputs
  // and outputs in the pipeline's order: img; blury ([1, R] x [1, C], stored R x C).
  trapeze_param params[2];
  params[0].i = C;
  params[1].i = R;
  // Buffers: element (0, ..., 0), extents and strides in elements (here dense
  // rows; a padded or interleaved layout only changes the strides).
  const int64_t img_extent[] = {R + 2, W}, img_stride[] = {W, 1};
  const int64_t out_extent[] = {R, C}, out_stride[] = {C, 1};
  const trapeze_buffer inputs[] = {{img.get(), img_extent, img_stride, 2, TRAPEZE_FLOAT32}};
  const trapeze_buffer outputs[] = {{out.get(), out_extent, out_stride, 2, TRAPEZE_FLOAT32}};
  if (const int status = trapeze_blur(params, inputs, outputs, 0, nullptr); status != 0) {
    std::printf("trapeze_blur returned %d\n", status);
    return 1;
  }

  double checksum = 0, worst = 0;
  for (std::int64_t x = 1; x <= R; ++x)
    for (std::int64_t y = 1; y <= C; ++y) {
      float b[3];
      for (int d = 0; d < 3; ++d) {
        const std::int64_t col = y - 1 + d;
        b[d] = (img[(x - 1) * W + col] + img[x * W + col] + img[(x + 1) * W + col]) / 3.0f;
      }
      const float expected = (b[0] + b[1] + b[2]) / 3.0f;
      const float got = out[(x - 1) * C + (y - 1)];
      worst = std::fmax(worst, std::fabs(static_cast<double>(got) - expected));
      checksum += got;
    }
  std::printf("blur %lld x %lld: checksum %.6f, largest difference %.3g\n",
              static_cast<long long>(R), static_cast<long long>(C), checksum, worst);
  if (!(worst <= 1e-5)) {
    std::printf("MISMATCH with the direct computation\n");
    return 1;
  }
  std::printf("matches the reference\n");
  return 0;
}
