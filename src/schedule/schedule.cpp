// The schedule's names, the naive schedule and the storage defaults.
#include "trapeze/schedule.h"

#include <algorithm>
#include <set>
#include <unordered_map>

namespace trapeze {

const char* tile_shape_name(TileShape s) {
  switch (s) {
  case TileShape::Scalene: return "scalene";
  case TileShape::PolyMage: return "polymage";
  case TileShape::Rectangle: return "rectangle";
  }
  TRAPEZE_ASSERT(false, "unknown TileShape");
}

std::optional<TileShape> parse_tile_shape(const std::string& name) {
  for (TileShape s : {TileShape::Scalene, TileShape::PolyMage, TileShape::Rectangle})
    if (name == tile_shape_name(s)) return s;
  return std::nullopt;
}

const char* parallel_schedule_name(ParallelSchedule s) {
  switch (s) {
  case ParallelSchedule::Static: return "static";
  case ParallelSchedule::Dynamic: return "dynamic";
  case ParallelSchedule::Chunked: return "chunked";
  }
  TRAPEZE_ASSERT(false, "unknown ParallelSchedule");
}

std::optional<ParallelSchedule> parse_parallel_schedule(const std::string& name) {
  for (ParallelSchedule s :
       {ParallelSchedule::Static, ParallelSchedule::Dynamic, ParallelSchedule::Chunked})
    if (name == parallel_schedule_name(s)) return s;
  return std::nullopt;
}

ParallelSchedule effective_parallel_schedule(const GroupSchedule& g) {
  if (g.parallel_schedule) return *g.parallel_schedule;
  return g.tile_sizes.empty() ? ParallelSchedule::Chunked : ParallelSchedule::Dynamic;
}

const char* storage_name(Storage s) {
  switch (s) {
  case Storage::Full: return "full";
  case Storage::Scratchpad: return "scratchpad";
  case Storage::Inlined: return "inline";
  }
  TRAPEZE_ASSERT(false, "unknown Storage");
}

std::optional<Storage> parse_storage(const std::string& name) {
  for (Storage s : {Storage::Full, Storage::Scratchpad, Storage::Inlined})
    if (name == storage_name(s)) return s;
  return std::nullopt;
}

Schedule Schedule::naive(const Pipeline& p) {
  Schedule s;
  for (const auto& stage : p.stages()) {
    GroupSchedule g;
    g.stages = {stage->name()};
    g.reasons = {"naive schedule: every stage is its own untiled group"};
    s.groups.push_back(std::move(g));
  }
  return s;
}

Storage Schedule::storage_of(const Pipeline& p, const std::string& stage) const {
  p.stage(stage); // an unknown stage is an error naming it
  return storages(p).at(stage);
}

std::map<std::string, Storage> Schedule::storages(const Pipeline& p) const {
  std::unordered_map<std::string, std::size_t> group_of;
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (const std::string& name : groups[g].stages)
      group_of.emplace(name, g);
  const auto group = [&](const std::string& name) {
    const auto it = group_of.find(name);
    return it == group_of.end() ? groups.size() : it->second; // in no group: not yet validated
  };
  std::map<std::string, Storage> out;
  for (const ir::FunctionPtr& f : p.stages()) {
    Storage s = Storage::Scratchpad;
    if (auto it = storage.find(f->name()); it != storage.end())
      s = it->second;
    else if (p.is_output(*f))
      s = Storage::Full;
    else
      for (const auto& consumer : p.consumers(*f))
        if (group(consumer->name()) != group(f->name())) s = Storage::Full;
    out.emplace(f->name(), s);
  }
  return out;
}

std::vector<std::string> Schedule::aligned_stages(const Pipeline& p, std::size_t group) const {
  const std::vector<std::string>& names = groups.at(group).stages;
  const auto inlined = [&](const std::string& name) {
    const auto stored = storage.find(name);
    return stored != storage.end() && stored->second == Storage::Inlined;
  };
  if (std::none_of(names.begin(), names.end(), inlined)) return names;
  const std::set<std::string> in_group(names.begin(), names.end());
  // The group's stages, consumers first, so that a chain of inlined stages
  // folds in one pass (the group's own stages only: a pipeline may have a
  // hundred thousand groups).
  std::vector<std::pair<std::size_t, const ir::Function*>> members;
  for (const std::string& name : names) {
    const ir::FunctionPtr& f = p.stage(name);
    members.emplace_back(p.stage_index(*f).value_or(0), f.get());
  }
  std::sort(members.begin(), members.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  std::set<std::string> folded;
  for (const auto& [index, f] : members) {
    if (!inlined(f->name())) continue;
    const auto consumers = p.consumers(*f);
    bool into_reductions = !consumers.empty();
    for (const auto& c : consumers)
      into_reductions = into_reductions && in_group.count(c->name()) &&
                        (c->definition().is_reduction() || folded.count(c->name()));
    if (into_reductions) folded.insert(f->name());
  }
  std::vector<std::string> out;
  for (const std::string& name : names)
    if (!folded.count(name)) out.push_back(name);
  return out;
}

} // namespace trapeze
