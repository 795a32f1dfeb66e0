// The benchmark harness: trapeze's schedules and its peers, side by side, on
// the same inputs, in one run, every result checked.
#pragma once

#include "app.h"
#include "trapeze/runtime.h"

#include <functional>
#include <string>
#include <vector>

namespace trapeze::bench {

/// One thing to time: a trapeze schedule or a peer's implementation.
struct Variant {
  std::string name;                  ///< "trapeze naive", "halide manual", ...
  std::function<void()> run;         ///< one run on the shared inputs
  std::function<BufferMap()> result; ///< the outputs of the last run
  /// What the row's time is of, where that is not what trapeze's rows compute
  /// (a peer computing a larger image than asked); printed under the table.
  std::string note;
};

/// Times of one variant.
struct VariantResult {
  std::string name;
  std::vector<double> times_ms;
  double median_ms = 0, min_ms = 0;
  std::string check; ///< "reference", "ok" or what differs
};

/// One app's results.
struct AppResult {
  std::string app;
  ParamValues params;
  std::int64_t floor_bytes = 0; ///< inputs read once + outputs written once
  double floor_ms = 0;          ///< floor_bytes at the measured copy bandwidth
  std::vector<VariantResult> variants;
  std::vector<std::string> skipped; ///< variants that could not run, with why
  std::vector<std::string> notes;   ///< "<variant>: <its note>"
};

struct BenchOptions {
  std::vector<std::string> apps; ///< empty: every app
  /// "naive", "manual", "dp", "greedy", "halide-greedy"
  std::vector<std::string> schedulers;
  /// Schedule JSON files (docs/schedule.md) of the one app selected, each
  /// timed after the schedulers as "trapeze <path>": an edited schedule
  /// against the scheduler it came from, interleaved and checked.
  std::vector<std::string> schedule_files;
  std::vector<std::string> peers; ///< "halide", "opencv"
  int threads = 2;
  int reps = 15;
  bool small = false; ///< small_size instead of default_size (smoke tests)
  /// Busy background threads kept spinning while every variant is timed
  /// (after the bandwidth measurement, from the first compile to the last run).
  int load = 0;
};

struct BenchReport {
  BenchOptions options;
  double copy_bandwidth_gbs = 0; ///< measured in this run, bytes read + written
  std::vector<AppResult> apps;
  std::string date;
};

/// The copy bandwidth of this machine with `threads` threads (GB/s, bytes read
/// plus written), best of a few copies of arrays larger than the caches.
double measure_copy_bandwidth(int threads);

/// Runs `variants` interleaved (A B C A B C ...) after one warm-up run each,
/// `reps` times; checks every variant's result against the first one's with
/// `tolerance`; `progress` is called before each round.
std::vector<VariantResult> time_interleaved(std::vector<Variant>& variants, int reps,
                                            double tolerance,
                                            const std::function<void(int round)>& progress);

/// Runs the whole benchmark (progress lines on stderr).
BenchReport run_bench(const BenchOptions& options);

/// One table per app, then the geometric-mean rows.
std::string format_table(const BenchReport& report);
/// JSON (fields in docs/bench.md) and CSV (one row per app and variant).
std::string format_json(const BenchReport& report);
std::string format_csv(const BenchReport& report);
/// A grouped bar chart of the speedup over naive per app and variant,
/// drawn by gnuplot into `png_path`. Throws trapeze::Error if gnuplot fails.
void plot_speedups(const BenchReport& report, const std::string& png_path);

} // namespace trapeze::bench
