// measure_l2_window_share: one block of rows in the L2, a five-row stencil
// over it in long rows and in columns of short rows, timed interleaved.
#include "autoschedule/window_probe.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace trapeze::autoschedule {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::int64_t window_taps = 5; // unsharp's and the pyramids' [1 4 6 4 1]
constexpr int window_passes = 9;

// Columns [c0, c0 + w) of each output row r < rows - window_taps + 1: the binomial
// stencil of in's rows r .. r + 4 there, written to one row of `out` (a
// scratchpad row the L1 keeps: only the input's window is measured). Vectorized as the
// generated code is (the library itself is built for the baseline ISA,
// whose loads would hide the L2's cost behind their own).
#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("avx2,fma"))) void stencil_avx2(const float* in, float* out,
                                                      std::int64_t width, std::int64_t rows,
                                                      std::int64_t c0, std::int64_t w) {
  const __m256 k1 = _mm256_set1_ps(0.0625f), k4 = _mm256_set1_ps(0.25f),
               k6 = _mm256_set1_ps(0.375f);
  for (std::int64_t r = 0; r + window_taps <= rows; ++r) {
    const float* a = in + r * width + c0;
    float* o = out + c0;
    for (std::int64_t c = 0; c + 8 <= w; c += 8) {
      __m256 s = _mm256_mul_ps(
          k1, _mm256_add_ps(_mm256_loadu_ps(a + c), _mm256_loadu_ps(a + 4 * width + c)));
      s = _mm256_fmadd_ps(
          k4, _mm256_add_ps(_mm256_loadu_ps(a + width + c), _mm256_loadu_ps(a + 3 * width + c)), s);
      s = _mm256_fmadd_ps(k6, _mm256_loadu_ps(a + 2 * width + c), s);
      _mm256_storeu_ps(o + c, s);
    }
  }
}
#endif

void stencil_plain(const float* in, float* out, std::int64_t width, std::int64_t rows,
                   std::int64_t c0, std::int64_t w) {
  for (std::int64_t r = 0; r + window_taps <= rows; ++r) {
    const float* a = in + r * width + c0;
    float* o = out + c0;
    for (std::int64_t c = 0; c < w; ++c)
      o[c] = 0.0625f * (a[c] + a[4 * width + c]) + 0.25f * (a[width + c] + a[3 * width + c]) +
             0.375f * a[2 * width + c];
  }
}

} // namespace

double measure_l2_window_share(std::int64_t l1_bytes, std::int64_t l2_bytes) {
  using Kernel =
      void (*)(const float*, float*, std::int64_t, std::int64_t, std::int64_t, std::int64_t);
  Kernel kernel = stencil_plain;
#if defined(__x86_64__) || defined(__i386__)
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) kernel = stencil_avx2;
#endif
  // Long rows: a window of twice the L1. Short: an eighth of it. Both
  // multiples of 64 floats, so that every row starts on a cache line.
  const auto floats = [](double bytes) {
    return std::max<std::int64_t>(64, static_cast<std::int64_t>(bytes / 4 / 64) * 64);
  };
  const std::int64_t width = floats(2.0 * static_cast<double>(l1_bytes) / window_taps);
  const std::int64_t chunk =
      std::min(width, floats(static_cast<double>(l1_bytes) / 8 / window_taps));
  // Half the L2, at least a window and a few rows to compute: the block
  // stays in the L2 between passes.
  const std::int64_t rows = std::max<std::int64_t>(
      window_taps + 3, l2_bytes / 2 / (width * static_cast<std::int64_t>(sizeof(float))));
  std::vector<float> in(static_cast<std::size_t>(width * rows)),
      out(static_cast<std::size_t>(width), 0.0f);
  for (std::size_t i = 0; i < in.size(); ++i)
    in[i] = static_cast<float>(i % 251);
  // About 16 MB of stencil output a pass, whatever the block's size.
  const std::int64_t repeats =
      std::max<std::int64_t>(1, (std::int64_t{1} << 22) / (width * (rows - window_taps + 1)));
  const auto time = [&](std::int64_t w) {
    const Clock::time_point start = Clock::now();
    for (std::int64_t k = 0; k < repeats; ++k)
      for (std::int64_t c0 = 0; c0 < width; c0 += w)
        kernel(in.data(), out.data(), width, rows, c0, std::min(w, width - c0));
    return std::chrono::duration<double>(Clock::now() - start).count();
  };
  time(width); // brings the block into the L2
  // The fastest of the passes: a shared machine's other work only ever
  // slows a pass down.
  double long_rows = 1e30, short_rows = 1e30;
  for (int pass = 0; pass < window_passes; ++pass) {
    long_rows = std::min(long_rows, time(width));
    short_rows = std::min(short_rows, time(chunk));
  }
  // Rounded so that the noise of one measurement moves no schedule.
  return std::clamp(std::round(short_rows / std::max(long_rows, 1e-12) * 20) / 20, 0.05, 1.0);
}

} // namespace trapeze::autoschedule
