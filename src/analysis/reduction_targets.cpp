// Classifying the target indices of a reduction's updates (reduction_targets.h).
#include "analysis/reduction_targets.h"

#include "trapeze/ir_visitor.h"

#include <algorithm>
#include <optional>
#include <set>

namespace trapeze::analysis {

using namespace ir;

namespace {

bool uses_any(const Expr& e, const std::vector<std::string>& rvars) {
  bool found = false;
  for_each_node(e, [&](const Expr& n) {
    if (const auto* v = n.as<VarRef>();
        v && std::find(rvars.begin(), rvars.end(), v->name) != rvars.end())
      found = true;
  });
  return found;
}

// target = rvars[k] + shift with shift free of variables and atoms.
std::optional<std::pair<std::size_t, AffineForm>> follows(const Expr& target,
                                                          const std::vector<std::string>& rvars) {
  const auto form = affine_form(target);
  if (!form) return std::nullopt;
  std::optional<std::size_t> rvar;
  AffineForm shift;
  shift.constant = form->constant;
  for (const auto& [key, term] : form->terms) {
    if (key.front() == '0') { // a parameter
      shift.terms.emplace(key, term);
      continue;
    }
    const auto it = std::find(rvars.begin(), rvars.end(), key.substr(1));
    if (key.front() != '1' || it == rvars.end() || term.first != 1 || rvar) return std::nullopt;
    rvar = static_cast<std::size_t>(it - rvars.begin());
  }
  if (!rvar) return std::nullopt;
  return std::make_pair(*rvar, shift);
}

std::string form_key(const AffineForm& f) {
  std::string s = std::to_string(f.constant);
  for (const auto& [key, term] : f.terms)
    s += ";" + key + "*" + std::to_string(term.first);
  return s;
}

} // namespace

std::vector<TargetDim> reduction_targets(const Function& f, const Reduction& r,
                                         const BoundsProver& prover) {
  std::vector<TargetDim> dims(static_cast<std::size_t>(f.dimensions()));
  std::set<std::size_t> followed;
  for (std::size_t d = 0; d < dims.size(); ++d) {
    TargetDim& t = dims[d];
    if (std::none_of(r.updates.begin(), r.updates.end(),
                     [&](const ReductionUpdate& u) { return uses_any(u.target[d], r.rvars); })) {
      t.kind = TargetDim::Kind::Fixed;
      continue;
    }
    std::optional<std::pair<std::size_t, AffineForm>> first;
    bool same = true;
    for (const ReductionUpdate& u : r.updates) {
      const auto f_u = follows(u.target[d], r.rvars);
      if (!f_u || (first && (f_u->first != first->first ||
                             form_key(f_u->second) != form_key(first->second)))) {
        same = false;
        break;
      }
      if (!first) first = f_u;
    }
    if (!same || !first || followed.count(first->first)) continue; // Any
    const Expr shift = affine_expr(first->second);
    const Interval& range = r.rdom[first->first];
    const Interval& domain = f.domain()[d];
    const auto plus = [](const Expr& a, const Expr& b) {
      return Binary::make(BinaryOp::Add, Cast::make(ScalarType::Int64, a), b);
    };
    if (!prover.prove_le(domain.lo, plus(range.lo, shift)) ||
        !prover.prove_le(plus(range.hi, shift), domain.hi))
      continue; // clamping could move a target: Any
    followed.insert(first->first);
    t.kind = TargetDim::Kind::Follows;
    t.rvar = first->first;
    t.shift = shift;
  }
  return dims;
}

} // namespace trapeze::analysis
