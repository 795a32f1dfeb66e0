// Run-time check that every domain of a pipeline is non-empty.
#include "analysis/domain_check.h"

#include "analysis/region_text.h"

namespace trapeze::analysis {

using namespace ir;

namespace {

std::vector<Expr> bound_exprs(const std::vector<Interval>& box) {
  std::vector<Expr> out;
  for (const Interval& i : box)
    out.push_back(i.lo), out.push_back(i.hi);
  return out;
}

// The names of the empty dimensions of `box`: "x" or "x and y".
std::string empty_dimensions(const std::vector<std::string>& names, const Box& box) {
  std::string s;
  for (int d = 0; d < box.dimensions(); ++d) {
    const auto u = static_cast<std::size_t>(d);
    if (box.hi[u] < box.lo[u]) s += (s.empty() ? "" : " and ") + names[u];
  }
  return s;
}

void check_stage_domain(const Function& f, const ParamValues& bound) {
  const Box box = concrete_domain(f, bound);
  if (!box.empty()) return;
  throw Error("empty domain: stage " + f.describe() + " has domain " + box.str() +
              for_params_text(bound_exprs(f.domain()), bound) + " (dimension " +
              empty_dimensions(f.vars(), box) +
              " is empty). Check the parameter values, or the stage's domain bounds.");
}

void check_reduction_domain(const Function& f, const ParamValues& bound) {
  const Reduction& r = *f.definition().reduction;
  Box box;
  for (const Interval& i : r.rdom) {
    const std::string what = "the reduction domain of stage " + f.describe();
    box.lo.push_back(evaluate_int(i.lo, bound, what));
    box.hi.push_back(evaluate_int(i.hi, bound, what));
  }
  if (!box.empty()) return;
  throw Error("empty reduction domain: stage " + f.describe() + " has reduction domain " +
              region_text(r.rvars, box) + for_params_text(bound_exprs(r.rdom), bound) + " (" +
              empty_dimensions(r.rvars, box) +
              " is empty). Check the parameter values, or the reduction variables' ranges.");
}

void check_input_extents(const InputImage& image, const ParamValues& bound) {
  const Box box = concrete_domain(image, bound);
  if (!box.empty()) return;
  std::string extents;
  for (int d = 0; d < box.dimensions(); ++d)
    extents += (d ? " x " : "") + std::to_string(box.extent(d));
  throw Error("empty input: input " + image.describe() + " has extents " + extents +
              for_params_text(image.extents(), bound) +
              "; every extent must be at least 1. Check the parameter values.");
}

} // namespace

void check_domains_nonempty(const Pipeline& p, const ParamValues& bound) {
  for (const InputImagePtr& image : p.inputs())
    check_input_extents(*image, bound);
  for (const FunctionPtr& f : p.stages()) {
    check_stage_domain(*f, bound);
    if (f->definition().is_reduction()) check_reduction_domain(*f, bound);
  }
}

} // namespace trapeze::analysis
