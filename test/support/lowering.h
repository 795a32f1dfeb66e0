// Lowering and printing a pipeline in one call, for tests.
#pragma once

#include "lower/lower.h"
#include "runtime/generate_source.h"

namespace trapeze::testing_support {

/// The loop IR of `p` under its naive schedule.
inline lower::Module lower_naive(const Pipeline& p, const lower::LowerOptions& options = {}) {
  return lower::lower(p, Schedule::naive(p), options);
}

/// The loop IR of `p` under `schedule` (checked), as text.
inline std::string lowered_text(const Pipeline& p, const Schedule& schedule) {
  return lower::to_string(lower::lower(p, schedule).body);
}

/// The C++ of `p` under `schedule` (checked).
inline codegen::CppModule generate_cpp(const Pipeline& p, const Schedule& schedule,
                                       const codegen::CodegenOptions& options = {}) {
  return runtime::generate_source(p, schedule, options);
}

/// The C++ of `p` under its naive schedule.
inline codegen::CppModule generate_cpp(const Pipeline& p) {
  return generate_cpp(p, Schedule::naive(p));
}

} // namespace trapeze::testing_support
