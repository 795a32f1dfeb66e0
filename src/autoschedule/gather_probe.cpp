// measure_vector_gathers: one 8-lane gather against eight scalar loads, each
// timed over the same indices into a table that stays in the L2 cache.
#include "autoschedule/gather_probe.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace trapeze::autoschedule {

namespace {

#if defined(__x86_64__) || defined(__i386__)

// A look-up like the generated code's: the eight lanes of a vector read
// within a few cache lines of each other (a grid's column, a curve's
// neighbourhood), the vectors far apart.
constexpr int table_floats = 64 * 1024; // 256 KiB
constexpr int index_count = 32 * 1024;  // 128 KiB of indices, read again each sweep
constexpr int sweeps = 32;

using Clock = std::chrono::steady_clock;

// Two lanes of the sum, returned so that the compiler keeps the loads.
__attribute__((target("avx2"))) inline float kept(__m256 sum) {
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, sum);
  return lanes[0] + lanes[7];
}

__attribute__((target("avx2"))) float gathered(const float* table, const std::int32_t* index) {
  __m256 a = _mm256_setzero_ps(), b = _mm256_setzero_ps();
  for (int s = 0; s < sweeps; ++s)
    for (int i = 0; i < index_count; i += 16) {
      const __m256i first = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(index + i));
      const __m256i second = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(index + i + 8));
      a = _mm256_add_ps(a, _mm256_i32gather_ps(table, first, 4));
      b = _mm256_add_ps(b, _mm256_i32gather_ps(table, second, 4));
    }
  return kept(_mm256_add_ps(a, b));
}

__attribute__((target("avx2"))) inline __m256 lanes_at(const float* table, const std::int32_t* at) {
  return _mm256_set_ps(table[at[7]], table[at[6]], table[at[5]], table[at[4]], table[at[3]],
                       table[at[2]], table[at[1]], table[at[0]]);
}

__attribute__((target("avx2"))) float loaded(const float* table, const std::int32_t* index) {
  __m256 a = _mm256_setzero_ps(), b = _mm256_setzero_ps();
  for (int s = 0; s < sweeps; ++s)
    for (int i = 0; i < index_count; i += 16) {
      a = _mm256_add_ps(a, lanes_at(table, index + i));
      b = _mm256_add_ps(b, lanes_at(table, index + i + 8));
    }
  return kept(_mm256_add_ps(a, b));
}

template <typename F> double seconds_of(F&& f, volatile float& sink) {
  const Clock::time_point start = Clock::now();
  sink = sink + f();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

#endif

} // namespace

bool measure_vector_gathers() {
#if defined(__x86_64__) || defined(__i386__)
  if (!__builtin_cpu_supports("avx2")) return true;
  std::vector<float> table(table_floats);
  for (int i = 0; i < table_floats; ++i)
    table[static_cast<std::size_t>(i)] = static_cast<float>(i % 251);
  // Each vector's lanes within 32 floats of a base that jumps (a fixed
  // generator: the same indices on every run).
  std::vector<std::int32_t> index(index_count);
  std::uint32_t state = 12345;
  const auto next = [&] { return state = state * 1664525u + 1013904223u; };
  for (int v = 0; v < index_count; v += 8) {
    const std::int32_t base = static_cast<std::int32_t>(next() >> 8) % (table_floats - 32);
    for (int lane = 0; lane < 8; ++lane)
      index[static_cast<std::size_t>(v + lane)] = base + static_cast<std::int32_t>(next() >> 27);
  }
  volatile float sink = 0;
  double gather = 1e30, scalar = 1e30;
  for (int pass = 0; pass < 5; ++pass) {
    gather =
        std::min(gather, seconds_of([&] { return gathered(table.data(), index.data()); }, sink));
    scalar = std::min(scalar, seconds_of([&] { return loaded(table.data(), index.data()); }, sink));
  }
  return !(scalar < 0.9 * gather);
#else
  return true;
#endif
}

} // namespace trapeze::autoschedule
