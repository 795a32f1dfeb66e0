// Interleaved timing: variants take turns, so that drift in the machine's
// speed (shared, noisy hosts) affects all of them alike.
#include "harness.h"

#include <algorithm>
#include <chrono>

namespace trapeze::bench {

namespace {
double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
} // namespace

std::vector<VariantResult> time_interleaved(std::vector<Variant>& variants, int reps,
                                            double tolerance,
                                            const std::function<void(int round)>& progress) {
  std::vector<VariantResult> results(variants.size());
  for (std::size_t v = 0; v < variants.size(); ++v) {
    results[v].name = variants[v].name;
    variants[v].run(); // warm-up: page faults, thread pools, caches
  }
  // Check before timing, so a wrong variant is reported even if timing is cut short.
  const BufferMap reference = variants.empty() ? BufferMap{} : variants.front().result();
  for (std::size_t v = 0; v < variants.size(); ++v) {
    if (v == 0) {
      results[v].check = "reference";
      continue;
    }
    const BufferMap mine = variants[v].result();
    results[v].check = "ok";
    for (const auto& [name, expected] : reference) {
      const auto it = mine.find(name);
      if (it == mine.end()) {
        results[v].check = "output '" + name + "' missing";
        break;
      }
      if (auto m = compare_buffers(expected, it->second, tolerance)) {
        results[v].check = "DIFFERS: output '" + name + "' " + m->str();
        break;
      }
    }
  }
  for (int round = 0; round < reps; ++round) {
    if (progress) progress(round);
    for (std::size_t v = 0; v < variants.size(); ++v) {
      const auto start = std::chrono::steady_clock::now();
      variants[v].run();
      results[v].times_ms.push_back(
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count());
    }
  }
  for (VariantResult& r : results) {
    r.median_ms = median_of(r.times_ms);
    r.min_ms = r.times_ms.empty() ? 0 : *std::min_element(r.times_ms.begin(), r.times_ms.end());
  }
  return results;
}

} // namespace trapeze::bench
