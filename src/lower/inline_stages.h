// Inlining: a read of an inlined stage becomes the stage's definition at the
// read's point. Stages with cases inline too: a case whose box provably holds
// (or fails) at every point where the read is evaluated is resolved at lowering
// time, so a stencil over a stage's interior reads its interior value directly,
// with no per-point select.
#pragma once

#include "analysis/bounds_prover.h"
#include "trapeze/function.h"

#include <map>
#include <string>
#include <vector>

namespace trapeze::lower {

/// Where an expression is evaluated: the stage variables it is written in and,
/// per variable, an interval (of parameters) holding every point where it is
/// evaluated. An empty `ranges` says nothing about the points.
struct EvaluationContext {
  std::vector<std::string> vars;
  std::vector<Interval> ranges;
};

/// The inlined stages of a schedule, with their definitions prepared once.
class StageInliner {
public:
  /// `inlined`: pure or case-defined stages (no reductions), any order.
  StageInliner(const std::vector<ir::FunctionPtr>& inlined, const analysis::BoundsProver& prover);

  bool inlines(const std::string& stage) const { return stages_.count(stage) > 0; }

  /// `e` with every read of an inlined stage replaced by its definition at the
  /// read's point. For each case of the read stage, from the last to the first:
  /// a case whose box contains every point the read can touch from `where` and
  /// that has no other condition is the value; a case whose box no such point
  /// touches is dropped; any other case becomes a select on its condition, lazy
  /// in its box test, so that its value is only evaluated inside its box.
  Expr inline_reads(const Expr& e, const EvaluationContext& where) const;

private:
  // A stage's definition with the reads of other inlined stages already
  // replaced, each expression in the context it is evaluated in.
  struct Prepared {
    ir::FunctionPtr stage;
    std::vector<std::vector<Interval>> boxes; ///< per case, within the domain
    std::vector<Expr> residuals;              ///< per case, the rest of its condition, or undefined
    std::vector<Expr> values;                 ///< per case
    Expr otherwise;
  };

  const Prepared& prepare(const ir::FunctionPtr& f);
  std::vector<Interval> simplified(const std::vector<Interval>& box) const;
  Expr read_of(const Prepared& stage, const std::vector<Expr>& args,
               const EvaluationContext& where) const;

  const analysis::BoundsProver& prover_;
  std::map<std::string, ir::FunctionPtr> stages_;
  std::map<std::string, Prepared> prepared_;
};

} // namespace trapeze::lower
