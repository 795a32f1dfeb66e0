// The text lowering writes into comments of the loop IR (and so of the
// generated code): what a stage is, where it is computed.
#pragma once

#include "analysis/bounds_prover.h"
#include "trapeze/function.h"

#include <string>
#include <vector>

namespace trapeze::lower {

/// "pure", "3 cases + default", "reduction".
std::string stage_kind_text(const ir::Function& f);

/// The stage's domain with simplified bounds.
std::vector<Interval> simplified_domain(const ir::Function& f,
                                        const analysis::BoundsProver& prover);

} // namespace trapeze::lower
