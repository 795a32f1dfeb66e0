// Dependence vectors of the producer -> consumer edges of a pipeline.
//
// For every access `P(i_0, ..., i_{n-1})` of a producer P (a stage or an input
// image) in a consumer C's definition, each index i_k is analysed as a
// floor-affine form (affine.h). Per producer dimension k the accesses are
// summarised as
//     i_k = floor(scale * v + offset),   offset in [min_offset, max_offset],
// where v is the one consumer variable the dimension aligns with and scale,
// offset are rationals (offset = c/d of the form floor((a*v + c)/d)). A
// producer point needed by consumer point v therefore lies in
// [floor(scale*v + min_offset), floor(scale*v + max_offset)].
// Parameter terms are kept out of the offsets and flagged (`parametric`).
#pragma once

#include "analysis/affine.h"
#include "trapeze/pipeline.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace trapeze::analysis {

/// One read of a producer in the consumer's definition.
struct AccessInfo {
  Expr access; ///< the ir::Access expression
  /// Where it occurs: "case 0 condition", "case 1", "default", "init",
  /// "update 0 target", "update 0".
  std::string context;
  std::vector<AccessKind> kinds;                 ///< per producer dimension
  std::vector<std::optional<AffineIndex>> forms; ///< per producer dimension (Affine kinds)
  /// Per producer dimension: the form of the index with its clamps to bounds
  /// without variables removed (min(max(x - 1, 0), R - 1) gives x - 1); the
  /// same as `forms` where the index is affine.
  std::vector<std::optional<AffineIndex>> unclamped_forms;
};

/// How one producer dimension is indexed over all accesses of an edge.
enum class DimDependenceKind : std::uint8_t {
  Aligned,       ///< every access: floor(scale*v + c) for the same variable v and scale
  Constant,      ///< every access uses a constant (no variable)
  MultiVariable, ///< some access combines several variables (x + y)
  Mixed,         ///< accesses disagree on the variable or the scale (f(x) + f(2*x))
  DataDependent, ///< some access index reads memory
  NonAffine,     ///< some access index is not floor-affine (x % 2, min, clamp, ...)
};
/// "aligned", "constant", "multi-variable", "mixed", "data-dependent", "non-affine".
const char* dim_dependence_kind_name(DimDependenceKind kind);

/// The dependence of the consumer on one producer dimension.
struct DimDependence {
  DimDependenceKind kind = DimDependenceKind::Constant;
  /// Aligned: the consumer variable (a stage variable or a reduction variable).
  std::string consumer_var;
  /// Aligned: its index among the consumer's stage variables; -1 for a reduction variable.
  int consumer_dim = -1;
  Rational scale;                  ///< Aligned: the coefficient a/d of the variable
  Rational min_offset, max_offset; ///< Aligned, Constant: range of c/d over the accesses
  std::int64_t max_divisor = 1;    ///< the largest d among the accesses
  bool parametric = false;         ///< some access index has a parameter term
  /// Why the dimension is not Aligned/Constant, naming the access (empty otherwise).
  std::string note;
  /// NonAffine only, where every index is affine or an affine index clamped
  /// (min, max) to bounds without variables, as a boundary condition's are:
  /// the dependence of the indices without their clamps. Clamping only merges
  /// points, so the footprint of a region is no larger than this dependence
  /// gives, though not in the same place: a size for cost models, never a
  /// region for lowering.
  std::shared_ptr<const DimDependence> unclamped;

  /// Readable summary, floor implied: "x", "x + 1", "x + [-1, 1]", "2*x + [0, 1]",
  /// "x/2", "3*x/2 + 1/2", "[0, 2]" (constant), "x + [0, 1] + params", or the kind name
  /// ("clamped x + [-1, 1]" for a non-affine dimension with an unclamped dependence).
  std::string str() const;

  /// Aligned or Constant, without parameter terms: a size-independent dependence.
  bool is_uniform() const {
    return (kind == DimDependenceKind::Aligned || kind == DimDependenceKind::Constant) &&
           !parametric;
  }
};

/// The producer -> consumer edge with all its accesses.
struct EdgeDependence {
  const ir::Function* consumer = nullptr;
  /// Exactly one of producer_stage and producer_input is set.
  const ir::Function* producer_stage = nullptr;
  const ir::InputImage* producer_input = nullptr;
  std::vector<AccessInfo> accesses;
  std::vector<DimDependence> dims; ///< per producer dimension

  const std::string& producer_name() const;
  int producer_dimensions() const;
  /// True if every dimension is_uniform().
  bool is_uniform() const;
};

/// The edges into `consumer`, producers in order of first access.
std::vector<EdgeDependence> consumer_dependences(const ir::Function& consumer);

/// All edges of the pipeline: consumers in topological order, each one's
/// producers in order of first access.
std::vector<EdgeDependence> dependences(const Pipeline& p);

} // namespace trapeze::analysis
