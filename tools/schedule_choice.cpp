// Choosing the schedule of a command and reporting it.
#include "schedule_choice.h"

#include "trapeze/error.h"

#include <fmt/core.h>

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

} // namespace

void add_schedule_options(CLI::App& cmd, ScheduleChoice& choice, bool with_file) {
  CLI::Option* scheduler =
      cmd.add_option("--scheduler", choice.scheduler,
                     "Where the schedule comes from: naive (every stage its own untiled group) "
                     "or manual (the app's hand-written schedule)")
          ->capture_default_str()
          ->check(CLI::IsMember({"naive", "manual"}));
  if (with_file) {
    CLI::Option* file =
        cmd.add_option("--schedule", choice.file, "A schedule JSON file (see docs/schedule.md)")
            ->check(CLI::ExistingFile);
    file->excludes(scheduler);
    choice.file_option = file;
  }
  choice.scheduler_option = scheduler;
}

ChosenSchedule choose_schedule(const PipelineSource& source, const ScheduleChoice& choice) {
  ChosenSchedule chosen;
  if (!choice.file.empty()) {
    chosen.schedule = Schedule::load(choice.file);
    chosen.label = choice.file;
  } else if (choice.scheduler == "manual") {
    if (!source.app)
      throw Error("--scheduler manual needs an app; for a pipeline file use --schedule FILE.json "
                  "(start from 'trapeze schedule " +
                  source.label + "')");
    if (!source.app->manual_schedule)
      throw Error("app " + source.app->name +
                  " has no hand-written schedule yet; use --scheduler naive or --schedule "
                  "FILE.json");
    chosen.schedule = source.app->manual_schedule(source.pipeline);
    chosen.label = "manual";
  } else {
    chosen.schedule = Schedule::naive(source.pipeline);
    chosen.label = "naive";
  }
  try {
    chosen.schedule.validate(source.pipeline);
  } catch (const Error& e) {
    std::string why = e.what();
    if (why.rfind("schedule: ", 0) == 0) why.erase(0, 10); // said once below
    throw Error("the " +
                (chosen.label == "naive" || chosen.label == "manual"
                     ? chosen.label + " schedule"
                     : "schedule in '" + chosen.label + "'") +
                " does not fit pipeline '" + source.pipeline.name() + "': " + why);
  }
  return chosen;
}

std::string schedule_text(const Pipeline& p, const ChosenSchedule& chosen) {
  const Schedule& s = chosen.schedule;
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
    out += fmt::format("    intra-tile {}\n", group.intra_tile_fusion
                                                  ? "loops fused where they can be (paper 001 §5.3)"
                                                  : "loops apart");
    std::vector<std::string> storage;
    for (const std::string& stage : group.stages)
      storage.push_back(stage + " " + storage_name(s.storage_of(p, stage)));
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
  for (const auto& stage : p.stages())
    effective[stage->name()] = storage_name(chosen.schedule.storage_of(p, stage->name()));
  j["effective_storage"] = effective;
  return j;
}

} // namespace trapeze::cli
