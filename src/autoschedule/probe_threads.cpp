#include "autoschedule/probe_threads.h"

#include <chrono>
#include <system_error>
#include <thread>
#include <vector>

namespace trapeze::autoschedule {

double timed_on_threads(int threads, const std::function<void()>& work) {
  const auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> helpers;
  try {
    for (int i = 1; i < threads; ++i)
      helpers.emplace_back(work);
  } catch (const std::system_error&) {
    // The system is out of threads: the pass runs on those it got.
  }
  work();
  for (std::thread& h : helpers)
    h.join();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace trapeze::autoschedule
