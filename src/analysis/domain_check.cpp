// Run-time check that every domain of a pipeline is non-empty and of a size
// the generated code and the runtime can hold.
#include "analysis/domain_check.h"

#include "analysis/region_text.h"
#include "trapeze/ir_visitor.h"

#include <fmt/core.h>

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

// The first dimension of `box` with a bound beyond +-max_index, or -1.
int dimension_beyond_index_range(const Box& box) {
  for (int d = 0; d < box.dimensions(); ++d) {
    const auto u = static_cast<std::size_t>(d);
    if (box.lo[u] < -max_index || box.hi[u] > max_index) return d;
  }
  return -1;
}

// The extents of a non-empty box.
std::vector<std::int64_t> box_extents(const Box& box) {
  std::vector<std::int64_t> e;
  for (int d = 0; d < box.dimensions(); ++d)
    e.push_back(box.extent(d));
  return e;
}

// "4 x 2305843009213693952": the extents of a box, multiplied out in words.
std::string points_text(const Box& box) {
  std::string s;
  for (int d = 0; d < box.dimensions(); ++d)
    s += (d ? " x " : "") + std::to_string(box.extent(d));
  return s;
}

std::string index_range_text() { return fmt::format("[{}, {}]", -max_index, max_index); }

void check_stage_size(const Function& f, const Box& box, const ParamValues& bound) {
  if (const int d = dimension_beyond_index_range(box); d >= 0)
    throw Error("stage " + f.describe() + " has domain " + box.str() +
                for_params_text(bound_exprs(f.domain()), bound) + ": dimension " +
                f.vars()[static_cast<std::size_t>(d)] + " leaves the index range " +
                index_range_text() +
                " (the generated code counts in 32 bits). Check the parameter values.");
  if (!buffer_bytes(f.type(), box_extents(box)))
    throw Error(fmt::format("stage {} has domain {}{}: its {} points of {} make more than {} "
                            "bytes, more than any buffer can hold. Check the parameter values.",
                            f.describe(), box.str(),
                            for_params_text(bound_exprs(f.domain()), bound), points_text(box),
                            type_name(f.type()), max_buffer_bytes));
}

void check_stage_domain(const Function& f, const ParamValues& bound) {
  const Box box = concrete_domain(f, bound);
  if (!box.empty()) return check_stage_size(f, box, bound);
  throw Error("empty domain: stage " + f.describe() + " has domain " + box.str() +
              for_params_text(bound_exprs(f.domain()), bound) + " (dimension " +
              empty_dimensions(f.vars(), box) +
              " is empty). Check the parameter values, or the stage's domain bounds.");
}

void check_reduction_domain(const Function& f, const ParamValues& bound) {
  const Reduction& r = *f.definition().reduction;
  const Box box = concrete_box(r.rdom, bound, "the reduction domain of stage " + f.describe());
  if (!box.empty()) {
    if (const int d = dimension_beyond_index_range(box); d >= 0)
      throw Error("stage " + f.describe() + " has reduction domain " + region_text(r.rvars, box) +
                  for_params_text(bound_exprs(r.rdom), bound) + ": " +
                  r.rvars[static_cast<std::size_t>(d)] + " leaves the index range " +
                  index_range_text() +
                  " (the generated code counts in 32 bits). Check the parameter values.");
    return;
  }
  throw Error("empty reduction domain: stage " + f.describe() + " has reduction domain " +
              region_text(r.rvars, box) + for_params_text(bound_exprs(r.rdom), bound) + " (" +
              empty_dimensions(r.rvars, box) +
              " is empty). Check the parameter values, or the reduction variables' ranges.");
}

void check_input_extents(const InputImage& image, const ParamValues& bound) {
  const Box box = concrete_domain(image, bound);
  std::string declared_extents, extents;
  for (int d = 0; d < box.dimensions(); ++d) {
    declared_extents += "[" + to_string(image.extents()[static_cast<std::size_t>(d)]) + "]";
    extents += "[" + std::to_string(box.extent(d)) + "]";
  }
  const std::string declared = "input " + image.describe() + " " +
                               std::string(type_name(image.type())) + declared_extents +
                               " has extents " + extents + for_params_text(image.extents(), bound);
  if (box.empty())
    throw Error("empty input: " + declared +
                "; every extent must be at least 1. Check the parameter values.");
  if (const int d = dimension_beyond_index_range(box); d >= 0)
    throw Error(fmt::format("{}: extent {} is beyond {} (the generated code counts in 32 bits). "
                            "Check the parameter values.",
                            declared, d, max_index));
  if (!buffer_bytes(image.type(), box_extents(box)))
    throw Error(fmt::format("{}: its {} points of {} make more than {} bytes, more than any "
                            "buffer can hold. Check the parameter values.",
                            declared, points_text(box), type_name(image.type()), max_buffer_bytes));
}

} // namespace

void check_domains(const Pipeline& p, const ParamValues& bound) {
  for (const InputImagePtr& image : p.inputs())
    check_input_extents(*image, bound);
  for (const FunctionPtr& f : p.stages()) {
    check_stage_domain(*f, bound);
    if (f->definition().is_reduction()) check_reduction_domain(*f, bound);
  }
}

} // namespace trapeze::analysis
