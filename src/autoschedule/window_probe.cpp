// measure_l2_window_share: an image streamed from memory, a five-row stencil
// over it in strips of whole rows and in the same strips with their rows cut,
// timed interleaved on every core.
#include "autoschedule/window_probe.h"

#include "autoschedule/probe_threads.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace trapeze::autoschedule {

namespace {

constexpr std::int64_t window_taps = 5; // unsharp's and the pyramids' [1 4 6 4 1]
constexpr int window_passes = 7;
// A strip's output rows (the apps' strips of few halo rows: 11-17) and the
// rows the tile-size model cuts them to (InnerMostTileSize's default).
constexpr std::int64_t strip_rows = 16;
constexpr std::int64_t cut_floats = 512;

// Output rows [r0, r0 + rows) at columns [c0, c0 + w): the binomial stencil
// of in's rows r .. r + 4, written to out's row r. Vectorized as the
// generated code is (the library itself is built for the baseline ISA, whose
// narrower loads would hide part of what is measured).
#if defined(__x86_64__) || defined(__i386__)
__attribute__((target("avx2,fma"))) void stencil_avx2(const float* in, float* out,
                                                      std::int64_t width, std::int64_t r0,
                                                      std::int64_t rows, std::int64_t c0,
                                                      std::int64_t w) {
  const __m256 k1 = _mm256_set1_ps(0.0625f), k4 = _mm256_set1_ps(0.25f),
               k6 = _mm256_set1_ps(0.375f);
  for (std::int64_t r = r0; r < r0 + rows; ++r) {
    const float* a = in + r * width + c0;
    float* o = out + r * width + c0;
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

void stencil_plain(const float* in, float* out, std::int64_t width, std::int64_t r0,
                   std::int64_t rows, std::int64_t c0, std::int64_t w) {
  for (std::int64_t r = r0; r < r0 + rows; ++r) {
    const float* a = in + r * width + c0;
    float* o = out + r * width + c0;
    for (std::int64_t c = 0; c < w; ++c)
      o[c] = 0.0625f * (a[c] + a[4 * width + c]) + 0.25f * (a[width + c] + a[3 * width + c]) +
             0.375f * a[2 * width + c];
  }
}

} // namespace

double measure_l2_window_share(int threads, std::int64_t l1_bytes, std::int64_t l3_bytes) {
  using Kernel = void (*)(const float*, float*, std::int64_t, std::int64_t, std::int64_t,
                          std::int64_t, std::int64_t);
  Kernel kernel = stencil_plain;
#if defined(__x86_64__) || defined(__i386__)
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) kernel = stencil_avx2;
#endif
  // Whole rows: a window of twice the L1, a multiple of 64 floats (every row
  // starts on a cache line) and at least two cuts long.
  const std::int64_t width =
      std::max<std::int64_t>(2 * cut_floats, 2 * l1_bytes / window_taps / 4 / 64 * 64);
  // Twice the last-level cache each, so that the passes stream from memory.
  const std::int64_t bytes =
      std::clamp<std::int64_t>(2 * l3_bytes, std::int64_t{32} << 20, std::int64_t{128} << 20);
  // At least one strip, whatever the L1 (a huge one makes rows too wide for
  // the block).
  const std::int64_t rows = std::max(bytes / 4 / width, strip_rows + window_taps - 1);
  const std::size_t floats = static_cast<std::size_t>(width * rows);
  // Where the memory is not to be had, whole rows count as no slower (the
  // built-in default).
  const std::unique_ptr<float[]> in(new (std::nothrow) float[floats]),
      out(new (std::nothrow) float[floats]);
  if (!in || !out) return 1.0;
  for (std::size_t i = 0; i < floats; ++i) {
    in[i] = static_cast<float>(i % 251);
    out[i] = 0.0f;
  }
  const std::int64_t out_rows = rows - window_taps + 1;
  const std::int64_t strips = (out_rows + strip_rows - 1) / strip_rows;
  // One pass in tiles of a strip's rows and `w` columns, taken in row-major
  // order by whichever thread is free (as the generated code hands them out).
  const auto pass = [&](std::int64_t w) {
    const std::int64_t across = (width + w - 1) / w;
    std::atomic<std::int64_t> next{0};
    const auto work = [&] {
      for (std::int64_t t = next++; t < strips * across; t = next++) {
        const std::int64_t r0 = t / across * strip_rows, c0 = t % across * w;
        kernel(in.get(), out.get(), width, r0, std::min(strip_rows, out_rows - r0), c0,
               std::min(w, width - c0));
      }
    };
    return timed_on_threads(threads, work);
  };
  pass(width); // untimed: the threads and the kernel warmed up
  // The fastest of the passes: a shared machine's other work only ever slows
  // a pass down. Interleaved, so that a slow spell does not fall on one.
  double whole_rows = 1e30, cut_rows = 1e30;
  for (int p = 0; p < window_passes; ++p) {
    whole_rows = std::min(whole_rows, pass(width));
    cut_rows = std::min(cut_rows, pass(cut_floats));
  }
  // Rounded so that the noise of one measurement moves no schedule.
  return std::clamp(std::round(cut_rows / std::max(whole_rows, 1e-12) * 20) / 20, 0.05, 1.0);
}

} // namespace trapeze::autoschedule
