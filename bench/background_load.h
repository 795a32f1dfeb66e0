// Busy threads beside a benchmark (trapeze bench --load N): the machine a
// user shares with a browser, a build or another request.
#pragma once

#include <atomic>
#include <thread>
#include <vector>

namespace trapeze::bench {

/// `threads` threads that spin (no sleeping, no yielding) from construction
/// until destruction, as a process busy with its own work does.
class BackgroundLoad {
public:
  explicit BackgroundLoad(int threads);
  ~BackgroundLoad();
  BackgroundLoad(const BackgroundLoad&) = delete;
  BackgroundLoad& operator=(const BackgroundLoad&) = delete;

private:
  std::atomic<bool> stop_{false};
  std::vector<std::thread> workers_;
};

} // namespace trapeze::bench
