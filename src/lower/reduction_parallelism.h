// How the updates of a reduction can run in parallel, and with what result.
//
//  * Over disjoint points: if a dimension follows the outermost reduction
//    variable r (analysis/reduction_targets.h: every target there is r + c,
//    never clamped; an update never reads its own stage: a pipeline is a
//    DAG), distinct values of r write distinct points: the loop over r runs in
//    parallel and every point still gets its updates in the definition's
//    order, so the result is the serial one, bit for bit (bilateral grid's
//    histogram: grid(c, gX, gY, bin(...)) += ...; a row sum).
//  * By partial results (Halide's rfactor): if all updates combine with the
//    same operator, the outermost reduction
//    variable's range is cut into a fixed number of chunks, each accumulates
//    into a partial result of its own (starting at the operator's identity)
//    in parallel, and the partial results are combined into the stage, chunk
//    by chunk in order. Integer sums, minima and maxima are exact; float sums
//    are reassociated (the chunks are fixed, so the result does not depend on
//    the number of threads), so a float sum runs this way only where its
//    group's schedule allows it (reassociate_float_sums), as Halide adds a
//    float sum in another order only where a schedule asks for rfactor. Only
//    for stages of a constant, small domain (histograms, tables), where P
//    partial copies cost little memory.
//  * Otherwise: serial.
#pragma once

#include "analysis/bounds_prover.h"
#include "trapeze/function.h"

#include <cstdint>
#include <string>
#include <vector>

namespace trapeze::lower {

/// The chunks (and partial results) of the partial-result strategy.
constexpr std::int64_t kReductionChunks = 8;

enum class ReductionParallelism : std::uint8_t { Serial, DisjointPoints, PartialResults };

struct ReductionStrategy {
  ReductionParallelism kind = ReductionParallelism::Serial;
  std::string reason; ///< for the comment in the loop IR and the generated code
  /// A float sum by partial results: its terms are added in another order
  /// than the definition's (lower::Module::reassociated_sums).
  bool reassociates = false;
};

/// The strategy for the updates of `f` (a reduction) computed over `box`;
/// partial results for a float sum only if `reassociate_float_sums`.
ReductionStrategy reduction_strategy(const ir::Function& f, const ir::Reduction& r,
                                     const std::vector<Interval>& box,
                                     const analysis::BoundsProver& prover,
                                     bool reassociate_float_sums);

} // namespace trapeze::lower
