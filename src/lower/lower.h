// The lowering driver: pipeline to loop IR, one pass after another.
#pragma once

#include "lower/loop_ir.h"
#include "trapeze/pipeline.h"
#include "trapeze/schedule.h"

#include <iosfwd>
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

/// The result of lowering: the loop IR of the whole pipeline and the passes that built it.
struct Lowered {
  Stmt body;
  std::vector<PassRecord> passes;
};

/// The passes, in the order they run.
const std::vector<std::string>& pass_names();

/// Runs every pass in order with the naive schedule. Throws trapeze::Error if
/// print_after names no pass.
Lowered lower(const Pipeline& p, const LowerOptions& options = {});
/// The same with a schedule (already validated; see Schedule::validate).
Lowered lower(const Pipeline& p, const Schedule& schedule, const LowerOptions& options = {});

} // namespace trapeze::lower
