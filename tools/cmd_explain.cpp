// `trapeze explain APP|FILE [--json] [--ir] [--lowered [--after PASS]] [--schedule FILE |
// --scheduler S]`: what trapeze knows about a pipeline, and how a schedule runs it.
#include "commands.h"
#include "pipeline_source.h"
#include "schedule_choice.h"
#include "trapeze/explain.h"
#include "trapeze/explain_schedule.h"
#include "trapeze/text_form.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <optional>

namespace trapeze::cli {

void add_explain_command(CLI::App& root, int& exit_code) {
  CLI::App* cmd = root.add_subcommand(
      "explain", "Print the analysis of a pipeline: stages, domains, accesses, dependences");
  struct Options {
    std::string target;
    bool json = false, ir = false, lowered = false;
    std::string after;
    std::vector<std::string> params;
    ScheduleChoice schedule;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("pipeline", o->target, "An app name (see 'trapeze list') or a pipeline text file")
      ->required();
  cmd->add_flag("--json", o->json, "Print the report as one JSON document");
  cmd->add_flag("--ir", o->ir, "Print the pipeline's text form instead (it parses back)");
  CLI::Option* lowered = cmd->add_flag(
      "--lowered", o->lowered, "Print the loop IR lowering makes under the schedule (default: dp)");
  cmd->add_option("--after", o->after,
                  "With --lowered: the loop IR after this pass (" +
                      fmt::format("{}", fmt::join(lowering_passes(), ", ")) + ")")
      ->needs(lowered)
      ->check(CLI::IsMember(lowering_passes()));
  cmd->add_option("--param", o->params, "Parameter value NAME=VALUE (repeatable)");
  add_schedule_options(*cmd, o->schedule);
  cmd->callback([o, &exit_code] {
    const PipelineSource source = resolve_pipeline(o->target);
    const ParamValues given = parse_param_arguments(o->params, source.pipeline);
    if (o->lowered) {
      const Schedule schedule = choose_schedule(source, o->schedule, given).schedule;
      fmt::print("{}", explain_lowered(source.pipeline, schedule, o->after));
    } else if (o->ir) {
      fmt::print("{}", to_text(source.pipeline));
    } else {
      const Pipeline& p = source.pipeline;
      const ParamValues bound = p.bind(given);
      check_sizes(p, bound);
      // The schedule section only when one was asked for: the analysis alone by default.
      std::optional<ChosenSchedule> chosen;
      std::optional<AutoScheduleReport> report;
      if (o->schedule.given()) chosen = choose_schedule(source, o->schedule, given, &report);
      if (o->json && chosen) {
        auto doc = nlohmann::ordered_json::parse(explain_json(p, bound));
        doc["schedule"] = schedule_json(p, *chosen);
        if (report)
          doc["schedule"]["search"] =
              nlohmann::ordered_json::parse(autoschedule_report_json(*report));
        chosen->schedule.validate(p);
        doc["schedule"]["footprints"] =
            nlohmann::ordered_json::parse(explain_footprints_json(p, chosen->schedule, bound));
        fmt::print("{}\n", doc.dump(2));
      } else if (o->json) {
        fmt::print("{}\n", explain_json(p, bound));
      } else {
        fmt::print("{}\n", explain_text(p, bound));
        if (chosen) {
          if (report) fmt::print("{}", autoschedule_report_text(*report));
          fmt::print("{}", schedule_text(p, *chosen));
          chosen->schedule.validate(p);
          fmt::print("{}", explain_footprints_text(p, chosen->schedule, bound));
        }
      }
    }
    exit_code = 0;
  });
}

} // namespace trapeze::cli
