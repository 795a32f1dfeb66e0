// PolyMage-A: the empirical auto-tuner paper 001 compares against (§7.4.1).
// It runs PolyMage's greedy grouping (docs/autoschedule.md) for every tile
// size and overlap threshold of a small space, builds and times each
// schedule, and keeps the fastest. Each result is appended to a results file
// as it is measured, so that a run stopped (Ctrl-C, `stop`) resumes where it
// left off.
#pragma once

#include "trapeze/runtime.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace trapeze {

/// Where the auto-tuner stands, after each candidate.
struct AutotuneProgress {
  int done = 0, total = 0; ///< candidates measured (or read back) of all
  double best_ms = 0;      ///< the fastest so far (0: none yet)
  std::vector<std::int64_t> best_tiles;
  double best_threshold = 0;
  double seconds = 0;      ///< spent in this run
  double seconds_left = 0; ///< estimated from this run's candidates so far
};

struct AutotuneOptions {
  /// Tile sizes tried per dimension (the innermost two) and overlap
  /// thresholds: paper 001's space, 7 x 7 x 3 = 147 candidates.
  std::vector<std::int64_t> tile_sizes = {8, 16, 32, 64, 128, 256, 512};
  std::vector<double> thresholds = {0.2, 0.4, 0.5};
  int reps = 3;    ///< timed runs per candidate (the median counts), after one warm-up
  int threads = 0; ///< 0: OpenMP's default
  /// The results file (one JSON object a line). Its first line names what it
  /// is for; a file for another pipeline, size or machine is an error.
  /// Empty: <cache dir>/autotune/<key>.jsonl, which a later run resumes.
  std::string results_file;
  CompileOptions compile; ///< the JIT's, and the machine model (compile.scheduling.machine)
  std::function<void(const AutotuneProgress&)> progress; ///< after each candidate
  const std::atomic<bool>* stop = nullptr; ///< set: finish the candidate at hand, then stop
};

struct AutotuneResult {
  Schedule best; ///< the fastest candidate's schedule (PolyMage's greedy)
  double best_ms = 0;
  std::vector<std::int64_t> best_tiles;
  double best_threshold = 0;
  int measured = 0; ///< candidates built and timed in this run
  /// Candidates not built in this run: read back from the results file, or
  /// choosing the same schedule as one measured (its time is theirs).
  int resumed = 0;
  int total = 0;
  bool stopped = false; ///< stopped before the end: `best` is the best so far
  std::string results_file;
};

/// Tunes `p` at the parameter values `params` on `inputs`. Throws
/// trapeze::Error if the results file cannot be used, or if it was stopped
/// before any candidate was measured.
AutotuneResult autotune(const Pipeline& p, const ParamValues& params, const BufferMap& inputs,
                        const AutotuneOptions& options = {});

} // namespace trapeze
