// plan -> lower -> print, the one place the three meet.
#include "runtime/generate_source.h"

#include "lower/lower.h"
#include "plan/plan.h"

namespace trapeze::runtime {

codegen::CppModule generate_source(const Pipeline& p, const Schedule& schedule,
                                   const codegen::CodegenOptions& options) {
  return codegen::print_cpp(lower::lower(plan::make_plan(p, schedule)), options);
}

} // namespace trapeze::runtime
