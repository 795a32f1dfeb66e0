// Automatic scheduling: a schedule chosen for a pipeline by a model of the
// machine, so that nobody has to write one. Every choice lands in an ordinary
// Schedule (groups, tile sizes, storage, reasons) that `trapeze explain`
// prints and a user can save, edit and replay.
//
// The schedulers (docs/autoschedule.md):
//   dp             paper 001 (PolyMage+): dynamic-programming grouping (Alg. 1,
//                  bounded and incremental as Alg. 5) under the cost and
//                  tile-size model of Alg. 2 and 4, with automatic inlining
//                  (Alg. 3). The default everywhere.
//   greedy         PolyMage's greedy grouping (paper 001 §2.2): merge a group
//                  into its only child, largest first, while the overlap stays
//                  under a threshold; one tile size for every group.
//   halide-greedy  Halide's greedy pairwise merging (paper 001 §2.3, Mullapudi
//                  et al. 2016): repeatedly the merge of largest benefit under
//                  Halide's own cost model, power-of-two tiles.
//   naive          every stage its own untiled group (Schedule::naive).
#pragma once

#include "trapeze/pipeline.h"
#include "trapeze/schedule.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace trapeze {

/// The machine a schedule is made for.
struct MachineModel {
  int cores = 1;                      ///< threads the pipeline runs on
  std::int64_t l1_bytes = 32 * 1024;  ///< L1 data cache, per core
  std::int64_t l2_bytes = 256 * 1024; ///< L2 cache, per core
  std::int64_t l3_bytes = 0;          ///< last-level cache in all (0: unknown)
  int cache_line_bytes = 64;          ///< cache line
  int vector_bytes = 32;              ///< widest SIMD register the JIT targets
  /// The operations (reads and arithmetic, StageFacts::arithmetic) a core
  /// computes in the time it moves one byte to or from memory: the ridge of
  /// the roofline, below which a loop waits on memory. Not read from the
  /// machine: 8 float lanes at two vector operations a cycle over the ~5
  /// bytes a cycle a core of a two-core guest streams (docs/autoschedule.md).
  double ops_per_byte = 3;
  /// The memory bandwidth a loop gets streaming runs of `bytes` contiguous
  /// bytes far apart (the rows of a tile narrower than its image), as a
  /// share of what it gets streaming contiguous memory, reading and writing.
  struct RunShare {
    std::int64_t bytes = 0;
    double read = 1, write = 1;
  };
  /// Ascending in bytes: a run between two points takes a share between
  /// theirs (in log(bytes)), one shorter than the first the first's, one
  /// longer than the last the last's. Empty (the built-in default): every
  /// run streams at full bandwidth. runtime's host_machine() measures it
  /// (docs/autoschedule.md, "Row runs").
  std::vector<RunShare> run_bandwidth;
  double read_share(double run_bytes) const;
  double write_share(double run_bytes) const;
  /// Whether the JIT's code loads a vector's lanes from computed addresses
  /// (look-ups, data-dependent reads) with the CPU's gather instructions
  /// (true, the compiler's own choice) or one scalar load a lane (false:
  /// where those ran faster; the JIT then tells GCC not to gather).
  /// runtime's host_machine() measures it (docs/jit.md).
  bool vector_gathers = true;
  /// How fast a stencil runs in strips of whole rows whose window of rows
  /// (those it reads again from one row to the next) is too long for the L1
  /// and comes back from the L2, as a share of its speed in the same strips
  /// with their rows cut short enough for the L1 window, its image streamed
  /// from memory either way: in (0, 1]. 1 (the built-in default): no
  /// slower, and dp runs strips of whole rows however long their windows;
  /// below 0.9, dp cuts such a strip's rows where rows of InnerMostTileSize
  /// bring its window within the L1 (docs/autoschedule.md, "Row windows").
  /// runtime's host_machine() measures it.
  double l2_window_share = 1;
  /// Where the figures came from: "sysfs", "cpuid", "built-in defaults", a
  /// file name, "command line", or several of these joined by " + ".
  std::string source = "built-in defaults";

  /// This machine: cores from the CPUs this process may run on, caches from
  /// sysfs (else cpuid), vector width from cpuid. Read once per process.
  static const MachineModel& host();
  /// JSON (docs/autoschedule.md); from_json takes any subset of the fields over
  /// `base`, and throws trapeze::Error naming a malformed field.
  std::string to_json() const;
  static MachineModel from_json(const std::string& text, const MachineModel& base = host(),
                                const std::string& what = "machine model");
  static MachineModel load(const std::string& path, const MachineModel& base = host());
  /// Throws trapeze::Error unless every figure is positive (l3 may be 0).
  void validate() const;
};

/// The weights of paper 001's cost (eq. 2), one per component.
struct CostWeights {
  /// Paper 001's Table 3 (its Table 2, normalized), the Intel Xeon row; the
  /// components are normalized as docs/autoschedule.md says.
  double live_data = 47.04;       ///< w1: live-in and live-out data per computed point
  double cleanup = 1.0;           ///< w2: idle cores in the last round of tiles
  double overlap = 13.18;         ///< w3: redundant (overlapped) computation
  double size_difference = 33.57; ///< w4: difference of the fused stages' sizes
};

/// Which algorithm chooses the schedule.
enum class SchedulerKind : std::uint8_t { Naive, Greedy, HalideGreedy, DP };
/// "naive", "greedy", "halide-greedy", "dp".
const char* scheduler_name(SchedulerKind s);
std::optional<SchedulerKind> parse_scheduler(const std::string& name);

/// Everything an automatic scheduler is told.
struct AutoScheduleOptions {
  SchedulerKind scheduler = SchedulerKind::DP;
  /// Unset: MachineModel::host(), whose row runs are not measured;
  /// compile() and the command line pass host_machine() (runtime.h), which
  /// measures them once per machine.
  std::optional<MachineModel> machine;
  CostWeights weights;
  /// The parameter values the schedule is made for, as Halide's set_estimate:
  /// the sizes the model weighs (any size still runs correctly). A parameter
  /// not given takes its default; one with neither takes 1000 (clamped into its
  /// range), and the schedule's reasons say so.
  ParamValues estimates;
  /// The innermost tile is min(this, the dimension) points, rounded to the
  /// vector width (Alg. 2's InnerMostTileSize). The default was measured on
  /// this project's machines (docs/autoschedule.md): 512 beat 256, 1024 and
  /// whole rows over the image apps taken together.
  std::int64_t innermost_tile = 512;
  /// The share of a cache a tile's buffers may fill (the rest is for the
  /// live-in rows and the stack). 0.7 since tiles prefetch their live-ins'
  /// next rows (GroupSchedule::prefetch): measured against 0.5 on AMD Zen 5,
  /// Harris 0.92, bilateral_grid 0.955, the 3-D multigrid cycles 0.95-0.98,
  /// the others within 2%; 0.85 ran Harris 1.13 (docs/autoschedule.md).
  double cache_fill = 0.7;
  /// Multi-level tiling (Alg. 4): inner L1 tiles inside L2 tiles where no L1
  /// tile is accepted. Off by default: on this project's machines the inner
  /// bands cost more than they saved (docs/autoschedule.md).
  bool multi_level = false;
  /// Automatic inlining (Alg. 3) inside fused groups.
  bool inline_stages = true;
  /// Bounded incremental DP (Alg. 5): the first round's group limit and the
  /// factor it grows by each round. 0: automatic, no limit (the plain DP of
  /// Alg. 1) for pipelines of up to 24 stages, 16 for larger ones.
  int group_limit = 0;
  int group_limit_step = 2;
  /// dp: a round that meets more than this many distinct groups no earlier
  /// round met is given up, before it prices any, and repeated least-first or
  /// with a smaller group limit (so that no pipeline takes long).
  std::int64_t evaluation_budget = 6000;
  /// greedy: the one tile size of every group (per dimension, innermost last;
  /// a group with fewer dimensions takes the innermost ones) and the largest
  /// overlap (redundant / useful points) a merge may reach.
  std::vector<std::int64_t> greedy_tile_sizes = {32, 256};
  double greedy_overlap_threshold = 0.4;
};

/// One group as the scheduler costed it.
struct GroupCostReport {
  std::vector<std::string> stages;  ///< topological order
  std::vector<std::string> inlined; ///< stages inlined into the group's others
  std::vector<std::int64_t> tile_sizes, inner_tile_sizes;
  /// "L1", "L2", "L1 in L2" (multi-level), "untiled".
  std::string tiling;
  double cost = 0; ///< the weighted sum the scheduler minimized
  /// The raw components of eq. 2 (normalized as docs/autoschedule.md says).
  double live_data = 0, cleanup = 0, overlap = 0, size_difference = 0;
  double work_share = 0; ///< the group's share of the pipeline's computed points
};

/// What a scheduler did, for `trapeze explain` (paper 001's Table 1).
struct AutoScheduleReport {
  SchedulerKind scheduler = SchedulerKind::DP;
  MachineModel machine;
  ParamValues estimates; ///< every parameter, as the model used it
  /// Groupings the search reached (DP states; greedy merge steps), and
  /// distinct candidate groups whose cost was evaluated.
  std::int64_t groupings_enumerated = 0;
  std::int64_t groups_evaluated = 0;
  /// The group limit of each round of the bounded incremental DP (0: none).
  std::vector<int> rounds;
  double seconds = 0;
  double total_cost = 0;
  std::vector<GroupCostReport> groups; ///< in the schedule's order
  /// Human-readable lines: estimates assumed, limits hit.
  std::vector<std::string> notes;
};

/// A schedule for `p` made by options.scheduler; `report` (if given) says how.
/// Deterministic: the same pipeline, options and machine give the same schedule.
Schedule auto_schedule(const Pipeline& p, const AutoScheduleOptions& options = {},
                       AutoScheduleReport* report = nullptr);

/// The report as text (the `trapeze explain --scheduler dp` section) and JSON.
std::string autoschedule_report_text(const AutoScheduleReport& report);
std::string autoschedule_report_json(const AutoScheduleReport& report);

} // namespace trapeze
