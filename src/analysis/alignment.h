// PolyMage's alignment and scaling of a group of stages into one common space.
//
// Every dimension of every stage in the group is mapped to one dimension of a
// common iteration space and multiplied by a positive integer scale, so that
// each dependence between two stages of the group becomes a constant
// (problem-size independent) distance range in the common space. Example
// (paper 001 §2.2): S1(i, j) -> (2i, j), S2(x, y) -> (4y, x).
//
// The mapping is found by propagation along the edges inside the group: if
// producer dimension k is read as floor(s*v + o) where v is consumer dimension
// j, both map to the same common dimension and scale_P[k] * s = scale_C[j].
// Scales start rational (the reference stage, the one with the most
// dimensions and latest in topological order, gets 1) and are multiplied, per
// common dimension, by the smallest factor that makes them all integers.
#pragma once

#include "analysis/dependence.h"

#include <cstdint>
#include <string>
#include <vector>

namespace trapeze::analysis {

/// Where one stage lies in the common space.
struct StageAlignment {
  const ir::Function* stage = nullptr;
  std::vector<int> common_dim;     ///< per stage dimension: its common dimension
  std::vector<std::int64_t> scale; ///< per stage dimension: the factor (>= 1)
  /// "(x, y) -> (2*x, y)" in the common space's dimension order; unmapped common
  /// dimensions (the stage lies at 0 in them) print as 0.
  std::string str(const std::vector<std::string>& common_names) const;
};

/// A dependence of the group in the common space: the producer points a
/// consumer point at common position p needs lie in [p + lo, p + hi], except
/// along a common dimension the producer does not have (`broadcast`): there the
/// consumer reads the producer's only position, whatever its own.
struct UniformDependence {
  const ir::Function* producer = nullptr;
  const ir::Function* consumer = nullptr;
  std::vector<std::int64_t> lo, hi; ///< per common dimension (0 where broadcast)
  std::vector<bool> broadcast;      ///< per common dimension
  /// "[-1, 1] x [0, 0] x *" (* marks a broadcast dimension).
  std::string str() const;
};

/// The alignment and scaling of a group, or the reason it is impossible.
struct GroupAlignment {
  bool ok = false;
  /// Why no alignment exists, naming the edge and the dimension (empty if ok).
  std::string reason;
  /// Names of the common dimensions (the reference stage's variable names first).
  std::vector<std::string> common_dims;
  std::vector<StageAlignment> stages;         ///< in the group's topological order
  std::vector<UniformDependence> dependences; ///< the edges inside the group, in order
};

/// Aligns and scales `group` (stages of `p`, any order, no duplicates).
/// `edges` are the pipeline's dependences (dependences(p)); edges from stages
/// outside the group and from input images are ignored.
GroupAlignment align_and_scale(const Pipeline& p, const std::vector<const ir::Function*>& group,
                               const std::vector<EdgeDependence>& edges);

/// The same over some of the pipeline's dependences: at least those between
/// stages of the group (the others are ignored). Aligning the groups of a
/// partition each with its own edges costs the edges once, not once per group.
GroupAlignment align_and_scale(const Pipeline& p, const std::vector<const ir::Function*>& group,
                               const std::vector<const EdgeDependence*>& edges);

/// The same, computing the dependences of the group's stages itself.
GroupAlignment align_and_scale(const Pipeline& p, const std::vector<const ir::Function*>& group);

} // namespace trapeze::analysis
