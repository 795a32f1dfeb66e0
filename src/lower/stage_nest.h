// The loop nests of one stage over a box: what every schedule lowers a stage to.
#pragma once

#include "lower/bounds_simplify.h"
#include "lower/inline_stages.h"
#include "lower/loop_ir.h"
#include "trapeze/function.h"

#include <set>
#include <string>
#include <vector>

namespace trapeze::lower {

/// How a stage's nest is built.
struct StageNestOptions {
  /// The box of points to compute (inclusive bounds, one per stage dimension);
  /// empty: the stage's domain. Only a stage without a reduction may have a box.
  std::vector<Interval> box;
  /// The buffer the Stores write; empty: the buffer named f.name().
  std::string buffer;
  /// The outermost loop with more than one iteration may be parallel.
  bool allow_parallel = true;
  /// The innermost loop is marked for vectorization.
  bool vectorize = true;
  /// Substitutes the inlined stages into every expression taken from the
  /// definition (values, conditions, reduction targets), each in the context it
  /// is evaluated in (a case's value: its box). None if null.
  const StageInliner* inliner = nullptr;
};

/// Lowers one stage into Stores to the buffer named f.name() (or options.buffer). A stage with
/// cases is split per dimension at the boundaries of the case boxes
/// (analysis::case_regions) where their order is proven, so each piece is a
/// clean loop nest with one expression and no per-point box test; elsewhere
/// the case's box test stays in the value. A reduction is an initialization
/// nest followed by a serial nest over its reduction domain.
/// `param_names` are the pipeline's parameters (let names avoid them).
Stmt lower_stage(const ir::FunctionPtr& f, const StageNestOptions& options,
                 const BoundsProver& prover, const std::set<std::string>& param_names);

/// "pure", "3 cases + default", "reduction".
std::string stage_kind_text(const ir::Function& f);

/// The stage's domain with simplified bounds.
std::vector<Interval> simplified_domain(const ir::Function& f, const BoundsProver& prover);

/// "[lo, hi] x [lo, hi]".
std::string box_text(const std::vector<Interval>& box);

} // namespace trapeze::lower
