// `trapeze run APP|FILE`: compile through the JIT, time K runs, optionally
// check against the reference interpreter and write the output as a PNG.
#include "commands.h"
#include "pipeline_source.h"
#include "schedule_choice.h"
#include "trapeze/image_io.h"
#include "usage_error.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <thread>

namespace trapeze::cli {

namespace {

struct RunOptions {
  std::string target, input, output;
  std::vector<std::string> params;
  int threads = 0;
  int reps = 10;
  bool json = false, check = false;
  ScheduleChoice schedule;
};

double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// Writes an output buffer as a PNG: float values in [0, 1] become 8-bit.
void write_output_png(const Buffer& out, const std::string& path) {
  const bool image_shape =
      out.dimensions() == 2 ||
      (out.dimensions() == 3 && (out.extent(0) == 1 || out.extent(0) == 3 || out.extent(0) == 4));
  if (!image_shape)
    throw Error("cannot write an output of shape " + out.describe() +
                " as a PNG: it needs [rows][cols] or [1|3|4][rows][cols]");
  if (out.type() == ScalarType::UInt8 || out.type() == ScalarType::UInt16) {
    write_png(out, path);
  } else if (is_float(out.type())) {
    write_png(from_float(out, ScalarType::UInt8), path);
  } else {
    throw Error("cannot write an output of type " + std::string(type_name(out.type())) +
                " as a PNG (uint8, uint16, float32 or float64 only)");
  }
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
  ParamValues given = parse_param_arguments(o.params, p);
  Buffer image;
  if (!o.input.empty()) {
    if (!source.app)
      throw UsageError("--input needs an app; a pipeline file runs on synthetic inputs");
    try {
      image = read_png(o.input);
    } catch (const Error& e) { // a bad argument: exit code 2
      throw UsageError(std::string("--input: ") + e.what());
    }
    const std::int64_t rows = image.extent(image.dimensions() - 2);
    const std::int64_t cols = image.extent(image.dimensions() - 1);
    ParamValues sized = source.app->size_for_image(rows, cols);
    for (const auto& [name, v] : given)
      sized[name] = v; // explicit values win
    given = sized;
  }
  const ParamValues bound = p.bind(given);
  check_sizes(p, bound); // before inputs of these sizes are made
  const ChosenSchedule chosen = choose_schedule(source, o.schedule, given);
  const BufferMap inputs =
      image.defined() ? source.app->inputs_from_image(p, bound, image) : make_inputs(source, bound);

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
  if (!o.output.empty()) write_output_png(outputs.at(p.outputs().front()->name()), o.output);

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
  cmd->add_option("--input", o->input, "A PNG image to run on (apps only; sizes follow it)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--output", o->output, "Write the (first) output as a PNG");
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
