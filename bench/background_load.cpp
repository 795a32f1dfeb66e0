// Busy threads beside a benchmark (background_load.h).
#include "background_load.h"

#include <cstdint>

namespace trapeze::bench {

BackgroundLoad::BackgroundLoad(int threads) {
  for (int t = 0; t < threads; ++t) {
    workers_.emplace_back([this] {
      // Arithmetic the compiler cannot drop, checking the flag now and then:
      // the core stays busy without touching shared cache lines in a loop.
      volatile std::uint64_t sink = 0;
      while (!stop_.load(std::memory_order_relaxed))
        for (int i = 0; i < 4096; ++i)
          sink = sink * 6364136223846793005ULL + 1442695040888963407ULL;
    });
  }
}

BackgroundLoad::~BackgroundLoad() {
  stop_.store(true, std::memory_order_relaxed);
  for (std::thread& w : workers_)
    w.join();
}

} // namespace trapeze::bench
