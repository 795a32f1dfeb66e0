// Random valid schedules for the fuzzer's pipelines (docs/fuzzing.md).
//
// A draw groups stages by fusing producer-consumer edges at random (never a
// reduction, never a data-dependent edge, never a merge that makes the groups
// cyclic), then gives every group random tile sizes (1, small, not dividing
// the domain, larger than it, or untiled), a shape (scalene or polymage),
// sometimes inner tiles, parallel_tile_dims and vectorize, and every stage a
// storage (inlined for pure stages, scratchpad or full for the others).
// Draws that Schedule::validate rejects are counted and drawn again. Three
// seeds in ten take an automatic scheduler's schedule instead (dp, greedy or
// halide-greedy, for a random machine model and estimates).
#pragma once

#include "fuzz/fuzz_rng.h"
#include "fuzz/random_pipeline.h"
#include "trapeze/schedule.h"

#include <map>
#include <string>

namespace trapeze::fuzz {

/// One schedule draw, possibly invalid.
Schedule draw_schedule(const RandomPipeline& rp, FuzzRng& rng);

/// A valid schedule and how many draws were rejected before it.
struct ScheduleChoice {
  Schedule schedule;
  int rejected = 0;
  /// Rejections by the first words of Schedule::validate's message.
  std::map<std::string, int> reasons;
  /// True if every draw was rejected and the naive schedule was taken.
  bool fell_back = false;
  /// "random", or the automatic scheduler that made it.
  std::string source = "random";
};

/// Draws until Schedule::validate accepts (at most `attempts` draws, then
/// the naive schedule). The same seed gives the same schedule everywhere.
ScheduleChoice random_schedule(const RandomPipeline& rp, std::uint64_t seed, int attempts = 20);

} // namespace trapeze::fuzz
