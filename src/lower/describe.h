// The text lowering writes into comments of the loop IR (and so of the
// generated code): what a stage is, where it is computed.
#pragma once

#include "lower/bounds_simplify.h"
#include "trapeze/function.h"

#include <string>
#include <vector>

namespace trapeze::lower {

/// "pure", "3 cases + default", "reduction".
std::string stage_kind_text(const ir::Function& f);

/// The stage's domain with simplified bounds.
std::vector<Interval> simplified_domain(const ir::Function& f, const BoundsProver& prover);

} // namespace trapeze::lower
