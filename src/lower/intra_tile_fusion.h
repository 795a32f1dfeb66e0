// Intra-tile loop fusion (paper 001 §5.3): inside a tile, the nests of stages
// that read a common producer over equal loop bounds become one nest, so that
// each value of the producer is loaded once, into registers, for all of them.
#pragma once

#include "lower/bounds_simplify.h"
#include "lower/loop_ir.h"
#include "trapeze/function.h"

#include <string>
#include <vector>

namespace trapeze::lower {

/// One stage's nest inside a tile, in the order the stages run.
struct TileNest {
  ir::FunctionPtr stage;
  Stmt comment; ///< what the nest computes, printed before it
  Stmt nest;
};

/// The tile's statements, in order, with nests fused where (paper 001 §5.3)
/// (i) the stages read a common producer (a stage or an input), (ii) their
/// nests have the same structure: loops of equal bounds, kinds and depth at
/// every level, the same case pieces, and a store at the bottom, and (iii) the
/// later stage needs (reads, directly or through other nests) none of the
/// stages fused so far; the nests between them that it needs move ahead of the
/// fused set, unless they need the set themselves. The fused nest runs at the
/// place of its first stage and stores every stage at each point, in order.
/// Nests with lets (reductions) are not fused.
/// `fused`, if given, receives the names of each fused set of stages.
std::vector<Stmt> fuse_intra_tile(const std::vector<TileNest>& nests, const BoundsProver& prover,
                                  std::vector<std::vector<std::string>>* fused = nullptr);

} // namespace trapeze::lower
