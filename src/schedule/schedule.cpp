// The schedule's names, the naive schedule and the storage defaults.
#include "trapeze/schedule.h"

#include <algorithm>

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
  if (auto it = storage.find(stage); it != storage.end()) return it->second;
  const ir::FunctionPtr& f = p.stage(stage);
  if (p.is_output(*f)) return Storage::Full;
  const auto group_of = [&](const std::string& name) -> const GroupSchedule* {
    for (const GroupSchedule& g : groups)
      if (std::find(g.stages.begin(), g.stages.end(), name) != g.stages.end()) return &g;
    return nullptr;
  };
  const GroupSchedule* own = group_of(stage);
  for (const auto& consumer : p.consumers(*f))
    if (group_of(consumer->name()) != own) return Storage::Full; // a live-out of its group
  return Storage::Scratchpad;
}

} // namespace trapeze
