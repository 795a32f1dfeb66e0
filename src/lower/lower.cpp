// The lowering driver. Every step has the same shape: run the pass, time it,
// print the IR if asked.
#include "lower/lower.h"

#include "lower/clamp_indices.h"
#include "lower/lower_tiled.h"
#include "lower/validate.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>

namespace trapeze::lower {

const std::vector<std::string>& pass_names() {
  static const std::vector<std::string> names = {
      "lower_schedule",
      "clamp_data_dependent_indices",
      "validate",
  };
  return names;
}

Lowered lower(const Pipeline& p, const LowerOptions& options) {
  return lower(p, Schedule::naive(p), options);
}

Lowered lower(const Pipeline& p, const Schedule& schedule, const LowerOptions& options) {
  const std::vector<std::string>& names = pass_names();
  if (!options.print_after.empty() && options.print_after != "all" &&
      std::find(names.begin(), names.end(), options.print_after) == names.end()) {
    std::string known;
    for (const std::string& n : names)
      known += (known.empty() ? "" : ", ") + n;
    throw Error("--print-after=" + options.print_after + " names no lowering pass; use one of " +
                known + ", or all");
  }
  std::ostream& log = options.log ? *options.log : std::cerr;
  Lowered result;
  const auto step = [&](const std::string& name, const std::function<Stmt()>& pass) {
    const auto start = std::chrono::steady_clock::now();
    result.body = pass();
    const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
    result.passes.push_back({name, took.count()});
    if (options.print_timing) {
      char ms[32];
      std::snprintf(ms, sizeof ms, "%.3f", took.count());
      log << "pass " << name << ": " << ms << " ms\n";
    }
    if (options.print_after == "all" || options.print_after == name)
      log << "// --- loop IR after " << name << " ---\n" << to_string(result.body);
  };

  // Groups of stages, tiled or not, into full buffers and scratchpads.
  step("lower_schedule", [&] { return lower_schedule(p, schedule); });
  // After every nest exists: rewrites the indices of all Stores and Accesses.
  step("clamp_data_dependent_indices",
       [&] { return clamp_data_dependent_indices(result.body, p); });
  // Last: every access and store must name a buffer in scope before code generation.
  step("validate", [&] {
    validate(result.body);
    return result.body;
  });
  return result;
}

} // namespace trapeze::lower
