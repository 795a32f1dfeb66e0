// Inferring a boundary condition's margins from its readers' indices: in each
// dimension, how far the indices read reach beyond the source's domain.
//
// The linear forms below are the IR layer's own: a Pipeline infers margins
// when it is built, below analysis/affine.h and analysis/bounds_prover.h,
// which it may not call. They answer one question, whether two bounds lie a
// constant apart, and keep only what it needs.
#include "ir/boundary_margins.h"

#include "ir/ir_operators.h"
#include "trapeze/ir_visitor.h"

#include <algorithm>
#include <map>
#include <optional>

namespace trapeze::ir {

namespace {

// An index or a bound as a sum of integer multiples of terms plus a constant.
// Terms are the reader's variables and anything free of variables, keyed by
// its text (a parameter R, or R / 2 as a whole): two bounds lie a constant
// apart exactly when their terms cancel.
struct LinearForm {
  std::map<std::string, std::int64_t> vars;
  std::map<std::string, std::int64_t> terms;
  std::int64_t constant = 0;
  /// False where a variable sits inside something not linear (x / 2,
  /// clamp(x, ...)) or a coefficient overflowed.
  bool understood = true;

  bool is_constant() const { return understood && vars.empty() && terms.empty(); }
};

bool add_to(std::int64_t& into, std::int64_t a, std::int64_t k) {
  std::int64_t scaled = 0;
  return !__builtin_mul_overflow(a, k, &scaled) && !__builtin_add_overflow(into, scaled, &into);
}

void add_terms(std::map<std::string, std::int64_t>& into,
               const std::map<std::string, std::int64_t>& from, std::int64_t k, bool& ok) {
  for (const auto& [name, a] : from) {
    std::int64_t& c = into[name];
    ok = ok && add_to(c, a, k);
    if (c == 0) into.erase(name);
  }
}

// into += k * f.
void add_scaled(LinearForm& into, const LinearForm& f, std::int64_t k) {
  into.understood = into.understood && f.understood;
  add_terms(into.vars, f.vars, k, into.understood);
  add_terms(into.terms, f.terms, k, into.understood);
  into.understood = into.understood && add_to(into.constant, f.constant, k);
}

bool reads_a_variable(const Expr& e) {
  bool found = false;
  for_each_node(e, [&](const Expr& n) { found = found || n.as<VarRef>() != nullptr; });
  return found;
}

LinearForm linear(const Expr& e);

// a / k for a constant k > 0 that divides every coefficient of a and its
// constant (floor division is then exact); nullopt otherwise.
std::optional<LinearForm> exact_quotient(const Expr& e) {
  const auto* b = e.as<Binary>();
  if (!b || b->op != BinaryOp::Div) return std::nullopt;
  const LinearForm k = linear(b->b);
  if (!k.is_constant() || k.constant <= 0) return std::nullopt;
  LinearForm q = linear(b->a);
  if (!q.understood || q.constant % k.constant != 0) return std::nullopt;
  for (auto* part : {&q.vars, &q.terms})
    for (auto& [name, coefficient] : *part) {
      if (coefficient % k.constant != 0) return std::nullopt;
      coefficient /= k.constant;
    }
  q.constant /= k.constant;
  return q;
}

LinearForm linear(const Expr& e) {
  LinearForm f;
  if (const auto* c = e.as<IntConst>()) {
    f.constant = c->value;
  } else if (const auto* v = e.as<VarRef>()) {
    f.vars[v->name] = 1;
  } else if (const auto* cast = e.as<Cast>(); cast && is_integer(cast->type) &&
                                              cast->type != ScalarType::Bool &&
                                              is_integer(cast->value.type())) {
    return linear(cast->value);
  } else if (const auto* u = e.as<Unary>(); u && u->op == UnaryOp::Neg) {
    add_scaled(f, linear(u->value), -1);
  } else if (const auto* b = e.as<Binary>();
             b && (b->op == BinaryOp::Add || b->op == BinaryOp::Sub)) {
    add_scaled(f, linear(b->a), 1);
    add_scaled(f, linear(b->b), b->op == BinaryOp::Add ? 1 : -1);
  } else if (b && b->op == BinaryOp::Mul) {
    const LinearForm l = linear(b->a), r = linear(b->b);
    if (l.is_constant())
      add_scaled(f, r, l.constant);
    else if (r.is_constant())
      add_scaled(f, l, r.constant);
    else if (reads_a_variable(e))
      f.understood = false;
    else
      f.terms[to_string(e)] = 1;
  } else if (const std::optional<LinearForm> q = exact_quotient(e)) {
    return *q; // R / 1, (2 * R + 4) / 2
  } else if (reads_a_variable(e)) {
    f.understood = false;
  } else {
    f.terms[to_string(e)] = 1;
  }
  return f;
}

// The lowest and highest value of `index` where each variable ranges over
// `ranges` (nullopt if the index is not linear in them).
std::optional<std::pair<LinearForm, LinearForm>>
index_range(const Expr& index, const std::map<std::string, Interval>& ranges) {
  const LinearForm f = linear(index);
  if (!f.understood) return std::nullopt;
  LinearForm lo = f, hi = f;
  lo.vars.clear(), hi.vars.clear();
  for (const auto& [var, a] : f.vars) {
    const auto it = ranges.find(var);
    if (it == ranges.end()) return std::nullopt;
    add_scaled(lo, linear(a > 0 ? it->second.lo : it->second.hi), a);
    add_scaled(hi, linear(a > 0 ? it->second.hi : it->second.lo), a);
  }
  if (!lo.understood || !hi.understood) return std::nullopt;
  return std::pair{lo, hi};
}

// a - b when it is a constant.
std::optional<std::int64_t> constant_difference(const LinearForm& a, const LinearForm& b) {
  LinearForm d = a;
  add_scaled(d, b, -1);
  if (!d.is_constant()) return std::nullopt;
  return d.constant;
}

// "x in [0, W / 2 - 1], c in [0, 2]": the ranges of the variables `index` reads.
std::string ranges_text(const Expr& index, const std::map<std::string, Interval>& ranges) {
  std::string out;
  std::map<std::string, bool> said;
  for_each_node(index, [&](const Expr& n) {
    const auto* v = n.as<VarRef>();
    if (!v || said[v->name]) return;
    said[v->name] = true;
    const auto it = ranges.find(v->name);
    if (it == ranges.end()) return;
    out += (out.empty() ? "" : ", ") + v->name + " in [" + to_string(it->second.lo) + ", " +
           to_string(it->second.hi) + "]";
  });
  return out;
}

// The boundary written with these margins, as the text form writes it:
// "repeat_edge(img, [3, 1])", or with placeholders "repeat_edge(img, [M0, M1])".
std::string written_with(const BoundaryOrigin& origin, std::vector<Expr> margins) {
  BoundaryOrigin given = origin;
  given.margins = std::move(margins);
  given.margins_inferred = false;
  return boundary_text(given);
}

std::vector<Expr> placeholder_margins(std::size_t dims) {
  std::vector<Expr> out;
  for (std::size_t d = 0; d < dims; ++d)
    out.push_back(ParamRef::make("M" + std::to_string(d)));
  return out;
}

std::vector<Expr> literals(const std::vector<std::int64_t>& values) {
  std::vector<Expr> out;
  for (const std::int64_t v : values)
    out.push_back(int_literal(v));
  return out;
}

// The variables of a reader and their ranges: its domain and, for a
// reduction, its reduction domain.
std::map<std::string, Interval> variable_ranges(const Function& reader) {
  std::map<std::string, Interval> ranges;
  for (std::size_t d = 0; d < reader.vars().size(); ++d)
    ranges.emplace(reader.vars()[d], reader.domain()[d]);
  if (const auto& r = reader.definition().reduction)
    for (std::size_t i = 0; i < r->rvars.size(); ++i)
      ranges.emplace(r->rvars[i], r->rdom[i]);
  return ranges;
}

// How many points beyond `stage`'s current domain its `readers` reach, per
// dimension (0 where they stay inside). An index the inference does not
// understand is an error while the stage awaits its margins; once they are
// set, it is left to the pipeline's domain check.
std::vector<std::int64_t> reach_beyond(const std::vector<FunctionPtr>& readers,
                                       const Function& stage) {
  const bool awaiting = stage.awaits_margins();
  const std::size_t dims = stage.domain().size();
  std::vector<std::pair<LinearForm, LinearForm>> bounds;
  for (const Interval& i : stage.domain())
    bounds.emplace_back(linear(i.lo), linear(i.hi));
  // The error for reader `reader`'s access `read`, index `d`: `why` it
  // cannot be inferred. Built only when thrown.
  const auto refusal = [&](const Function& reader, const Expr& read, std::size_t d,
                           const std::string& why) {
    const auto* a = read.as<Access>();
    return Error("cannot infer the margins of boundary stage " + stage.describe() + ": stage " +
                 reader.describe() + " reads it at " + to_string(read) + ", whose index " +
                 to_string(a->args[d]) + why + "; give them, one per dimension: " +
                 written_with(*stage.definition().boundary, placeholder_margins(dims)));
  };
  std::vector<std::int64_t> reach(dims, 0);
  for (const FunctionPtr& reader : readers) {
    const std::map<std::string, Interval> ranges = variable_ranges(*reader);
    for_each_expr(reader->definition(), [&](const Expr& e) {
      for_each_node(e, [&](const Expr& n) {
        const auto* a = n.as<Access>();
        if (!a || a->func.get() != &stage) return;
        for (std::size_t d = 0; d < a->args.size(); ++d) {
          const auto range = index_range(a->args[d], ranges);
          if (!range) {
            if (!awaiting) continue;
            throw refusal(*reader, n, d,
                          " is not a sum of the reader's variables times integers, parameters and "
                          "constants");
          }
          const auto below = constant_difference(bounds[d].first, range->first);
          const auto above = constant_difference(range->second, bounds[d].second);
          if (!below || !above) {
            if (!awaiting) continue;
            const Interval& source = stage.domain()[d];
            throw refusal(*reader, n, d,
                          ", over " + ranges_text(a->args[d], ranges) +
                              ", does not stay a constant distance from the source's domain [" +
                              to_string(source.lo) + ", " + to_string(source.hi) +
                              "] in dimension " + std::to_string(d));
          }
          reach[d] = std::max({reach[d], *below, *above});
        }
      });
    });
  }
  return reach;
}

} // namespace

void infer_boundary_margins(const Pipeline& p) {
  // Computed for every stage before any is set, so that an error leaves every
  // stage as it was. A boundary never reads a stage that awaits its margins
  // (boundary.cpp refuses it), so no reader's domain changes here.
  std::vector<std::pair<const FunctionPtr*, std::vector<std::int64_t>>> to_set;
  for (const FunctionPtr& stage : p.stages()) {
    const auto& origin = stage->definition().boundary;
    if (!origin || !origin->margins_inferred) continue;
    const std::vector<FunctionPtr> readers = p.consumers(*stage);
    if (readers.empty() && stage->awaits_margins())
      throw Error("cannot infer the margins of boundary stage " + stage->describe() +
                  ": no stage of pipeline '" + p.name() +
                  "' reads it (it is an output); give them, one per dimension: " +
                  written_with(*origin, placeholder_margins(stage->domain().size())));
    std::vector<std::int64_t> reach = reach_beyond(readers, *stage);
    if (stage->awaits_margins()) {
      to_set.emplace_back(&stage, std::move(reach));
      continue;
    }
    if (std::all_of(reach.begin(), reach.end(), [](std::int64_t r) { return r == 0; })) continue;
    std::vector<std::int64_t> needed;
    for (std::size_t d = 0; d < reach.size(); ++d) {
      const auto* m = origin->margins[d].as<IntConst>();
      TRAPEZE_ASSERT(m != nullptr, "inferred margins are constants");
      needed.push_back(m->value + reach[d]);
    }
    throw Error("boundary stage " + stage->describe() + " had its margins inferred as " +
                margins_text(origin->margins) + " by pipeline '" + stage->margins_inferred_by() +
                "', and pipeline '" + p.name() + "' reads beyond them; give its margins " +
                "explicitly, enough for both: " + written_with(*origin, literals(needed)));
  }
  for (const auto& [stage, margins] : to_set)
    (*stage)->set_inferred_margins(margins, p.name());
}

} // namespace trapeze::ir
