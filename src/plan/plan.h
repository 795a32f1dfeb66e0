// The plan: a schedule checked once against its pipeline and resolved into
// what lowering builds from. Everything after it trusts the plan: a violated
// assumption in lowering is an internal error, not a user error.
#pragma once

#include "plan/group_geometry.h"
#include "trapeze/pipeline.h"
#include "trapeze/schedule.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace trapeze::plan {

/// One group of the schedule, resolved.
struct GroupPlan {
  std::size_t index = 0;  ///< its place in Schedule::groups
  GroupSchedule schedule; ///< as the schedule gives it
  std::string name;       ///< "group 1 (blurx, blury)", for comments and messages
  /// Several stages, or tiles: computed tile by tile over its geometry. False:
  /// a lone untiled stage, one nest over its domain into a full buffer (the
  /// naive schedule's groups, and every reduction's).
  bool fused = false;
  bool tiled = false; ///< tile_sizes given
  /// The aligned stages in topological order (fused groups only).
  GroupGeometry geometry;
  /// How far each stage's region reaches around a tile (fused groups only).
  GroupReach reach;
  /// The serial bands a tile runs in, per common dimension (0: the dimension is
  /// not split); empty: none. The inner tiles of the schedule, or the
  /// rectangle shape's one-row bands, never along a dimension a stage lacks.
  std::vector<std::int64_t> bands;
  /// The stages in topological order (the geometry's for fused groups).
  std::vector<ir::FunctionPtr> stages;
};

/// A schedule checked against its pipeline.
struct Plan {
  Pipeline pipeline;
  Schedule schedule;
  /// Every stage's storage, the schedule's defaults applied.
  std::map<std::string, Storage> storage;
  /// The groups in the order they run: every group after the groups it reads.
  std::vector<GroupPlan> groups;
  /// Per stage, the part of its domain that the pipeline needs and every
  /// schedule computes (demand.h).
  std::map<std::string, std::vector<Interval>> demanded;

  Storage storage_of(const std::string& stage) const { return storage.at(stage); }
  bool inlined(const std::string& stage) const { return storage_of(stage) == Storage::Inlined; }
};

/// Checks `schedule` against `p` (Schedule::validate) and resolves it. Throws
/// trapeze::Error naming the group or stage for anything wrong with it.
Plan make_plan(const Pipeline& p, const Schedule& schedule);

} // namespace trapeze::plan
