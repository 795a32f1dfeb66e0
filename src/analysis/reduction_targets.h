// How the updates of a reduction address each dimension of its stage: what
// lets a box of the stage be computed from part of the reduction domain, so
// that a reduction can be fused with its consumers (a tile computes the
// histogram of the grid cells it reads) and its updates run in parallel.
#pragma once

#include "analysis/bounds_prover.h"
#include "trapeze/function.h"

#include <cstdint>
#include <vector>

namespace trapeze::analysis {

/// How every update's target index addresses one dimension of the stage.
struct TargetDim {
  enum class Kind : std::uint8_t {
    /// target = rvar + shift, the same reduction variable and shift in every
    /// update, a variable that no other dimension follows, and the variable's
    /// range shifted lies in the domain (clamping never moves a target): the
    /// points [lo, hi] along it get exactly the updates with rvar in
    /// [lo - shift, hi - shift].
    Follows,
    /// Free of reduction variables in every update (a constant channel):
    /// each update hits one position, whatever the reduction variables.
    Fixed,
    /// Anything else (a bin computed from a value): a box of points needs the
    /// whole reduction domain along it.
    Any,
  };
  Kind kind = Kind::Any;
  std::size_t rvar = 0; ///< Follows: the index of the reduction variable
  Expr shift;           ///< Follows: free of variables (int64)
};

/// Per dimension of `f`, whose definition is the reduction `r`.
std::vector<TargetDim> reduction_targets(const ir::Function& f, const ir::Reduction& r,
                                         const BoundsProver& prover);

} // namespace trapeze::analysis
