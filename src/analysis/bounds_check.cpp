// Run-time proof that no affine access of a pipeline is out of bounds: the
// index ranges over each access's region, by interval arithmetic, must lie in
// the producer's domain.
#include "analysis/bounds_check.h"

#include "analysis/case_region.h"
#include "analysis/domain_check.h"
#include "analysis/interval_bounds.h"
#include "analysis/region_text.h"
#include "trapeze/ir_visitor.h"

namespace trapeze::analysis {

using namespace ir;

namespace {

// Where an expression may be evaluated: its variables' concrete ranges.
struct Region {
  std::vector<std::string> vars;
  Box box;
  std::string which; ///< "the value of case 2", for the message
};

std::string dimension_name(const Access& a, std::size_t d) {
  if (a.func) return a.func->vars()[d];
  return std::to_string(d);
}

void check_access(const Function& consumer, const Access& a, const Expr& self, const Region& region,
                  const ParamValues& bound) {
  const Box domain = a.func ? concrete_domain(*a.func, bound) : concrete_domain(*a.image, bound);
  VarRanges vars;
  for (std::size_t d = 0; d < region.vars.size(); ++d)
    vars[region.vars[d]] = IntRange{region.box.lo[d], region.box.hi[d]};
  Box needed;
  std::string violations;
  for (std::size_t d = 0; d < a.args.size(); ++d) {
    if (reads_memory(a.args[d])) { // data-dependent: clamped into the domain
      needed.lo.push_back(domain.lo[d]);
      needed.hi.push_back(domain.hi[d]);
      continue;
    }
    const IntRange r = integer_range(a.args[d], vars, bound);
    needed.lo.push_back(r.lo);
    needed.hi.push_back(r.hi);
    std::string problems;
    if (r.lo < domain.lo[d])
      problems += "needs down to " + std::to_string(r.lo) + ", domain starts at " +
                  std::to_string(domain.lo[d]);
    if (r.hi > domain.hi[d])
      problems += (problems.empty() ? "" : " and ") + std::string("needs up to ") +
                  std::to_string(r.hi) + ", domain ends at " + std::to_string(domain.hi[d]);
    if (problems.empty()) continue;
    if (r == full_range(a.args[d].type()))
      problems = "the index " + to_string(a.args[d]) +
                 " could not be bounded (interval arithmetic bounds affine indices; clamp "
                 "others), " +
                 problems;
    violations += (violations.empty() ? "" : "; ") + std::string("dimension ") +
                  dimension_name(a, d) + ": " + problems;
  }
  if (violations.empty()) return;
  const std::string& producer = a.producer_name();
  const std::string written = a.where.known() ? " (written at " + a.where.str() + ")" : "";
  throw Error("out-of-bounds access: stage " + consumer.describe() + " reads " + to_string(self) +
              " over " + region_text(region.vars, region.box) + ", which needs " + producer +
              " at " + needed.str() + ", but " + producer + "'s domain is " + domain.str() + " (" +
              violations + "); the access is in " + region.which + written +
              ". Shrink the consumer's domain or case, or enlarge the producer's " +
              (a.func ? "domain." : "extents."));
}

void check_expr(const Function& f, const Expr& e, const Region& region, const ParamValues& bound) {
  if (!e.defined()) return;
  for_each_node(e, [&](const Expr& n) {
    if (const auto* a = n.as<Access>()) check_access(f, *a, n, region, bound);
  });
}

void check_stage(const Function& f, const ParamValues& bound) {
  const Box domain = concrete_domain(f, bound);
  const Definition& def = f.definition();
  if (def.reduction) {
    const Reduction& r = *def.reduction;
    check_expr(f, r.init, Region{f.vars(), domain, "the initial value"}, bound);
    const Box rbox = concrete_box(r.rdom, bound, "the reduction domain of stage " + f.describe());
    for (std::size_t i = 0; i < r.updates.size(); ++i) {
      const std::string n = std::to_string(i + 1);
      for (const Expr& t : r.updates[i].target)
        check_expr(f, t, Region{r.rvars, rbox, "the target index of update " + n}, bound);
      check_expr(f, r.updates[i].value, Region{r.rvars, rbox, "the value of update " + n}, bound);
    }
    return;
  }
  const std::vector<CaseRegion> regions = case_regions(f);
  for (std::size_t i = 0; i < def.cases.size(); ++i) {
    const std::string n = std::to_string(i + 1);
    check_expr(f, def.cases[i].condition, Region{f.vars(), domain, "the condition of case " + n},
               bound);
    const Box box =
        concrete_box(regions[i].box, bound, "the box of case " + n + " of stage " + f.describe());
    if (box.empty()) continue; // the case never applies
    check_expr(f, def.cases[i].value, Region{f.vars(), box, "the value of case " + n}, bound);
  }
  check_expr(f, def.otherwise,
             Region{f.vars(), domain, def.cases.empty() ? "the definition" : "the default value"},
             bound);
}

} // namespace

void check_access_bounds(const Pipeline& p, const ParamValues& bound) {
  check_domains(p, bound);
  for (const FunctionPtr& f : p.stages())
    check_stage(*f, bound);
}

} // namespace trapeze::analysis
