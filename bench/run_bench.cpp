// The benchmark driver: per app, the selected trapeze schedules and peers on
// one set of inputs, timed interleaved, checked, against the memory floor.
#include "background_load.h"
#include "harness.h"
#include "peers.h"
#include "trapeze/autotune.h"
#include "trapeze/schedule.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>

namespace trapeze::bench {

namespace {

std::string utc_date() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
  return buf;
}

std::int64_t bytes_of(const BufferMap& buffers) {
  std::int64_t n = 0;
  for (const auto& [name, b] : buffers)
    n += static_cast<std::int64_t>(b.bytes());
  return n;
}

// A trapeze variant: the pipeline compiled once, run on shared inputs into
// its own outputs.
Variant trapeze_variant(const std::string& name, const CompiledPipeline& compiled,
                        const Pipeline& p, const ParamValues& bound,
                        std::shared_ptr<const BufferMap> inputs, int threads) {
  auto outputs = std::make_shared<BufferMap>(allocate_outputs(p, bound));
  Variant v;
  v.name = name;
  v.run = [compiled, bound, inputs, outputs, threads] {
    compiled.run(bound, *inputs, *outputs, threads);
  };
  v.result = [outputs] { return *outputs; };
  return v;
}

} // namespace

BenchReport run_bench(const BenchOptions& options) {
  BenchReport report;
  report.options = options;
  report.date = utc_date();
  std::vector<const apps::App*> selected;
  if (options.apps.empty()) {
    for (const apps::App& a : apps::all_apps())
      selected.push_back(&a);
  } else {
    for (const std::string& name : options.apps)
      selected.push_back(&apps::find_app(name));
  }
  // A schedule names one pipeline's stages.
  if (!options.schedule_files.empty() && selected.size() != 1)
    throw Error(fmt::format("--schedule: a schedule file is made for one pipeline; name the one "
                            "app to time it on ({} selected)",
                            selected.size()));
  // Read before anything is timed, so that a file that does not parse fails at once.
  std::vector<Schedule> schedule_files;
  for (const std::string& file : options.schedule_files)
    schedule_files.push_back(Schedule::load(file));
  std::fprintf(stderr, "measuring copy bandwidth (%d threads)...\n", options.threads);
  report.copy_bandwidth_gbs = measure_copy_bandwidth(options.threads);
  const BackgroundLoad load(options.load);

  for (std::size_t i = 0; i < selected.size(); ++i) {
    const apps::App& app = *selected[i];
    AppResult result;
    result.app = app.name;
    const Pipeline p = app.build();
    const ParamValues bound = p.bind(options.small ? app.small_size : app.default_size);
    result.params = bound;
    auto inputs = std::make_shared<const BufferMap>(app.make_inputs(p, bound));

    std::vector<Variant> variants;
    for (const std::string& scheduler : options.schedulers) {
      if (scheduler == "naive") {
        variants.push_back(trapeze_variant("trapeze naive", compile(p, Schedule::naive(p)), p,
                                           bound, inputs, options.threads));
      } else if (scheduler == "manual") {
        if (!app.manual_schedule) {
          result.skipped.push_back("trapeze manual: " + app.name +
                                   " has no hand-written schedule yet");
          continue;
        }
        variants.push_back(trapeze_variant("trapeze manual", compile(p, app.manual_schedule(p)), p,
                                           bound, inputs, options.threads));
      } else if (scheduler == "autotune") {
        // PolyMage-A: long (147 builds an app), resumed from its results file.
        AutotuneOptions tune;
        tune.threads = options.threads;
        const AutotuneResult tuned = autotune(p, bound, *inputs, tune);
        variants.push_back(trapeze_variant("trapeze autotune", compile(p, tuned.best), p, bound,
                                           inputs, options.threads));
      } else if (const std::optional<SchedulerKind> kind = parse_scheduler(scheduler)) {
        // The schedule `trapeze run` would use at this size: made for these
        // parameters, from the schedule cache after the first time.
        CompileOptions compile_options;
        compile_options.scheduling.scheduler = *kind;
        compile_options.scheduling.estimates = bound;
        const Schedule s = cached_auto_schedule(p, compile_options);
        variants.push_back(trapeze_variant("trapeze " + scheduler, compile(p, s), p, bound, inputs,
                                           options.threads));
      } else {
        throw Error("unknown scheduler '" + scheduler +
                    "' (known: naive, manual, dp, greedy, halide-greedy, autotune)");
      }
    }
    for (std::size_t f = 0; f < schedule_files.size(); ++f)
      variants.push_back(trapeze_variant("trapeze " + options.schedule_files[f],
                                         compile(p, schedule_files[f]), p, bound, inputs,
                                         options.threads));
    for (const std::string& peer : options.peers) {
      const PeerContext ctx{app, p, bound, inputs, options.threads};
      for (Variant& v : peer_variants(peer, ctx, result.skipped))
        variants.push_back(std::move(v));
    }
    for (const Variant& v : variants)
      if (!v.note.empty()) result.notes.push_back(v.name + ": " + v.note);
    const BufferMap outputs = allocate_outputs(p, bound);
    result.floor_bytes = bytes_of(*inputs) + bytes_of(outputs);
    result.floor_ms = static_cast<double>(result.floor_bytes) / (report.copy_bandwidth_gbs * 1e6);
    result.variants = time_interleaved(variants, options.reps, app.tolerance, [&](int round) {
      std::fprintf(stderr, "\r[%zu/%zu] %-16s round %d/%d   ", i + 1, selected.size(),
                   app.name.c_str(), round + 1, options.reps);
    });
    std::fprintf(stderr, "\r[%zu/%zu] %-16s done%*s\n", i + 1, selected.size(), app.name.c_str(),
                 20, "");
    report.apps.push_back(std::move(result));
  }
  return report;
}

} // namespace trapeze::bench
