// A candidate group as a cost model sees it: whether it can be fused at all
// (one aligned space with constant dependences, as Schedule::validate will
// demand), its stages' roles (live-out, scratchpad, inlined by Alg. 3), its
// geometry in the common space (plan/group_geometry.h), and the sizes of that
// space at the estimates.
#pragma once

#include "autoschedule/inlining.h"
#include "autoschedule/pipeline_model.h"
#include "plan/group_geometry.h"

#include <cstdint>
#include <string>
#include <vector>

namespace trapeze::autoschedule {

struct GroupFacts {
  /// False: the stages cannot form one group; `why` says so.
  bool ok = false;
  std::string why;
  /// The member stages, as indices into the model, in the geometry's order
  /// (topological): those aligned in the group's space.
  std::vector<int> members;
  /// Stages of the group folded into its reductions (ascending indices):
  /// each relabels (a boundary condition: computes nothing) and only
  /// reductions of the group read it, directly or through other folded
  /// stages. It is inlined into the reductions' reads and lies outside the
  /// group's space, as Schedule::aligned_stages leaves it out; the group's
  /// tiles read its producer directly.
  std::vector<int> folded;
  /// Fused groups (two stages or more) only:
  plan::GroupGeometry geometry;
  plan::GroupReach reach;               ///< scalene
  std::vector<InlineDecision> inlining; ///< per member (Alg. 3): why, where inlined
  /// The extent of the tile space per common dimension, in common units.
  std::vector<std::int64_t> space;
  /// The innermost common dimension: where most stages have their last
  /// (contiguous) dimension (ties: the later), not simply the last one (a
  /// dimension only a few stages have, such as a channel index of a
  /// deinterleaved image, is appended after the others).
  std::size_t inner = 0;
  /// Per member, per common dimension: the member's own extent (points along
  /// its dimension there; 1 where it lacks the dimension).
  std::vector<std::vector<std::int64_t>> extents;
  /// Per member, the tile buffer it is stored in (-1: inlined): buffers of
  /// one type whose lifetimes in a tile are apart share one, as lowering
  /// lays them out (share_scratchpads).
  std::vector<int> buffer_of;
  /// Per member, whether a tile reads its buffer back, and so wants it in
  /// cache: stored and read by another member. A live-out that no member
  /// reads is written once, a stream that nothing in the tile waits on.
  /// Where no member is read back (a single stage, or every intermediate
  /// inlined), every stored member counts: the tile is then sized by what
  /// it streams. (docs/performance.md, "What a tile reads back".)
  std::vector<bool> cached;
  /// The producers outside the group whose data two or more of a tile's
  /// nests load (a nest loads through the members inlined into it): the
  /// tile reads them back too (unsharp's input, loaded by blurx and again by
  /// mask: sized without it, its tiles ran 16% slower).
  struct LiveInReadBack {
    const void* producer; ///< producer_identity: its Function or InputImage
    std::size_t reader;   ///< the first member that reads it
    std::size_t edge;     ///< that read, an index into PipelineModel::edges()
  };
  std::vector<LiveInReadBack> live_ins_read_back;
  bool read_back(const void* producer) const {
    for (const LiveInReadBack& l : live_ins_read_back)
      if (l.producer == producer) return true;
    return false;
  }

  bool fused() const { return members.size() > 1; }
  bool live_out(std::size_t m) const { return geometry.live_out[m]; }
  bool inlined(std::size_t m) const { return !inlining[m].reason.empty(); }
  bool stored(std::size_t m) const { return !inlined(m); }
};

/// Whether member j of the group reads member m directly.
bool member_reads(const PipelineModel& model, const GroupFacts& facts, std::size_t j,
                  std::size_t m);

/// Whether an edge's producer is a member of the group (not an input or a
/// stage outside it).
bool produced_in_group(const PipelineModel& model, const GroupFacts& facts,
                       const analysis::EdgeDependence& edge);

/// The stages of `members` (sorted stage indices) folded into a reduction
/// among them (GroupFacts::folded); none unless `inline_stages`.
std::vector<int> folded_into_reductions(const PipelineModel& model, const std::vector<int>& members,
                                        bool inline_stages);

/// Per common dimension of `g`, how many of the stages marked in `counted`
/// have there their dimension `from_last` places before their last (0:
/// their innermost): where a group's rows run (GroupFacts::inner), and the
/// dimension next out from them.
std::vector<int> dimension_votes(const plan::GroupGeometry& g, int from_last,
                                 const std::vector<bool>& counted);

/// The facts of the group of `members` (sorted stage indices, at least one).
/// `inline_stages`: run Alg. 3 (point-wise producers and the rest of paper
/// 001 §5.1) to decide what is inlined, its rule (v) at `ops_per_byte`
/// (MachineModel::ops_per_byte).
GroupFacts group_facts(const PipelineModel& model, const std::vector<int>& members,
                       bool inline_stages, double ops_per_byte);

} // namespace trapeze::autoschedule
