// Which schedule a command uses: --schedule FILE.json, or --scheduler
// naive|manual (the naive schedule by default), and how it is reported.
#pragma once

#include "pipeline_source.h"
#include "trapeze/schedule.h"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <string>

namespace trapeze::cli {

/// The schedule options of one command.
struct ScheduleChoice {
  std::string file;                ///< --schedule: a JSON schedule (docs/schedule.md)
  std::string scheduler = "naive"; ///< --scheduler: "naive" or "manual"
  CLI::Option* scheduler_option = nullptr;
  CLI::Option* file_option = nullptr;
  /// Either option was given on the command line.
  bool given() const {
    return (scheduler_option && scheduler_option->count() > 0) ||
           (file_option && file_option->count() > 0);
  }
};

/// Adds --schedule and --scheduler (mutually exclusive) to `cmd`.
/// `with_file` false: only --scheduler (the `schedule` command).
void add_schedule_options(CLI::App& cmd, ScheduleChoice& choice, bool with_file = true);

/// A schedule chosen by the options, with a label ("naive", "manual", or the
/// file path) saying where it came from.
struct ChosenSchedule {
  Schedule schedule;
  std::string label;
};

/// The schedule the options choose for `source`, validated against its
/// pipeline. Throws trapeze::Error if the app has no hand-written schedule,
/// if `manual` is asked of a pipeline file, or if the schedule is invalid.
ChosenSchedule choose_schedule(const PipelineSource& source, const ScheduleChoice& choice);

/// The schedule section of `trapeze explain`: per group its stages, tiles,
/// shape, inner tiles, parallel dimensions, vectorization, the storage of
/// every stage (after defaults) and the reasons.
std::string schedule_text(const Pipeline& p, const ChosenSchedule& chosen);
/// The same as JSON: the schedule's own JSON plus "source" and, per stage,
/// "effective_storage".
nlohmann::ordered_json schedule_json(const Pipeline& p, const ChosenSchedule& chosen);

} // namespace trapeze::cli
