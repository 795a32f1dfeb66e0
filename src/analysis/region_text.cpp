// How error messages spell concrete regions and parameter values.
#include "analysis/region_text.h"

#include "trapeze/error.h"

namespace trapeze::analysis {

std::string region_text(const std::vector<std::string>& names, const Box& box) {
  TRAPEZE_ASSERT(static_cast<int>(names.size()) == box.dimensions(), "names do not match the box");
  std::string s;
  for (std::size_t d = 0; d < names.size(); ++d)
    s += (d ? ", " : "") + names[d] + " in [" + std::to_string(box.lo[d]) + ", " +
         std::to_string(box.hi[d]) + "]";
  return s;
}

std::string for_params_text(const std::vector<Expr>& exprs, const ParamValues& bound) {
  const std::string s = param_bindings_text(exprs, bound);
  return s.empty() ? s : " for " + s;
}

} // namespace trapeze::analysis
