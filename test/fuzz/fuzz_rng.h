// The fuzzer's random numbers: std::mt19937_64 (whose output sequence the C++
// standard fixes) with distributions written here, because the standard
// library's distributions differ between implementations. A seed therefore
// gives the same pipeline and schedule on every machine.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace trapeze::fuzz {

/// A seeded source of draws that are the same on every platform.
class FuzzRng {
public:
  explicit FuzzRng(std::uint64_t seed) : engine_(seed) {}

  /// A raw 64-bit draw.
  std::uint64_t next() { return engine_(); }
  /// An integer in [lo, hi] (inclusive; the modulo bias is negligible here).
  std::int64_t uniform(std::int64_t lo, std::int64_t hi) {
    const auto span = static_cast<std::uint64_t>(hi - lo) + 1;
    return lo + static_cast<std::int64_t>(next() % span);
  }
  /// A double in [0, 1).
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// True with probability p.
  bool chance(double p) { return unit() < p; }
  /// An element of a non-empty vector.
  template <typename T> const T& pick(const std::vector<T>& items) {
    return items[static_cast<std::size_t>(uniform(0, static_cast<std::int64_t>(items.size()) - 1))];
  }
  /// An index into a non-empty range of n items.
  std::size_t index(std::size_t n) {
    return static_cast<std::size_t>(uniform(0, static_cast<std::int64_t>(n) - 1));
  }

private:
  std::mt19937_64 engine_;
};

} // namespace trapeze::fuzz
