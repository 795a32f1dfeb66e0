// autotune: PolyMage-A, an empirical search over PolyMage's greedy grouping's
// tile sizes and overlap thresholds (include/trapeze/autotune.h).
#include "trapeze/autotune.h"

#include "runtime/jit_cache.h"
#include "trapeze/error.h"
#include "trapeze/text_form.h"
#include "trapeze/version.h"

#include <fmt/core.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>

namespace trapeze {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

struct Candidate {
  std::vector<std::int64_t> tiles;
  double threshold = 0;
};

// What a results file is for: the pipeline, its sizes, the machine and the space.
std::string results_key(const Pipeline& p, const ParamValues& params, const MachineModel& machine,
                        const AutotuneOptions& o) {
  std::string text = fmt::format("trapeze {};", TRAPEZE_VERSION_STRING) + to_text(p);
  for (const auto& [name, v] : params)
    text += fmt::format("{}={};", name, v.is_float ? fmt::format("{}", v.f) : std::to_string(v.i));
  text += machine.to_json();
  text += fmt::format("sizes {};thresholds {};threads {}", fmt::join(o.tile_sizes, ","),
                      fmt::join(o.thresholds, ","), o.threads);
  return runtime::hash128_hex(text);
}

// The schedule without its reasons: candidates that group and tile alike
// are measured once.
std::string shape_of(Schedule s) {
  for (GroupSchedule& g : s.groups)
    g.reasons.clear();
  return s.to_json();
}

double median_ms(const CompiledPipeline& compiled, const ParamValues& params,
                 const BufferMap& inputs, BufferMap& outputs, int reps, int threads) {
  compiled.run(params, inputs, outputs, threads); // warm-up
  std::vector<double> times;
  for (int r = 0; r < std::max(1, reps); ++r) {
    const auto start = std::chrono::steady_clock::now();
    compiled.run(params, inputs, outputs, threads);
    times.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// Reads the measured candidates of a results file for `key` (none if it does
// not exist); throws if it belongs to something else or is damaged.
std::map<std::pair<std::vector<std::int64_t>, double>, double>
read_results(const fs::path& path, const std::string& key) {
  std::map<std::pair<std::vector<std::int64_t>, double>, double> out;
  std::ifstream in(path);
  if (!in) return out;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    json j;
    try {
      j = json::parse(line);
    } catch (const json::parse_error&) {
      // A line cut short by a stop mid-write: the candidates before it count.
      break;
    }
    if (number == 1) {
      if (!j.contains("key") || j["key"] != key)
        throw Error("autotune: the results file '" + path.string() +
                    "' is for another pipeline, size, machine or search space; delete it or "
                    "name another file");
      continue;
    }
    if (!j.contains("tiles") || !j.contains("threshold") || !j.contains("median_ms") ||
        !j["tiles"].is_array() || !j["threshold"].is_number() || !j["median_ms"].is_number())
      throw Error(fmt::format("autotune: line {} of the results file '{}' is not a result; "
                              "delete the file to start again",
                              number, path.string()));
    out[{j["tiles"].get<std::vector<std::int64_t>>(), j["threshold"].get<double>()}] =
        j["median_ms"].get<double>();
  }
  return out;
}

} // namespace

AutotuneResult autotune(const Pipeline& p, const ParamValues& params, const BufferMap& inputs,
                        const AutotuneOptions& options) {
  if (options.tile_sizes.empty() || options.thresholds.empty())
    throw Error("autotune: the search space is empty (give tile sizes and thresholds)");
  for (std::int64_t t : options.tile_sizes)
    if (t < 1) throw Error(fmt::format("autotune: tile size {} is not positive", t));
  const MachineModel machine = options.compile.scheduling.machine
                                   ? *options.compile.scheduling.machine
                                   : host_machine(options.compile);
  const ParamValues bound = p.bind(params);
  const std::string key = results_key(p, bound, machine, options);
  AutotuneResult result;
  result.results_file =
      options.results_file.empty()
          ? (fs::path(runtime::resolve_cache_dir(options.compile)) / "autotune" / (key + ".jsonl"))
                .string()
          : options.results_file;
  const fs::path path(result.results_file);
  auto done = read_results(path, key);
  if (!fs::exists(path)) {
    std::error_code ec;
    if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
    std::ofstream header(path);
    header << json{{"key", key}, {"pipeline", p.name()}, {"trapeze_autotune", 1}}.dump() << "\n";
    if (!header) throw Error("autotune: cannot write the results file '" + path.string() + "'");
  }
  std::ofstream log(path, std::ios::app);

  std::vector<Candidate> candidates;
  for (double threshold : options.thresholds)
    for (std::int64_t outer : options.tile_sizes)
      for (std::int64_t inner : options.tile_sizes)
        candidates.push_back({{outer, inner}, threshold});
  result.total = static_cast<int>(candidates.size());

  AutoScheduleOptions scheduling = options.compile.scheduling;
  scheduling.scheduler = SchedulerKind::Greedy;
  scheduling.machine = machine;
  scheduling.estimates = bound;
  BufferMap outputs = allocate_outputs(p, bound);
  std::map<std::string, double> by_shape; // measured schedules, by their shape
  const auto start = std::chrono::steady_clock::now();
  AutotuneProgress progress;
  progress.total = result.total;
  for (const Candidate& c : candidates) {
    if (options.stop && options.stop->load()) {
      result.stopped = true;
      break;
    }
    scheduling.greedy_tile_sizes = c.tiles;
    scheduling.greedy_overlap_threshold = c.threshold;
    const Schedule s = auto_schedule(p, scheduling);
    const std::string shape = shape_of(s);
    const auto record = [&](double median) {
      log << json{{"tiles", c.tiles}, {"threshold", c.threshold}, {"median_ms", median}}.dump()
          << "\n";
      log.flush();
    };
    double ms = 0;
    if (const auto it = done.find({c.tiles, c.threshold}); it != done.end()) {
      ms = it->second;
      ++result.resumed;
    } else if (const auto same = by_shape.find(shape); same != by_shape.end()) {
      ms = same->second; // another candidate chose the same schedule
      record(ms);
      ++result.resumed;
    } else {
      CompiledPipeline compiled;
      try {
        compiled = compile(p, s, options.compile);
      } catch (const Error&) {
        // Ctrl-C reaches the compiler too: a compile it killed is a stop.
        if (options.stop && options.stop->load()) {
          result.stopped = true;
          break;
        }
        throw;
      }
      ms = median_ms(compiled, bound, inputs, outputs, options.reps, options.threads);
      record(ms);
      ++result.measured;
    }
    by_shape.emplace(shape, ms);
    if (result.best_ms == 0 || ms < result.best_ms) {
      result.best_ms = ms;
      result.best = s;
      result.best_tiles = c.tiles;
      result.best_threshold = c.threshold;
    }
    ++progress.done;
    progress.best_ms = result.best_ms;
    progress.best_tiles = result.best_tiles;
    progress.best_threshold = result.best_threshold;
    progress.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const int fresh = result.measured;
    progress.seconds_left =
        fresh > 0 ? progress.seconds / fresh * (progress.total - progress.done) : 0;
    if (options.progress) options.progress(progress);
  }
  if (result.best_ms == 0)
    throw Error("autotune: stopped before any candidate was measured; run it again to resume "
                "from '" +
                path.string() + "'");
  return result;
}

} // namespace trapeze
