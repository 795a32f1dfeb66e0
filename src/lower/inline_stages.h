// Inlining: a read of an inlined stage becomes the stage's definition at the
// read's point. Stages with cases inline too: a case whose box provably holds
// (or fails) at every point where the read is evaluated is resolved at lowering
// time, so a stencil over a stage's interior reads its interior value directly,
// with no per-point select. A case that holds on part of the points instead
// splits the reader's case in two boxes, where it holds and where it fails, so
// that partitioning turns the test into loop bounds.
#pragma once

#include "analysis/bounds_prover.h"
#include "ir/value_numbers.h"
#include "lower/loop_ir.h"
#include "trapeze/function.h"

#include <map>
#include <optional>
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

/// A definition as ordered cases (the first whose box and residual hold
/// applies) and the value where none does.
struct CasedDefinition {
  std::vector<ProduceCase> cases;
  Expr otherwise;
};

/// The most distinct values (expression nodes, equal ones counted once) a
/// stage's definition may have once its reads of inlined stages are
/// replaced: the inline_stages pass refuses a schedule past it. g++ -O3
/// compiles a nest of 17,000 in about 35 s and one of 40,000 in over two
/// minutes (a chain of 3x3 stencils inlined 9 and 12 deep); the apps' largest
/// is about 400.
inline constexpr std::size_t kMaxInlinedValues = 25000;

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
  /// in its box test, so that its value is only evaluated inside its box
  /// (unless the stage's default reads what the case does everywhere, as a
  /// clamping boundary condition's: then the default alone). The cases are
  /// the pieces inline_definition split the stage into; where a piece would
  /// stay a select, the stage's own cases instead, whose reads are selects
  /// of their own (a select over pieces copies the whole value into each).
  Expr inline_reads(const Expr& e, const EvaluationContext& where) const;

  /// `def`, the definition of a stage with variables `vars` over `domain`,
  /// with its reads of inlined stages replaced (each case's value and residual
  /// in its box, the otherwise in the domain). Where a read's case holds on a
  /// part of a case's points only, and that part is a box of `vars` (every
  /// index of the read one variable times an integer, over a divisor, each
  /// variable in one index, or a constant inside the case's box), the case is
  /// first split in two: that part, then
  /// the rest, where the read's case is known to fail. The part is split
  /// again by the other reads before the rest is, so a stencil reading a
  /// boundary condition at several offsets gets an interior piece where every
  /// read is direct. Pieces that no point reaches are dropped. At most
  /// kMaxCases cases; past them the test stays a select, as in inline_reads.
  CasedDefinition inline_definition(const std::vector<std::string>& vars,
                                    const std::vector<Interval>& domain,
                                    const CasedDefinition& def) const;

  /// The most cases inline_definition splits a definition into.
  static constexpr std::size_t kMaxCases = 8;

private:
  // A stage's definition with the reads of other inlined stages already
  // replaced; its boxes simplified, within the domain.
  struct Prepared {
    ir::FunctionPtr stage;
    // Split into pieces where its reads resolve (inline_definition): what a
    // read placed in one piece takes.
    CasedDefinition def;
    // The stage's own cases, unsplit, each read inside a select on its
    // producer's case (or a piece it lies in): what a read that no piece
    // holds takes. A select over the pieces would copy the whole value into
    // each arm, and a chain of such reads multiplied the copies (fuzz seed
    // 311,912: three inlined stencils over a stage with cases, 36 MB of C++).
    // (Only where the stage was split.)
    CasedDefinition general;
    bool split = false; ///< whether inline_definition split a case
    // The default reads, at every point, what the one case reads in its box
    // (a boundary condition other than constant_exterior: the clamped,
    // wrapped or mirrored index is the index itself inside the source). A
    // read that cannot be placed then takes the default alone: a clamp,
    // where a select on the box would test and branch at every point.
    bool default_everywhere = false;
    bool general_default_everywhere = false; ///< the same of general
  };
  // Where an expression is evaluated, and boxes of its variables known to
  // hold none of its points (the boxes of earlier cases split off).
  struct Place {
    EvaluationContext where;
    std::vector<std::vector<Interval>> excluded;
  };
  using Box = std::vector<Interval>;

  const Prepared& prepare(const ir::FunctionPtr& f);
  Box simplified(const Box& box) const;
  Expr read_of(const Prepared& stage, const std::vector<Expr>& args, const Place& place) const;
  // The value of a read of `def` at `args`: its cases from the last to the
  // first, as read_of describes. `placed`, if given, is cleared where a case
  // would stay a select on its box, and the value is then undefined.
  Expr read_of_cases(const ir::Function& f, const CasedDefinition& def, bool default_everywhere,
                     const std::vector<Expr>& args, const Place& place, bool* placed) const;
  // inline_definition into at most `max_cases` cases (0: none split), saying
  // in `split` whether it split a case.
  CasedDefinition split_definition(const std::vector<std::string>& vars,
                                   const std::vector<Interval>& domain, const CasedDefinition& def,
                                   std::size_t max_cases, bool& split) const;
  Expr inline_reads_at(const Expr& e, const Place& place) const;
  // The first read in `e` of a case holding on part of `place` only, as the
  // box of place's variables where it holds; nullopt if none can split.
  std::optional<Box> find_split(const Expr& e, const Place& place) const;
  // The points of place's variables where a read with `args` falls in `box`,
  // within place's ranges; nullopt if they are not a box.
  std::optional<Box> read_box(const std::vector<Expr>& args, const Box& box,
                              const EvaluationContext& where) const;
  // Whether no point of `where` lies in `read` (the box of a read's case), by
  // the excluded boxes of `place`.
  bool excluded(const Box& read, const Place& place) const;
  // A box as candidate bounds per dimension: [max of los, min of his].
  struct CandidateBounds {
    std::vector<Expr> los, his;
  };
  using Bounds = std::vector<CandidateBounds>;
  // Whether the union of `boxes` provably holds every point of `r`, peeling
  // boxes off its ends at most `depth` times and in at most `budget` steps.
  bool covered(const Bounds& r, const std::vector<Box>& boxes, std::size_t depth,
               int& budget) const;
  static constexpr int kMaxCoverSteps = 256;
  Box intersect(const Box& a, const Box& b) const;

  const analysis::BoundsProver& prover_;
  std::map<std::string, ir::FunctionPtr> stages_;
  std::map<std::string, Prepared> prepared_;
  // Every inlined expression as one node per value: a stage read three times
  // at a point is one copy of its producer's value, not three, so a chain of
  // inlined stages stays as large as its distinct values (a cache, hence
  // mutable).
  mutable ir::Canonicalizer canonical_;
};

} // namespace trapeze::lower
