// `trapeze explain APP|FILE [--json] [--ir]`: what trapeze knows about a pipeline.
#include "commands.h"
#include "pipeline_source.h"
#include "trapeze/explain.h"
#include "trapeze/text_form.h"

#include <fmt/core.h>

namespace trapeze::cli {

void add_explain_command(CLI::App& root, int& exit_code) {
  CLI::App* cmd = root.add_subcommand(
      "explain", "Print the analysis of a pipeline: stages, domains, accesses, dependences");
  struct Options {
    std::string target;
    bool json = false, ir = false;
    std::vector<std::string> params;
  };
  auto o = std::make_shared<Options>();
  cmd->add_option("pipeline", o->target, "An app name (see 'trapeze list') or a pipeline text file")
      ->required();
  cmd->add_flag("--json", o->json, "Print the report as one JSON document");
  cmd->add_flag("--ir", o->ir, "Print the pipeline's text form instead (it parses back)");
  cmd->add_option("--param", o->params, "Parameter value NAME=VALUE (repeatable)");
  cmd->callback([o, &exit_code] {
    const PipelineSource source = resolve_pipeline(o->target);
    if (o->ir) {
      fmt::print("{}", to_text(source.pipeline));
    } else {
      const ParamValues bound = source.pipeline.bind(parse_param_arguments(o->params));
      fmt::print("{}\n", o->json ? explain_json(source.pipeline, bound)
                                 : explain_text(source.pipeline, bound));
    }
    exit_code = 0;
  });
}

} // namespace trapeze::cli
