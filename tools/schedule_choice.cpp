// Choosing the schedule of a command and reporting it.
#include "schedule_choice.h"

#include "trapeze/autotune.h"
#include "trapeze/error.h"
#include "trapeze/runtime.h"
#include "usage_error.h"

#include <atomic>
#include <csignal>
#include <fstream>

#include <fmt/core.h>
#include <fmt/format.h>

namespace trapeze::cli {

namespace {

std::string join(const std::vector<std::string>& parts) {
  std::string s;
  for (const std::string& part : parts)
    s += (s.empty() ? "" : ", ") + part;
  return s;
}

std::string sizes(const std::vector<std::int64_t>& values) {
  std::vector<std::string> parts;
  for (std::int64_t v : values)
    parts.push_back(std::to_string(v));
  return "[" + join(parts) + "]";
}

// Whether a machine file (already loaded, so well-formed) names `field`.
bool names_field(const std::string& path, const char* field) {
  std::ifstream in(path);
  const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
  return doc.is_object() && doc.contains(field);
}

} // namespace

MachineModel MachineChoice::resolve() const {
  MachineModel m;
  if (file.empty()) {
    m = host_machine();
  } else {
    // The file's fields over this machine's. What is measured (the row
    // runs, the gathers) is measured only where the file does not give it:
    // a whole file (as `trapeze machine --json` writes it) schedules and
    // compiles the same on every machine.
    m = MachineModel::load(file, MachineModel::host());
    const bool runs = names_field(file, "run_bandwidth");
    const bool gathers = names_field(file, "vector_gathers");
    const bool windows = names_field(file, "l2_window_share");
    if (!runs || !gathers || !windows) {
      const MachineModel measured = host_machine();
      if (!runs) m.run_bandwidth = measured.run_bandwidth;
      if (!gathers) m.vector_gathers = measured.vector_gathers;
      if (!windows) m.l2_window_share = measured.l2_window_share;
      m.source += " + what this machine measured";
    }
  }
  bool overridden = false;
  if (cores > 0) m.cores = cores, overridden = true;
  if (l1_bytes > 0) m.l1_bytes = l1_bytes, overridden = true;
  if (l2_bytes > 0) m.l2_bytes = l2_bytes, overridden = true;
  if (vector_bytes > 0) m.vector_bytes = vector_bytes, overridden = true;
  if (overridden) m.source += " + command line";
  m.validate();
  return m;
}

void add_machine_options(CLI::App& cmd, MachineChoice& choice) {
  cmd.add_option("--machine", choice.file,
                 "A machine model JSON file (see 'trapeze machine --json') to schedule for")
      ->check(CLI::ExistingFile);
  cmd.add_option("--cores", choice.cores, "Schedule for this many cores")
      ->check(CLI::Range(1, 1 << 20));
  cmd.add_option("--l1-bytes", choice.l1_bytes, "Schedule for this L1 data cache size per core")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  cmd.add_option("--l2-bytes", choice.l2_bytes, "Schedule for this L2 cache size per core")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  cmd.add_option("--vector-bytes", choice.vector_bytes, "Schedule for vectors of this many bytes")
      ->check(CLI::Range(1, 1 << 12));
}

const std::vector<std::string>& scheduler_names() {
  static const std::vector<std::string> names = {"dp",    "greedy", "halide-greedy",
                                                 "naive", "manual", "autotune"};
  return names;
}

void add_schedule_options(CLI::App& cmd, ScheduleChoice& choice, bool with_file) {
  CLI::Option* scheduler =
      cmd.add_option("--scheduler", choice.scheduler,
                     "Where the schedule comes from: dp (automatic, paper 001's dynamic "
                     "programming; the default), greedy (PolyMage's heuristic), halide-greedy "
                     "(Halide's 2016 autoscheduler's heuristic), autotune (PolyMage-A: greedy's "
                     "tile sizes and thresholds built and timed), naive (every stage its own "
                     "untiled group) or manual (the app's hand-written schedule)")
          ->capture_default_str()
          ->check(CLI::IsMember(scheduler_names()));
  if (with_file) {
    CLI::Option* file =
        cmd.add_option("--schedule", choice.file, "A schedule JSON file (see docs/schedule.md)")
            ->check(CLI::ExistingFile);
    file->excludes(scheduler);
    choice.file_option = file;
  }
  choice.scheduler_option = scheduler;
  add_machine_options(cmd, choice.machine);
  cmd.add_option("--cost-weights", choice.weights,
                 "dp's cost weights w1,w2,w3,w4 (live data, idle cores, overlap, size difference)")
      ->delimiter(',')
      ->expected(4);
  cmd.add_option("--group-limit", choice.group_limit,
                 "dp: at most this many stages a group in the first round (Alg. 5; 0: none)")
      ->check(CLI::Range(0, 1 << 20));
  const AutoScheduleOptions defaults;
  cmd.add_option("--innermost-tile", choice.innermost_tile,
                 fmt::format("dp: the innermost tile size to start from (default {})",
                             defaults.innermost_tile))
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 40));
  cmd.add_option("--cache-fill", choice.cache_fill,
                 fmt::format("dp: the share of a cache a tile's buffers may fill (default {})",
                             defaults.cache_fill))
      ->check(CLI::Range(0.01, 1.0));
  cmd.add_flag("--multi-level", choice.multi_level,
               "dp: inner L1 tiles inside L2 tiles (Alg. 4; off by default)");
  cmd.add_option("--autotune-results", choice.autotune_results,
                 "autotune: the results file to resume from and append to (default: in the "
                 "cache directory)");
  cmd.add_option("--autotune-sizes", choice.autotune_sizes,
                 "autotune: tile sizes to try per dimension (default 8,16,32,64,128,256,512)")
      ->delimiter(',')
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 30));
  cmd.add_option("--autotune-thresholds", choice.autotune_thresholds,
                 "autotune: overlap thresholds to try (default 0.2,0.4,0.5)")
      ->delimiter(',')
      ->check(CLI::Range(0.0, 1e6));
}

AutoScheduleOptions autoschedule_options(const ScheduleChoice& choice, SchedulerKind kind,
                                         const ParamValues& estimates) {
  AutoScheduleOptions o;
  o.scheduler = kind;
  o.machine = choice.machine.resolve();
  o.estimates = estimates;
  if (!choice.weights.empty()) {
    for (double w : choice.weights)
      if (!(w >= 0))
        throw Error(
            fmt::format("--cost-weights: every weight must be zero or positive, got {}", w));
    o.weights = {choice.weights[0], choice.weights[1], choice.weights[2], choice.weights[3]};
  }
  o.group_limit = choice.group_limit;
  if (choice.innermost_tile > 0) o.innermost_tile = choice.innermost_tile;
  o.multi_level = choice.multi_level;
  if (choice.cache_fill > 0) o.cache_fill = choice.cache_fill;
  return o;
}

namespace {

std::atomic<bool> interrupted{false};

void on_interrupt(int) {
  interrupted = true;
  std::signal(SIGINT, SIG_DFL); // a second Ctrl-C ends the process
}

// PolyMage-A on the source's inputs, with a progress line and Ctrl-C.
Schedule autotuned(const PipelineSource& source, const ScheduleChoice& choice,
                   const ParamValues& estimates) {
  const Pipeline& p = source.pipeline;
  const ParamValues bound = p.bind(estimates);
  check_sizes(p, bound);
  AutotuneOptions o;
  o.compile.scheduling = autoschedule_options(choice, SchedulerKind::Greedy, estimates);
  if (!choice.autotune_sizes.empty()) o.tile_sizes = choice.autotune_sizes;
  if (!choice.autotune_thresholds.empty()) o.thresholds = choice.autotune_thresholds;
  o.results_file = choice.autotune_results;
  interrupted = false;
  o.stop = &interrupted;
  o.progress = [](const AutotuneProgress& at) {
    const int width = 24, filled = at.total ? width * at.done / at.total : width;
    fmt::print(stderr,
               "\r[autotune] {}/{} [{}{}] best {:.2f} ms (tiles {}, threshold {}), ~{:.0f} s left ",
               at.done, at.total, std::string(static_cast<std::size_t>(filled), '#'),
               std::string(static_cast<std::size_t>(width - filled), '.'), at.best_ms,
               fmt::join(at.best_tiles, "x"), at.best_threshold, at.seconds_left);
  };
  const auto previous = std::signal(SIGINT, on_interrupt);
  AutotuneResult r;
  try {
    r = autotune(p, bound, make_inputs(source, bound), o);
  } catch (...) {
    std::signal(SIGINT, previous);
    fmt::print(stderr, "\n");
    throw;
  }
  std::signal(SIGINT, previous);
  fmt::print(stderr,
             "\n[autotune] {}: {} of {} candidates ({} measured now, {} from {}); best "
             "{:.2f} ms with tiles {} and threshold {}\n",
             r.stopped ? "stopped" : "done", r.measured + r.resumed, r.total, r.measured, r.resumed,
             r.results_file, r.best_ms, fmt::join(r.best_tiles, "x"), r.best_threshold);
  if (r.stopped) fmt::print(stderr, "[autotune] run the same command again to resume\n");
  return r.best;
}

} // namespace

ChosenSchedule choose_schedule(const PipelineSource& source, const ScheduleChoice& choice,
                               const ParamValues& estimates,
                               std::optional<AutoScheduleReport>* report) {
  ChosenSchedule chosen;
  if (!choice.file.empty()) {
    chosen.schedule = Schedule::load(choice.file);
    chosen.label = choice.file;
  } else if (choice.scheduler == "manual") {
    if (!source.app)
      throw UsageError("--scheduler manual needs an app; for a pipeline file use --scheduler dp or "
                       "--schedule FILE.json (start from 'trapeze schedule " +
                       source.label + "')");
    if (!source.app->manual_schedule)
      throw UsageError("app " + source.app->name +
                       " has no hand-written schedule yet; use --scheduler dp or --schedule "
                       "FILE.json");
    chosen.schedule = source.app->manual_schedule(source.pipeline);
    chosen.label = "manual";
  } else if (choice.scheduler == "autotune") {
    chosen.schedule = autotuned(source, choice, estimates);
    chosen.label = "autotune";
  } else {
    // Sizes the code could never run at are refused here too, as a run would refuse
    // them; estimates that leave a parameter unbound are the scheduler's to report.
    if (source.pipeline.gives_every_param(estimates)) check_sizes(source.pipeline, estimates);
    const std::optional<SchedulerKind> kind = parse_scheduler(choice.scheduler);
    TRAPEZE_ASSERT(kind, "--scheduler accepted an unknown name: " + choice.scheduler);
    CompileOptions options;
    options.scheduling = autoschedule_options(choice, *kind, estimates);
    if (report) {
      AutoScheduleReport r;
      chosen.schedule = auto_schedule(source.pipeline, options.scheduling, &r);
      *report = std::move(r);
    } else {
      chosen.schedule = cached_auto_schedule(source.pipeline, options);
    }
    chosen.label = choice.scheduler;
  }
  try {
    chosen.schedule.validate(source.pipeline);
  } catch (const Error& e) {
    std::string why = e.what();
    if (why.rfind("schedule: ", 0) == 0) why.erase(0, 10); // said once below
    const bool named = !choice.file.empty();
    throw Error("the " +
                (named ? "schedule in '" + chosen.label + "'" : chosen.label + " schedule") +
                " does not fit pipeline '" + source.pipeline.name() + "': " + why);
  }
  return chosen;
}

std::string schedule_text(const Pipeline& p, const ChosenSchedule& chosen) {
  const Schedule& s = chosen.schedule;
  const std::map<std::string, Storage> storages = s.storages(p);
  std::string out = fmt::format("schedule ({}): {} group{}\n", chosen.label, s.groups.size(),
                                s.groups.size() == 1 ? "" : "s");
  for (std::size_t g = 0; g < s.groups.size(); ++g) {
    const GroupSchedule& group = s.groups[g];
    out += fmt::format("  group {}: {}\n", g, join(group.stages));
    if (group.tile_sizes.empty())
      out += "    tiles      none (untiled)\n";
    else
      out += fmt::format("    tiles      {} ({})\n", sizes(group.tile_sizes),
                         tile_shape_name(group.shape));
    out += fmt::format("    inner      {}\n",
                       group.inner_tile_sizes.empty() ? "none" : sizes(group.inner_tile_sizes));
    out += fmt::format("    parallel   {} outermost {}, {} schedule{}\n", group.parallel_tile_dims,
                       group.tile_sizes.empty() ? "loop(s)" : "tile dimension(s)",
                       parallel_schedule_name(effective_parallel_schedule(group)),
                       group.parallel_schedule ? "" : " (default)");
    out += fmt::format("    vectorize  {}\n", group.vectorize ? "yes" : "no");
    std::vector<std::string> widths, fetched;
    for (const auto& [stage, bytes] : group.vector_bytes)
      widths.push_back(fmt::format("{} {} bytes", stage, bytes));
    if (!widths.empty()) out += fmt::format("    vectors    at most {}\n", join(widths));
    for (const auto& [live_in, rows] : group.prefetch)
      fetched.push_back(fmt::format("{} {} row{} ahead", live_in, rows, rows == 1 ? "" : "s"));
    if (!fetched.empty()) out += fmt::format("    prefetch   {}\n", join(fetched));
    out += fmt::format("    intra-tile {}\n", group.intra_tile_fusion
                                                  ? "loops fused where they can be (paper 001 §5.3)"
                                                  : "loops apart");
    if (group.reassociate_float_sums)
      out += "    float sums may run by partial results, in another order than defined\n";
    std::vector<std::string> storage;
    for (const std::string& stage : group.stages)
      storage.push_back(stage + " " + storage_name(storages.at(stage)));
    out += fmt::format("    storage    {}\n", join(storage));
    for (const std::string& reason : group.reasons)
      out += fmt::format("    why        {}\n", reason);
  }
  return out;
}

nlohmann::ordered_json schedule_json(const Pipeline& p, const ChosenSchedule& chosen) {
  nlohmann::ordered_json j;
  j["source"] = chosen.label;
  const nlohmann::ordered_json own = nlohmann::ordered_json::parse(chosen.schedule.to_json());
  for (const auto& [key, value] : own.items())
    j[key] = value;
  nlohmann::ordered_json effective = nlohmann::ordered_json::object();
  const std::map<std::string, Storage> storages = chosen.schedule.storages(p);
  for (const auto& stage : p.stages())
    effective[stage->name()] = storage_name(storages.at(stage->name()));
  j["effective_storage"] = effective;
  return j;
}

} // namespace trapeze::cli
