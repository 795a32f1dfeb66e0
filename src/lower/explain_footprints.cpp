// `trapeze explain --schedule`: the footprints of a schedule's groups.
// (Here rather than in analysis because it walks the tiles lowering makes.)
#include "lower/lower_tiled.h"
#include "lower/tile_regions.h"
#include "trapeze/explain.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace trapeze {

namespace {

std::string extents_text(const std::vector<std::int64_t>& e) {
  std::string s;
  for (std::size_t i = 0; i < e.size(); ++i)
    s += (i ? " x " : "") + std::to_string(e[i]);
  return s;
}

} // namespace

std::string explain_footprints_text(const Pipeline& p, const Schedule& schedule,
                                    const ParamValues& bound) {
  std::vector<std::vector<std::vector<std::string>>> fused;
  lower::lower_schedule(p, schedule, &fused);
  std::string out =
      "\nFootprints (for the bound parameters)\n-------------------------------------\n";
  for (std::size_t g = 0; g < schedule.groups.size(); ++g) {
    const GroupSchedule& group = schedule.groups[g];
    const lower::GroupFootprint f = lower::group_footprint(p, schedule, g, bound);
    out += fmt::format("\n  group {}: {} tile{} ({}), {} shape, redundant computation {:.2f}%\n", g,
                       f.tiles, f.tiles == 1 ? "" : "s", extents_text(f.tile_counts),
                       tile_shape_name(group.shape), 100.0 * f.redundant_fraction);
    out += fmt::format("    {:<20} {:<11} {:<24} {:>14} {:>14}\n", "stage", "storage",
                       "per-tile extents", "computed", "domain points");
    for (const lower::StageFootprint& s : f.stages)
      out += fmt::format("    {:<20} {:<11} {:<24} {:>14} {:>14}\n", s.stage,
                         storage_name(schedule.storage_of(p, s.stage)),
                         extents_text(s.scratchpad_extents), s.computed_points, s.domain_points);
    for (const std::vector<std::string>& set : fused[g])
      out += fmt::format("    one nest per tile (intra-tile fusion): {}\n", fmt::join(set, ", "));
  }
  return out;
}

std::string explain_footprints_json(const Pipeline& p, const Schedule& schedule,
                                    const ParamValues& bound) {
  std::vector<std::vector<std::vector<std::string>>> fused;
  lower::lower_schedule(p, schedule, &fused);
  nlohmann::ordered_json groups = nlohmann::ordered_json::array();
  for (std::size_t g = 0; g < schedule.groups.size(); ++g) {
    const GroupSchedule& group = schedule.groups[g];
    const lower::GroupFootprint f = lower::group_footprint(p, schedule, g, bound);
    nlohmann::ordered_json j;
    j["group"] = g;
    j["shape"] = tile_shape_name(group.shape);
    j["tile_counts"] = f.tile_counts;
    j["tiles"] = f.tiles;
    j["computed_points"] = f.computed_points;
    j["domain_points"] = f.domain_points;
    j["redundant_fraction"] = f.redundant_fraction;
    j["stages"] = nlohmann::ordered_json::array();
    for (const lower::StageFootprint& s : f.stages)
      j["stages"].push_back({{"stage", s.stage},
                             {"storage", storage_name(schedule.storage_of(p, s.stage))},
                             {"per_tile_extents", s.scratchpad_extents},
                             {"computed_points", s.computed_points},
                             {"domain_points", s.domain_points}});
    j["fused_nests"] = fused[g];
    groups.push_back(j);
  }
  return groups.dump(2);
}

} // namespace trapeze
