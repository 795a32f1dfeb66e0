// The lowering driver: a plan to loop IR, one pass after another.
#pragma once

#include "lower/loop_ir.h"
#include "plan/plan.h"

#include <iosfwd>
#include <set>
#include <string>
#include <vector>

namespace trapeze::lower {

/// What the driver logs.
struct LowerOptions {
  /// A pass name (see pass_names()) or "all": print the loop IR after it.
  std::string print_after;
  /// Print each pass's time.
  bool print_timing = false;
  /// Where printing goes; std::cerr when null.
  std::ostream* log = nullptr;
};

/// One pass as it ran.
struct PassRecord {
  std::string name;
  double milliseconds = 0;
};

/// The lowered pipeline: what code generators print.
struct Module {
  Pipeline pipeline;
  /// The loop IR of the whole pipeline: its input, output and full buffers
  /// around the groups, in the order they run.
  Stmt body;
  std::vector<PassRecord> passes;
  /// Per group of the schedule (the schedule's order): the sets of stages
  /// whose loops intra-tile fusion fused.
  std::vector<std::vector<std::vector<std::string>>> fused_sets;
  /// The float sums whose additions the loops run in another order than the
  /// definition's (partial results, reduction_parallelism.h): the only stages
  /// whose values may differ from the interpreter's.
  std::set<std::string> reassociated_sums;
};

/// The passes, in the order they run.
const std::vector<std::string>& pass_names();

/// Runs every pass in order. Throws trapeze::Error if print_after names no pass.
Module lower(const plan::Plan& plan, const LowerOptions& options = {});
/// The same after make_plan(p, schedule), which checks the schedule.
Module lower(const Pipeline& p, const Schedule& schedule, const LowerOptions& options = {});

} // namespace trapeze::lower
