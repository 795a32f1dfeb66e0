// How error messages spell concrete regions and parameter values.
#include "analysis/region_text.h"

#include "trapeze/ir_visitor.h"

#include <algorithm>
#include <sstream>

namespace trapeze::analysis {

std::string region_text(const std::vector<std::string>& names, const Box& box) {
  TRAPEZE_ASSERT(static_cast<int>(names.size()) == box.dimensions(), "names do not match the box");
  std::string s;
  for (std::size_t d = 0; d < names.size(); ++d)
    s += (d ? ", " : "") + names[d] + " in [" + std::to_string(box.lo[d]) + ", " +
         std::to_string(box.hi[d]) + "]";
  return s;
}

std::string param_bindings_text(const std::vector<Expr>& exprs, const ParamValues& bound) {
  std::vector<std::string> names;
  for (const Expr& e : exprs) {
    if (!e.defined()) continue;
    ir::for_each_node(e, [&](const Expr& n) {
      if (const auto* p = n.as<ir::ParamRef>();
          p && std::find(names.begin(), names.end(), p->name) == names.end())
        names.push_back(p->name);
    });
  }
  std::string s;
  for (const std::string& n : names) {
    s += (s.empty() ? "" : ", ") + n + "=";
    auto it = bound.find(n);
    if (it == bound.end()) {
      s += "?";
    } else if (it->second.is_float) {
      std::ostringstream out;
      out << it->second.f;
      s += out.str();
    } else {
      s += std::to_string(it->second.i);
    }
  }
  return s;
}

std::string for_params_text(const std::vector<Expr>& exprs, const ParamValues& bound) {
  const std::string s = param_bindings_text(exprs, bound);
  return s.empty() ? s : " for " + s;
}

} // namespace trapeze::analysis
