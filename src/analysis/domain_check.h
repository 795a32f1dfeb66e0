// Run-time check that every domain of a pipeline is non-empty.
#pragma once

#include "trapeze/pipeline.h"

namespace trapeze::analysis {

/// Checks, for the bound parameter values, that every stage domain, every
/// reduction domain and every input extent is non-empty. Throws
/// trapeze::Error naming the stage or input, its concrete bounds and the
/// parameter values behind them.
void check_domains_nonempty(const Pipeline& p, const ParamValues& bound);

} // namespace trapeze::analysis
