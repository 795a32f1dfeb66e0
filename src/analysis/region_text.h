// How error messages spell concrete regions and the parameter values behind them.
#pragma once

#include "trapeze/pipeline.h"

#include <string>
#include <vector>

namespace trapeze::analysis {

/// "x in [1, 10], y in [1, 20]": one named range per dimension of `box`.
std::string region_text(const std::vector<std::string>& names, const Box& box);

/// " for R=3, C=10", or "" when the expressions use no parameter.
std::string for_params_text(const std::vector<Expr>& exprs, const ParamValues& bound);

} // namespace trapeze::analysis
