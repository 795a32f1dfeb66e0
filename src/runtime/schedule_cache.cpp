// cached_auto_schedule: automatic schedules kept beside the JIT's shared
// objects, so that compiling a pipeline again does not search again.
//
// An entry is <cache dir>/schedules/<key>.json, the schedule's own JSON; the
// key is the XXH3-128 hash of trapeze's version, a hash of the schedulers'
// sources (taken at build time), the pipeline's text form, the resolved
// scheduler options (estimates, weights, limits) and the machine model. Entries are written to a
// temporary file and renamed into place, so a reader sees a whole entry or none; one that does not
// load or validate is ignored and rewritten. The cache is an optimization: a failure to write it is
// not an error.
#include "runtime/jit_cache.h"
#include "runtime/scheduler_revision.h"
#include "trapeze/error.h"
#include "trapeze/runtime.h"
#include "trapeze/text_form.h"
#include "trapeze/version.h"

#include <fmt/core.h>
#include <fmt/format.h>

#include <filesystem>

namespace trapeze {

namespace {

namespace fs = std::filesystem;

std::string options_text(const AutoScheduleOptions& o, const MachineModel& machine) {
  std::string text = fmt::format("scheduler={};", scheduler_name(o.scheduler));
  text += "machine=" + machine.to_json() + ";";
  text += fmt::format("weights={},{},{},{};", o.weights.live_data, o.weights.cleanup,
                      o.weights.overlap, o.weights.size_difference);
  for (const auto& [name, v] : o.estimates)
    text += fmt::format("estimate {}={};", name,
                        v.is_float ? fmt::format("{}", v.f) : std::to_string(v.i));
  text += fmt::format("innermost={};fill={};multi={};inline={};limit={};step={};budget={};",
                      o.innermost_tile, o.cache_fill, o.multi_level, o.inline_stages, o.group_limit,
                      o.group_limit_step, o.evaluation_budget);
  text += fmt::format("greedy={};threshold={};", fmt::join(o.greedy_tile_sizes, ","),
                      o.greedy_overlap_threshold);
  return text;
}

std::optional<Schedule> read_entry(const fs::path& path, const Pipeline& p) {
  std::string text;
  if (!runtime::read_file(path, text)) return std::nullopt;
  try {
    Schedule s = Schedule::from_json(text);
    s.validate(p);
    return s;
  } catch (const Error&) {
    return std::nullopt; // damaged or stale: schedule again and overwrite it
  }
}

} // namespace

Schedule cached_auto_schedule(const Pipeline& p, const CompileOptions& options, bool* from_cache) {
  if (from_cache) *from_cache = false;
  const AutoScheduleOptions& scheduling = options.scheduling;
  if (scheduling.scheduler == SchedulerKind::Naive) return Schedule::naive(p);
  const MachineModel machine = scheduling.machine ? *scheduling.machine : host_machine(options);
  const std::string key = runtime::hash128_hex(
      fmt::format("trapeze {};revision {};", TRAPEZE_VERSION_STRING, TRAPEZE_SCHEDULER_REVISION) +
      options_text(scheduling, machine) + to_text(p));
  const fs::path path =
      fs::path(runtime::resolve_cache_dir(options)) / "schedules" / (key + ".json");
  if (std::optional<Schedule> cached = read_entry(path, p)) {
    if (from_cache) *from_cache = true;
    return *cached;
  }
  AutoScheduleOptions resolved = scheduling;
  resolved.machine = machine;
  Schedule s = auto_schedule(p, resolved);
  runtime::write_atomically(path.string(), s.to_json());
  return s;
}

} // namespace trapeze
