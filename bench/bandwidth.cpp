// The machine's copy bandwidth, measured in the same run as the pipelines so
// that the memory floor moves with the machine's current state.
#include "harness.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <thread>

namespace trapeze::bench {

double measure_copy_bandwidth(int threads) {
  // 256 MiB each way: far beyond any cache, like a full-size image pipeline.
  constexpr std::size_t bytes = std::size_t{256} << 20;
  constexpr std::size_t count = bytes / sizeof(float);
  const auto src = std::make_unique<float[]>(count);
  const auto dst = std::make_unique<float[]>(count);
  threads = std::max(1, threads);
  const auto copy_part = [&](int t) {
    // Each thread first touches what it copies, as a pipeline's threads do.
    const std::size_t lo = count * static_cast<std::size_t>(t) / static_cast<std::size_t>(threads);
    const std::size_t hi =
        count * static_cast<std::size_t>(t + 1) / static_cast<std::size_t>(threads);
    for (std::size_t i = lo; i < hi; ++i)
      dst[i] = src[i] + 1.0f; // an ordinary-store copy loop
  };
  const auto parallel_copy = [&] {
    std::vector<std::thread> workers;
    for (int t = 1; t < threads; ++t)
      workers.emplace_back(copy_part, t);
    copy_part(0);
    for (std::thread& w : workers)
      w.join();
  };
  std::fill_n(src.get(), count, 0.5f);
  parallel_copy(); // page in
  double best_s = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    const auto start = std::chrono::steady_clock::now();
    parallel_copy();
    best_s = std::min(
        best_s, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return 2.0 * static_cast<double>(bytes) / best_s / 1e9;
}

} // namespace trapeze::bench
