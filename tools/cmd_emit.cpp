// `trapeze emit APP|FILE --out DIR [--schedule F | --scheduler S]`:
// ahead-of-time C++ for a user's build, under any schedule.
#include "commands.h"
#include "pipeline_source.h"
#include "schedule_choice.h"

#include <fmt/core.h>

namespace trapeze::cli {

void add_emit_command(CLI::App& root, int& exit_code) {
  CLI::App* cmd = root.add_subcommand(
      "emit", "Write the pipeline's C++ (DIR/NAME.h and DIR/NAME.cpp) for use in your own build");
  auto target = std::make_shared<std::string>();
  auto out = std::make_shared<std::string>();
  cmd->add_option("pipeline", *target, "An app name (see 'trapeze list') or a pipeline text file")
      ->required();
  cmd->add_option("--out", *out, "Output directory (created if missing)")->required();
  auto params = std::make_shared<std::vector<std::string>>();
  cmd->add_option("--param", *params,
                  "Parameter value NAME=VALUE the schedule is made for (repeatable; the "
                  "defaults otherwise)");
  auto choice = std::make_shared<ScheduleChoice>();
  add_schedule_options(*cmd, *choice);
  cmd->callback([target, out, params, choice, &exit_code] {
    const PipelineSource source = resolve_pipeline(*target);
    const ChosenSchedule chosen =
        choose_schedule(source, *choice, parse_param_arguments(*params, source.pipeline));
    for (const std::string& path : emit_aot(source.pipeline, chosen.schedule, *out))
      fmt::print("wrote {}\n", path);
    exit_code = 0;
  });
}

} // namespace trapeze::cli
