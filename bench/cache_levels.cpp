// How fast one core re-reads a block of memory, by the block's size against
// this machine's L2: where the L2 stops serving at its own speed, and how
// fast the next level serves. dp sizes a tile's buffers to a share of the L2
// (--cache-fill, 0.7); on the Intel guest, smaller tiles ran faster on most
// apps (docs/performance.md, "the share of the L2 a tile may fill"), and
// this table is what to compare between guests before that share is made a
// property of the machine.
//
//   build/bench/trapeze_bench_cache_levels [--rounds N]
//
// Prints a Markdown table: block size, its share of the L2, the best read
// bandwidth over the rounds (the sizes interleaved in each round), and that
// as a share of the best L2-resident block's.
#include "trapeze/autoschedule.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

// Reads the block `sweeps` times; integer sums in eight independent lanes,
// which the compiler vectorizes, so that the loop is bound by the loads.
std::uint64_t sweep(const std::vector<std::uint32_t>& block, std::size_t sweeps) {
  std::uint64_t total = 0;
  for (std::size_t s = 0; s < sweeps; ++s) {
    std::uint32_t lane[8] = {};
    for (std::size_t i = 0; i + 8 <= block.size(); i += 8)
      for (int k = 0; k < 8; ++k)
        lane[k] += block[i + static_cast<std::size_t>(k)];
    for (std::uint32_t v : lane)
      total += v;
  }
  return total;
}

} // namespace

int main(int argc, char** argv) {
  int rounds = 9;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--rounds" && a + 1 < argc) {
      rounds = std::max(1, std::atoi(argv[++a]));
    } else {
      std::fprintf(stderr, "usage: %s [--rounds N]\n", argv[0]);
      return 2;
    }
  }
  const trapeze::MachineModel& machine = trapeze::MachineModel::host();
  const double l2 = static_cast<double>(machine.l2_bytes);
  const std::vector<double> shares = {0.25, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.25, 1.5, 4, 16};
  std::vector<std::int64_t> sizes;
  sizes.push_back(machine.l1_bytes / 2);
  for (double s : shares)
    sizes.push_back(static_cast<std::int64_t>(s * l2) / 4096 * 4096);
  sizes.push_back(std::int64_t{256} << 20); // memory
  std::vector<std::vector<std::uint32_t>> blocks;
  for (std::int64_t bytes : sizes)
    blocks.emplace_back(static_cast<std::size_t>(bytes) / sizeof(std::uint32_t), 1u);
  // About 64 MB read a size and round: long enough to time, short enough to
  // interleave the sizes many times.
  constexpr double bytes_a_round = 64e6;
  std::vector<double> best(sizes.size(), 0);
  std::uint64_t sink = 0;
  for (int r = 0; r < rounds; ++r)
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      const std::size_t sweeps =
          std::max<std::size_t>(1, static_cast<std::size_t>(bytes_a_round / sizes[i]));
      sink += sweep(blocks[i], 1); // warm: the block where the sweeps find it
      const auto t0 = std::chrono::steady_clock::now();
      sink += sweep(blocks[i], sweeps);
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      best[i] = std::max(best[i], static_cast<double>(sweeps) * sizes[i] / seconds / 1e9);
    }
  // The L2's own speed: the best of the blocks of at most half of it that
  // the L1 cannot hold.
  double l2_speed = 0;
  for (std::size_t i = 1; i < sizes.size(); ++i)
    if (sizes[i] <= l2 / 2) l2_speed = std::max(l2_speed, best[i]);
  std::printf("L1 %lld KiB, L2 %lld KiB a core (%s); best of %d rounds, one thread\n\n",
              static_cast<long long>(machine.l1_bytes / 1024),
              static_cast<long long>(machine.l2_bytes / 1024), machine.source.c_str(), rounds);
  std::printf("| block | share of the L2 | GB/s | of the L2's speed |\n|---|---|---|---|\n");
  for (std::size_t i = 0; i < sizes.size(); ++i)
    std::printf("| %lld KiB | %.2f | %.1f | %.2f |\n", static_cast<long long>(sizes[i] / 1024),
                static_cast<double>(sizes[i]) / l2, best[i], best[i] / l2_speed);
  return sink == 42 ? 1 : 0; // keeps the sums
}
