// `trapeze run APP|FILE`: compile through the JIT, time K runs, optionally
// check against the reference interpreter and write outputs as image files.
#include "commands.h"
#include "image_arguments.h"
#include "pipeline_source.h"
#include "schedule_choice.h"
#include "usage_error.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <thread>

namespace trapeze::cli {

namespace {

struct RunOptions {
  std::string target;
  std::vector<std::string> inputs, outputs, params;
  int threads = 0;
  int reps = 10;
  bool json = false, check = false;
  ScheduleChoice schedule;
};

double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

std::string describe_params(const ParamValues& bound) {
  std::string s;
  for (const auto& [name, v] : bound)
    s += (s.empty() ? "" : " ") + name + "=" +
         (v.is_float ? fmt::format("{}", v.f) : std::to_string(v.i));
  return s;
}

int run(const RunOptions& o) {
  const PipelineSource source = resolve_pipeline(o.target);
  const Pipeline& p = source.pipeline;
  const std::vector<std::pair<std::string, std::string>> output_files =
      parse_output_arguments(p, o.outputs);
  BoundImages images = bind_input_images(source, o.inputs, parse_param_arguments(o.params, p));
  const ParamValues& given = images.given;
  const ParamValues bound = p.bind(given);
  check_sizes(p, bound); // before inputs of these sizes are made
  const ChosenSchedule chosen = choose_schedule(source, o.schedule, given);
  BufferMap inputs = std::move(images.inputs);
  if (inputs.size() < p.inputs().size()) { // the others are synthetic
    for (auto& [name, buffer] : make_inputs(source, bound)) {
      if (inputs.count(name)) continue;
      if (!o.inputs.empty())
        fmt::print(stderr, "trapeze: note: input '{}' has no --input image; it is synthetic\n",
                   name);
      inputs.emplace(name, std::move(buffer));
    }
  }

  auto start = std::chrono::steady_clock::now();
  const CompiledPipeline compiled = compile(p, chosen.schedule);
  const double compile_ms = milliseconds_since(start);

  BufferMap outputs = allocate_outputs(p, bound);
  compiled.run(bound, inputs, outputs, o.threads); // warm-up: page faults, thread pool
  std::vector<double> times;
  for (int r = 0; r < o.reps; ++r) {
    start = std::chrono::steady_clock::now();
    compiled.run(bound, inputs, outputs, o.threads);
    times.push_back(milliseconds_since(start));
  }
  std::vector<double> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  const double median = sorted.empty() ? 0.0
                        : sorted.size() % 2
                            ? sorted[sorted.size() / 2]
                            : 0.5 * (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]);
  const double minimum = sorted.empty() ? 0.0 : sorted.front();

  std::string check_result = "not run";
  std::string mismatch_text;
  if (o.check) {
    // Bit for bit, except where a reassociated float sum feeds an output (output_tolerance).
    const double tolerance = source.app && source.app->tolerance > 0 ? source.app->tolerance : 1e-4;
    const BufferMap reference = interpret(p, bound, inputs);
    check_result = "passed";
    if (const auto m =
            compare_outputs(p, reference, outputs, compiled.reassociated_sums(), tolerance)) {
      check_result = "failed";
      mismatch_text =
          "output '" + m->first + "' differs from the interpreter at " + m->second.str();
    }
  }
  for (const auto& [name, path] : output_files)
    write_output(name, outputs.at(name), path);

  const int threads =
      o.threads > 0 ? o.threads : static_cast<int>(std::thread::hardware_concurrency());
  if (o.json) {
    nlohmann::json j;
    j["pipeline"] = source.label;
    nlohmann::json params = nlohmann::json::object();
    for (const auto& [name, v] : bound)
      params[name] = v.is_float ? nlohmann::json(v.f) : nlohmann::json(v.i);
    j["params"] = params;
    j["schedule"] = chosen.label;
    j["threads"] = threads;
    j["reps"] = o.reps;
    j["median_ms"] = median;
    j["min_ms"] = minimum;
    j["times_ms"] = times;
    j["compile_ms"] = compile_ms;
    j["from_cache"] = compiled.from_cache();
    j["check"] = check_result;
    if (!mismatch_text.empty()) j["mismatch"] = mismatch_text;
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print(
        "{}: median {:.3f} ms, min {:.3f} ms over {} runs, {} threads ({}; {} schedule; compile "
        "{:.0f} ms{})\n",
        source.label, median, minimum, o.reps, threads, describe_params(bound), chosen.label,
        compile_ms, compiled.from_cache() ? ", cached" : "");
    if (o.check) fmt::print("check against the interpreter: {}\n", check_result);
  }
  if (check_result == "failed") {
    fmt::print(stderr, "trapeze: check failed: {}\n", mismatch_text);
    return 1;
  }
  return 0;
}

} // namespace

void add_run_command(CLI::App& root, int& exit_code) {
  CLI::App* cmd = root.add_subcommand(
      "run", "Compile a pipeline through the JIT and time it (JIT time excluded)");
  auto o = std::make_shared<RunOptions>();
  cmd->add_option("pipeline", o->target, "An app name (see 'trapeze list') or a pipeline text file")
      ->required();
  cmd->add_option("--input", o->inputs,
                  "NAME=FILE: an image (PNG, JPEG, TIFF or .npy) for input NAME; parameters "
                  "follow its size (repeatable). An app also takes one FILE without a name");
  cmd->add_option("--output", o->outputs,
                  "NAME=FILE: write output NAME by FILE's extension (.png, .jpg, .tif, .npy; "
                  "repeatable); FILE alone: the first output");
  cmd->add_option("--param", o->params, "Parameter value NAME=VALUE (repeatable)");
  cmd->add_option("--threads", o->threads, "Threads (default: all cores)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--reps", o->reps, "Timed runs (after one warm-up run)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  cmd->add_flag("--json", o->json, "Print the result as one JSON object");
  cmd->add_flag("--check", o->check,
                "Also run the reference interpreter; exit 1 naming the first differing pixel");
  add_schedule_options(*cmd, o->schedule);
  cmd->callback([o, &exit_code] { exit_code = run(*o); });
}

} // namespace trapeze::cli
