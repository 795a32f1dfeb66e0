// Automatic inlining inside a fused group: paper 001 §5.1, Alg. 3.
//
// A stage that is not a live-out of its group is inlined into its consumers
//  (i)   if it is point-wise (reads every producer at its own point),
//  (ii)  else if it has one consumer and that consumer reads one point of it
//        per point of its own (the paper: "the consumer is point-wise"; read
//        per edge, so that inlining one of several sums into a point-wise
//        consumer does not stop the others),
//  (iii) else if it has several consumers that each read one point of it per
//        point of their own, and no two of them read the same points (the
//        channels of a deinterleaved image),
//  (iv)  else if it computes nothing: each of its values is one read at
//        indices computed from the point, or a constant (a boundary
//        condition, trapeze/boundary.h: inlined, its interior reads the source
//        directly and only the border boxes that case partitioning cuts out
//        compute an index; trapeze's addition to Alg. 3),
// repeated until nothing changes: inlining a stage hands its producers its
// consumers, and a point-wise consumer of a stencil is a stencil after. The
// first two add no redundant computation beyond re-reading a point-wise value
// at each of its consumer's taps; the third adds none. Reductions are never
// inlined (lowering cannot), nor are live-outs, nor is anything into a stage
// that reads at data-dependent indices (trapeze's addition: a look-up's loop
// stays scalar, a gather GCC does not vectorize, and the inlined arithmetic
// would run scalar with it; the camera pipeline's colour matrix inlined into
// its gamma look-up took 15-17 ms against 8-10).
#pragma once

#include "autoschedule/pipeline_model.h"

#include <string>
#include <vector>

namespace trapeze::autoschedule {

/// Per member of the group (stage indices of `model`, topological order):
/// whether Alg. 3 inlines it. `live_out` is per member.
std::vector<bool> choose_inlined(const PipelineModel& model, const std::vector<int>& members,
                                 const std::vector<bool>& live_out);

/// Why a stage was inlined, for the schedule's reasons: "point-wise", "its
/// one consumer reads one point of it per point", "its consumers read
/// disjoint points of it", "it computes nothing (...)".
/// Empty if choose_inlined would not inline it (in this group).
std::string inlining_rule(const PipelineModel& model, const std::vector<int>& members,
                          const std::vector<bool>& live_out, int stage);

} // namespace trapeze::autoschedule
