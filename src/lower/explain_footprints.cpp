// `trapeze explain --schedule` and `--lowered`: the footprints of a
// schedule's groups, and the loop IR after a pass. (Here rather than in
// analysis because they report what lowering makes.)
#include "lower/lower.h"
#include "plan/footprint.h"
#include "trapeze/explain_schedule.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <sstream>

namespace trapeze {

namespace {

std::string extents_text(const std::vector<std::int64_t>& e) {
  std::string s;
  for (std::size_t i = 0; i < e.size(); ++i)
    s += (i ? " x " : "") + std::to_string(e[i]);
  return s;
}

// Per group of the schedule (the schedule's order): its plan and footprint.
struct GroupReport {
  const plan::GroupPlan* group;
  plan::GroupFootprint footprint;
};

std::vector<GroupReport> reports(const plan::Plan& plan, const ParamValues& bound) {
  std::vector<GroupReport> out(plan.groups.size());
  for (const plan::GroupPlan& g : plan.groups)
    out[g.index] = {&g, plan::group_footprint(plan, g, bound)};
  return out;
}

} // namespace

std::string explain_footprints_text(const Pipeline& p, const Schedule& schedule,
                                    const ParamValues& bound) {
  const plan::Plan plan = plan::make_plan(p, schedule);
  const lower::Module module = lower::lower(plan);
  std::string out =
      "\nFootprints (for the bound parameters)\n-------------------------------------\n";
  for (const GroupReport& r : reports(plan, bound)) {
    const plan::GroupFootprint& f = r.footprint;
    const GroupSchedule& group = r.group->schedule;
    out +=
        fmt::format("\n  group {}: {} tile{} ({}), {} shape, redundant computation {:.2f}%\n",
                    r.group->index, f.tiles, f.tiles == 1 ? "" : "s", extents_text(f.tile_counts),
                    tile_shape_name(group.shape), 100.0 * f.redundant_fraction);
    out += fmt::format("    {:<20} {:<11} {:<24} {:>14} {:>14}\n", "stage", "storage",
                       "per-tile extents", "computed", "domain points");
    for (const plan::StageFootprint& s : f.stages)
      out += fmt::format("    {:<20} {:<11} {:<24} {:>14} {:>14}\n", s.stage,
                         storage_name(plan.storage_of(s.stage)), extents_text(s.scratchpad_extents),
                         s.computed_points, s.domain_points);
    for (const std::vector<std::string>& set : module.fused_sets[r.group->index])
      out += fmt::format("    one nest per tile (intra-tile fusion): {}\n", fmt::join(set, ", "));
  }
  return out;
}

std::string explain_footprints_json(const Pipeline& p, const Schedule& schedule,
                                    const ParamValues& bound) {
  const plan::Plan plan = plan::make_plan(p, schedule);
  const lower::Module module = lower::lower(plan);
  nlohmann::ordered_json groups = nlohmann::ordered_json::array();
  for (const GroupReport& r : reports(plan, bound)) {
    const plan::GroupFootprint& f = r.footprint;
    nlohmann::ordered_json j;
    j["group"] = r.group->index;
    j["shape"] = tile_shape_name(r.group->schedule.shape);
    j["tile_counts"] = f.tile_counts;
    j["tiles"] = f.tiles;
    j["computed_points"] = f.computed_points;
    j["domain_points"] = f.domain_points;
    j["redundant_fraction"] = f.redundant_fraction;
    j["stages"] = nlohmann::ordered_json::array();
    for (const plan::StageFootprint& s : f.stages)
      j["stages"].push_back({{"stage", s.stage},
                             {"storage", storage_name(plan.storage_of(s.stage))},
                             {"per_tile_extents", s.scratchpad_extents},
                             {"computed_points", s.computed_points},
                             {"domain_points", s.domain_points}});
    j["fused_nests"] = module.fused_sets[r.group->index];
    groups.push_back(j);
  }
  return groups.dump(2);
}

std::vector<std::string> lowering_passes() { return lower::pass_names(); }

std::string explain_lowered(const Pipeline& p, const Schedule& schedule, const std::string& after) {
  std::ostringstream log;
  lower::LowerOptions options;
  options.print_after = after.empty() ? lower::pass_names().back() : after;
  options.log = &log;
  lower::lower(p, schedule, options);
  return log.str();
}

} // namespace trapeze
