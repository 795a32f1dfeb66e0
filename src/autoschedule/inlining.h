// Automatic inlining inside a fused group: paper 001 §5.1, Alg. 3.
//
// A stage that is not a live-out of its group is inlined into its consumers
//  (i)   if it is point-wise (reads every producer at its own point), and
//        each consumer that reads several points of it, recomputing it at
//        each, either stays within MachineModel::ops_per_byte operations a
//        byte it moves to or from memory (rule (v)'s roofline test) or at
//        most quadruples its operations (trapeze's bound on the paper's rule:
//        a grey conversion inlined into a 5x5 blur, 4.5x the blur's
//        operations, ran 1.6-1.9x slower than stored, and 3.6x with a
//        heavier conversion at 8x; 2-D and 3-D multigrid's first smoothing
//        steps, 2.7x and 3x, run as fast inlined as stored),
//  (ii)  else if it has one consumer and that consumer reads one point of it
//        per point of its own (the paper: "the consumer is point-wise"; read
//        per edge, so that inlining one of several sums into a point-wise
//        consumer does not stop the others; one that reads several channels
//        of it at each point keeps it stored: bilateral_grid's slicing,
//        inlined into its division, ran 1.06-1.15x the time of the slicing
//        stored in strips that fit the L2 on Zen 3 and Intel guests),
//  (iii) else if it has several consumers that each read one point of it per
//        point of their own, and no two of them read the same points (the
//        channels of a deinterleaved image),
//  (iv)  else if it computes nothing: each of its values is one read at
//        indices computed from the point, or a constant (a boundary
//        condition, trapeze/boundary.h: inlined, its interior reads the source
//        directly and only the border boxes that case partitioning cuts out
//        compute an index; trapeze's addition to Alg. 3),
//  (v)   else if it is a stencil of a stencil (it reads, and its one
//        consumer reads it, at the point plus constant offsets: no sampling,
//        whose index arithmetic would be recomputed at every tap; 2-D
//        multigrid's interpolation inlined into its smoother ran 3-5% slower),
//        reads only what the group reads from memory, and its consumer with
//        it inlined computes at most
//        MachineModel::ops_per_byte operations a byte it moves to or from
//        memory, a floating-point division weighed as ten (trapeze's
//        addition, the roofline's test: such a loop waits on memory whether
//        it recomputes the stencil at each tap or stores it, and without the
//        scratchpad its tiles are free to stream whole rows; a 3-tap sum of
//        the image inlined into blury, in tiles, ran in ~11.4 ms against ~14
//        stored; blur's blurx, which divides by 3, stored in strips of whole
//        rows ran in 0.909 of the time inlined: its divisions, four a point
//        inlined against two, cost more than its loads),
//  (vi)  else if it has several consumers that each read it at their own
//        point, none a reduction, none reading another, all over one demanded
//        box (trapeze's addition: intra-tile fusion computes such consumers
//        in one nest, where the compiler computes it once; harris's
//        gradients, inlined into the three products, leave the products
//        stored, where rule (i) inlined each product into its 3x3 sum and
//        recomputed it at all nine taps: 27 products a point, against 3,
//        and 16% slower),
// repeated until nothing changes: inlining a stage hands its producers its
// consumers, and a point-wise consumer of a stencil is a stencil after.
// Members are visited producers first, so (vi) on a producer comes before (i)
// on its consumers. Rule (i) recomputes a point-wise value at each tap of a
// consumer that reads it at several points, within its bound; (ii), (iii)
// and (vi) add no redundant computation. Reductions are never
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

/// Whether Alg. 3 inlines a member of a group, and why.
struct InlineDecision {
  /// The rule that inlines it, or "" where it is stored: "point-wise" (with
  /// what its recomputation costs, where a consumer reads several points),
  /// "its one consumer reads one point of it per point", "its consumers read
  /// disjoint points of it", "it computes nothing (...)", "a stencil on
  /// memory that its one consumer recomputes: ...", "its consumers read it at
  /// their own point, and compute over one box, in one nest that computes it
  /// once".
  std::string reason;
  /// Inlined by rule (v): its consumer recomputes it at every tap.
  bool recomputes_stencil = false;
  /// A stored member's nest after inlining: the operations a point of it
  /// computes, and the bytes a point moves to or from memory (what it reads
  /// from outside the group, and its own element if it is a live-out).
  double operations = 0, memory_bytes = 0;
};

/// Per member of the group (stage indices of `model`, topological order):
/// whether and why Alg. 3 inlines it. `live_out` is per member;
/// `ops_per_byte` is the machine's (rule (v); 0 turns the rule off).
std::vector<InlineDecision> choose_inlining(const PipelineModel& model,
                                            const std::vector<int>& members,
                                            const std::vector<bool>& live_out, double ops_per_byte);

} // namespace trapeze::autoschedule
