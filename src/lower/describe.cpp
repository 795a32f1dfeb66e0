// Comment text of the loop IR.
#include "lower/describe.h"

#include "lower/loop_ir.h"

namespace trapeze::lower {

std::string stage_kind_text(const ir::Function& f) {
  const ir::Definition& def = f.definition();
  if (def.is_reduction()) return "reduction";
  if (def.cases.empty()) return "pure";
  const std::size_t n = def.cases.size();
  return std::to_string(n) + (n == 1 ? " case" : " cases") + " + default";
}

std::vector<Interval> simplified_domain(const ir::Function& f,
                                        const analysis::BoundsProver& prover) {
  std::vector<Interval> out;
  for (const Interval& range : f.domain())
    out.emplace_back(prover.simplify(range.lo), prover.simplify(range.hi));
  return out;
}

} // namespace trapeze::lower
