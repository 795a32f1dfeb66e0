// Run-time check that every domain of a pipeline is non-empty and of a size
// the generated code and the runtime can hold.
#pragma once

#include "trapeze/pipeline.h"

namespace trapeze::analysis {

/// Checks, for the bound parameter values, that every stage domain, every
/// reduction domain and every input extent is non-empty, lies within
/// +-max_index (the generated code counts in 32 bits), and that a stage's
/// or input's whole box fits in max_buffer_bytes. Throws trapeze::Error
/// naming the stage or input, the dimension, its concrete bounds and the
/// parameter values behind them (an overflow while evaluating a bound names
/// the expression).
void check_domains(const Pipeline& p, const ParamValues& bound);

} // namespace trapeze::analysis
