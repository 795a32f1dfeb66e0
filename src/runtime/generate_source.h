// From a pipeline and a schedule to C++ source: plan, lower, print.
#pragma once

#include "codegen/cpp_codegen.h"

namespace trapeze::runtime {

/// Checks `schedule` against `p` (plan::make_plan), lowers it and prints the
/// module as C++. Throws trapeze::Error for a schedule that does not fit.
codegen::CppModule generate_source(const Pipeline& p, const Schedule& schedule,
                                   const codegen::CodegenOptions& options = {});

} // namespace trapeze::runtime
