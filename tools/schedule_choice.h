// Which schedule a command uses: --schedule FILE.json, or --scheduler
// naive|manual|greedy|halide-greedy|dp (dp by default), the automatic
// schedulers' options (machine, weights, limits), and how it is reported.
#pragma once

#include "pipeline_source.h"
#include "trapeze/autoschedule.h"
#include "trapeze/schedule.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace trapeze::cli {

/// The machine model a command schedules for: --machine FILE, then the
/// single overrides (0: not given).
struct MachineChoice {
  std::string file;
  int cores = 0;
  std::int64_t l1_bytes = 0, l2_bytes = 0;
  int vector_bytes = 0;
  /// The model: the host's, or the file's over it, then the overrides.
  MachineModel resolve() const;
};

/// Adds --machine, --cores, --l1-bytes, --l2-bytes, --vector-bytes.
void add_machine_options(CLI::App& cmd, MachineChoice& choice);

/// The schedule options of one command.
struct ScheduleChoice {
  std::string file;             ///< --schedule: a JSON schedule (docs/schedule.md)
  std::string scheduler = "dp"; ///< --scheduler
  MachineChoice machine;
  std::vector<double> weights;              ///< --cost-weights: w1,w2,w3,w4 (empty: the defaults)
  int group_limit = 0;                      ///< --group-limit (0: none)
  std::int64_t innermost_tile = 0;          ///< --innermost-tile (0: the default)
  bool multi_level = false;                 ///< --multi-level
  double cache_fill = 0;                    ///< --cache-fill (0: the default)
  std::string autotune_results;             ///< --autotune-results
  std::vector<std::int64_t> autotune_sizes; ///< --autotune-sizes (empty: paper 001's)
  std::vector<double> autotune_thresholds;  ///< --autotune-thresholds (empty: paper 001's)
  CLI::Option* scheduler_option = nullptr;
  CLI::Option* file_option = nullptr;
  /// Either option was given on the command line.
  bool given() const {
    return (scheduler_option && scheduler_option->count() > 0) ||
           (file_option && file_option->count() > 0);
  }
};

/// The names --scheduler takes.
const std::vector<std::string>& scheduler_names();

/// Adds --schedule and --scheduler (mutually exclusive) and the automatic
/// schedulers' options to `cmd`. `with_file` false: no --schedule (the
/// `schedule` command).
void add_schedule_options(CLI::App& cmd, ScheduleChoice& choice, bool with_file = true);

/// The automatic scheduler's options from the command line, for the
/// parameter estimates `estimates` (--param values; the rest take defaults).
AutoScheduleOptions autoschedule_options(const ScheduleChoice& choice, SchedulerKind kind,
                                         const ParamValues& estimates);

/// A schedule chosen by the options, with a label ("naive", "manual", or the
/// file path) saying where it came from.
struct ChosenSchedule {
  Schedule schedule;
  std::string label;
};

/// The schedule the options choose for `source`, validated against its
/// pipeline; automatic schedules for the parameter values `estimates` (from
/// the schedule cache unless `report` is asked for, which searches afresh and
/// fills it). `autotune` builds and times its candidates on `source`'s inputs
/// at those values, with a progress line on stderr; Ctrl-C stops it with the
/// best so far (it resumes from its results file the next time). Throws trapeze::Error if the app
/// has no hand-written schedule, if `manual` is asked of a pipeline file, or if the schedule is
/// invalid.
ChosenSchedule choose_schedule(const PipelineSource& source, const ScheduleChoice& choice,
                               const ParamValues& estimates = {},
                               std::optional<AutoScheduleReport>* report = nullptr);

/// The schedule section of `trapeze explain`: per group its stages, tiles,
/// shape, inner tiles, parallel dimensions, vectorization, the storage of
/// every stage (after defaults) and the reasons.
std::string schedule_text(const Pipeline& p, const ChosenSchedule& chosen);
/// The same as JSON: the schedule's own JSON plus "source" and, per stage,
/// "effective_storage".
nlohmann::ordered_json schedule_json(const Pipeline& p, const ChosenSchedule& chosen);

} // namespace trapeze::cli
