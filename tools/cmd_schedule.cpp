// `trapeze schedule APP|FILE [--scheduler dp|greedy|halide-greedy|naive|manual]
// [--param N=V]`: prints a schedule as JSON, for a user to start from, edit,
// and pass back with --schedule.
#include "commands.h"
#include "pipeline_source.h"
#include "schedule_choice.h"

#include <fmt/core.h>

namespace trapeze::cli {

void add_schedule_command(CLI::App& root, int& exit_code) {
  CLI::App* cmd = root.add_subcommand(
      "schedule", "Print a pipeline's schedule as JSON (edit it and pass it to --schedule)");
  struct Options {
    std::string target;
    std::vector<std::string> params;
    ScheduleChoice schedule;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("pipeline", o->target, "An app name (see 'trapeze list') or a pipeline text file")
      ->required();
  cmd->add_option("--param", o->params,
                  "Parameter value NAME=VALUE the schedule is made for (repeatable; the "
                  "defaults otherwise)");
  add_schedule_options(*cmd, o->schedule, /*with_file=*/false);
  cmd->callback([o, &exit_code] {
    const PipelineSource source = resolve_pipeline(o->target);
    fmt::print("{}", choose_schedule(source, o->schedule,
                                     parse_param_arguments(o->params, source.pipeline))
                         .schedule.to_json());
    exit_code = 0;
  });
}

} // namespace trapeze::cli
