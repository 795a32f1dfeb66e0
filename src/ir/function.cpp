// Stages and inputs, and the checks made when a stage receives its definition.
#include "trapeze/function.h"

#include "ir/ir_operators.h"
#include "ir/release_iteratively.h"
#include "trapeze/ir_visitor.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <unordered_set>

namespace trapeze::ir {

std::string margins_text(const std::vector<Expr>& margins) {
  std::string out = "[";
  for (std::size_t i = 0; i < margins.size(); ++i)
    out += (i ? ", " : "") + to_string(margins[i]);
  return out + "]";
}

std::string boundary_text(const BoundaryOrigin& b) {
  std::string out = b.condition + "(" + b.source;
  if (b.value.defined()) out += ", " + to_string(b.value);
  if (b.margins_inferred) return out + ")";
  return out + ", " + margins_text(b.margins) + ")";
}

const char* reduce_op_name(ReduceOp op) {
  switch (op) {
  case ReduceOp::Sum: return "sum";
  case ReduceOp::Min: return "min";
  case ReduceOp::Max: return "max";
  }
  TRAPEZE_ASSERT(false, "unknown ReduceOp");
}

namespace {

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

void check_name(const std::string& what, const std::string& name, SourceLocation where) {
  if (!is_identifier(name))
    throw Error(what + " name '" + name + "' (at " + where.str() +
                ") is not an identifier: use letters, digits and '_', not starting with a digit");
}

// A bound or an extent: an integer expression of parameters and constants.
void check_param_expression(const Expr& e, const std::string& context) {
  if (!e.defined()) throw Error(context + " is undefined");
  if (!is_integer(e.type()) || e.type() == ScalarType::Bool)
    throw Error(context + " is " + std::string(type_name(e.type())) + " (" + to_string(e) +
                "); it must be an integer expression of int64 parameters and constants");
  for_each_node(e, [&](const Expr& n) {
    if (const auto* v = n.as<VarRef>())
      throw Error(context + " uses the variable '" + v->name + "' (" + to_string(e) +
                  "); bounds may use only parameters and constants");
    if (const auto* a = n.as<Access>())
      throw Error(context + " reads '" + a->producer_name() + "' (" + to_string(e) +
                  "); bounds may use only parameters and constants");
    if (const auto* p = n.as<ParamRef>(); p && p->type != ScalarType::Int64)
      throw Error(context + " uses the " + std::string(type_name(p->type)) + " parameter '" +
                  p->name + "'; bounds may use only int64 parameters");
  });
}

} // namespace

Function::Function(std::string name, ScalarType type, std::vector<std::string> vars,
                   std::vector<Interval> domain, SourceLocation declared_at)
    : name_(std::move(name)), type_(type), vars_(std::move(vars)), domain_(std::move(domain)),
      declared_at_(declared_at) {
  check_name("stage", name_, declared_at_);
  const std::string who = "stage '" + name_ + "' (declared at " + declared_at_.str() + ")";
  if (vars_.size() != domain_.size())
    throw Error(who + " has " + std::to_string(vars_.size()) + " variable" +
                (vars_.size() == 1 ? "" : "s") + " but " + std::to_string(domain_.size()) +
                " domain interval" + (domain_.size() == 1 ? "" : "s") +
                "; give one interval per variable");
  if (vars_.empty()) throw Error(who + " has no variables; a stage needs at least one dimension");
  std::set<std::string> seen;
  for (std::size_t d = 0; d < vars_.size(); ++d) {
    check_name("variable", vars_[d], declared_at_);
    if (!seen.insert(vars_[d]).second)
      throw Error(who + " uses the variable '" + vars_[d] + "' for two dimensions");
    check_param_expression(domain_[d].lo,
                           "the lower bound of dimension " + vars_[d] + " of " + who);
    check_param_expression(domain_[d].hi,
                           "the upper bound of dimension " + vars_[d] + " of " + who);
  }
}

// Releasing a definition releases the stages it reads, each of which may
// release its own: one level of recursion per stage of a chain.
Function::~Function() { ir::release_iteratively(std::move(definition_)); }

const Definition& Function::definition() const {
  if (!defined_)
    throw Error("stage " + describe() +
                " is used but never defined: give it a definition with define()");
  return definition_;
}

std::string Function::describe() const {
  return "'" + name_ + "' (declared at " + declared_at_.str() + ")";
}

bool Function::awaits_margins() const { return rebuild_boundary_ != nullptr; }

void Function::await_margins(BoundaryRebuild rebuild) {
  TRAPEZE_ASSERT(defined_ && definition_.boundary && definition_.boundary->margins_inferred &&
                     margins_inferred_by_.empty() && rebuild,
                 "only a boundary just defined without margins awaits them");
  rebuild_boundary_ = std::move(rebuild);
}

void Function::set_inferred_margins(const std::vector<std::int64_t>& margins,
                                    const std::string& pipeline) {
  TRAPEZE_ASSERT(awaits_margins(), "margins inferred for a stage that does not await them");
  TRAPEZE_ASSERT(margins.size() == domain_.size(), "one inferred margin per dimension");
  std::vector<Expr> given;
  for (std::size_t d = 0; d < margins.size(); ++d) {
    TRAPEZE_ASSERT(margins[d] >= 0, "a negative inferred margin");
    domain_[d] = {shifted_bound(domain_[d].lo, -margins[d]),
                  shifted_bound(domain_[d].hi, margins[d])};
    given.push_back(int_literal(margins[d]));
  }
  // The same stages and images, read at other points: define()'s checks hold.
  Definition rebuilt = rebuild_boundary_(given);
  TRAPEZE_ASSERT(rebuilt.boundary && rebuilt.boundary->margins_inferred &&
                     rebuilt.boundary->margins.size() == margins.size(),
                 "a rebuilt boundary records its inferred margins");
  ir::release_iteratively(std::move(definition_));
  definition_ = std::move(rebuilt);
  rebuild_boundary_ = nullptr;
  margins_inferred_by_ = pipeline.empty() ? "(unnamed)" : pipeline;
}

namespace {

// Converts a value to the stage's type: constants convert, anything else must match.
Expr conform_value(const Function& f, const Expr& value, const std::string& which) {
  if (!value.defined()) throw Error(which + " of stage " + f.describe() + " is undefined");
  if (value.type() == f.type()) return value;
  if (value.as<IntConst>() || value.as<FloatConst>()) return Cast::make(f.type(), value);
  throw Error("mismatched types: " + which + " of stage " + f.describe() + " is " +
              std::string(type_name(value.type())) + " (" + to_string(value) +
              ") but the stage is " + std::string(type_name(f.type())) +
              "; every case and the default must have the stage's type (cast the value)");
}

void check_scope(const Function& f, const Expr& e, const std::vector<std::string>& scope,
                 const std::string& which) {
  for_each_node(e, [&](const Expr& n) {
    const auto* v = n.as<VarRef>();
    if (!v || std::find(scope.begin(), scope.end(), v->name) != scope.end()) return;
    std::string names;
    for (std::size_t i = 0; i < scope.size(); ++i)
      names += (i ? ", " : "") + scope[i];
    throw Error("stage " + f.describe() + ": " + which + " uses the variable '" + v->name +
                "', which is not among the variables in scope there (" + names + ")");
  });
}

} // namespace

void for_each_expr(const Definition& d, const std::function<void(const Expr&)>& fn) {
  for (const Case& c : d.cases)
    fn(c.condition), fn(c.value);
  if (d.otherwise.defined()) fn(d.otherwise);
  if (!d.reduction) return;
  for (const Interval& i : d.reduction->rdom)
    fn(i.lo), fn(i.hi);
  fn(d.reduction->init);
  for (const ReductionUpdate& u : d.reduction->updates) {
    for (const Expr& t : u.target)
      fn(t);
    fn(u.value);
  }
}

namespace {

// The stages a definition reads, in order of access (a stage read twice is listed twice).
std::vector<Function*> stages_read(const Definition& d) {
  std::vector<Function*> out;
  for_each_expr(d, [&](const Expr& e) {
    for_each_node(e, [&](const Expr& n) {
      if (const auto* a = n.as<Access>(); a && a->func) out.push_back(a->func.get());
    });
  });
  return out;
}

// A cycle error lists this many of its stages; the rest are counted (a cycle
// can run through 100,000 stages, and the message must stay readable).
constexpr std::size_t kCycleStagesShown = 8;

// "b -> a -> b", or for a long cycle its first stages and how many more:
// "a cycle of 4000 stages: s3999 -> ... -> s3992 -> ... and 3992 more -> s3999".
std::string cycle_text(const std::vector<const Function*>& cycle) {
  std::string out;
  const std::size_t shown = std::min(cycle.size(), kCycleStagesShown);
  for (std::size_t i = 0; i < shown; ++i)
    out += cycle[i]->name() + " -> ";
  if (shown < cycle.size()) {
    out = "a cycle of " + std::to_string(cycle.size()) + " stages: " + out + "... and " +
          std::to_string(cycle.size() - shown) + " more -> ";
  }
  return out + cycle.front()->name();
}

} // namespace

// A depth-first search of the reads, in order of access, from this stage
// back to itself: the first chain found is the one reported, as it always
// was. It is iterative (a chain of stages can be 100,000 deep), and it skips
// what cannot lead back here, so that defining the stages of a pipeline one
// by one is linear in their number rather than quadratic:
//  - without a read defined before this stage was, only a direct self-read
//    can close a cycle (any longer one ends in such a read);
//  - a stage that reads only defined stages (reads_only_defined_) could not
//    reach this one, undefined until now, and never will.
std::vector<const Function*>
Function::cycle_through_this(const std::vector<Function*>& reads) const {
  if (reads_before_definition_ == 0) {
    if (std::find(reads.begin(), reads.end(), this) != reads.end()) return {this};
    return {};
  }
  struct Frame {
    const Function* stage;
    std::vector<Function*> reads;
    std::size_t next = 0;
  };
  std::vector<Frame> path;
  path.push_back(Frame{this, reads});
  std::unordered_set<const Function*> visited{this};
  while (!path.empty()) {
    Frame& top = path.back();
    if (top.next == top.reads.size()) {
      path.pop_back();
      continue;
    }
    const Function* next = top.reads[top.next++];
    if (next == this) {
      std::vector<const Function*> cycle;
      for (const Frame& f : path)
        cycle.push_back(f.stage);
      return cycle;
    }
    if (next->reads_only_defined_ || !next->has_definition() || !visited.insert(next).second)
      continue;
    path.push_back(Frame{next, stages_read(next->definition_)});
  }
  return {};
}

void Function::define(Definition def, SourceLocation where) {
  if (defined_)
    throw Error("stage " + describe() + " is defined twice (first at " + defined_at_.str() +
                ", again at " + where.str() + "); a stage has exactly one definition");
  const std::string w = " (defined at " + where.str() + ")";
  std::vector<std::string> scope = vars_;
  for (std::size_t i = 0; i < def.cases.size(); ++i) {
    Case& c = def.cases[i];
    const std::string which = "case " + std::to_string(i + 1);
    if (!c.condition.defined() || c.condition.type() != ScalarType::Bool)
      throw Error("stage " + describe() + w + ": the condition of " + which + " must be bool" +
                  (c.condition.defined() ? ", but " + to_string(c.condition) + " is " +
                                               std::string(type_name(c.condition.type()))
                                         : ""));
    check_scope(*this, c.condition, scope, "the condition of " + which);
    c.value = conform_value(*this, c.value, "the value of " + which);
    check_scope(*this, c.value, scope, "the value of " + which);
  }
  if (def.reduction) {
    Reduction& r = *def.reduction;
    if (r.rvars.size() != r.rdom.size() || r.rvars.empty())
      throw Error("stage " + describe() + w +
                  ": a reduction needs one range per reduction variable");
    std::vector<std::string> rscope;
    for (std::size_t i = 0; i < r.rvars.size(); ++i) {
      check_name("reduction variable", r.rvars[i], where);
      if (std::find(rscope.begin(), rscope.end(), r.rvars[i]) != rscope.end())
        throw Error("stage " + describe() + w + ": the reduction variable '" + r.rvars[i] +
                    "' appears twice");
      rscope.push_back(r.rvars[i]);
      check_param_expression(r.rdom[i].lo, "the lower bound of reduction variable " + r.rvars[i] +
                                               " of stage " + describe());
      check_param_expression(r.rdom[i].hi, "the upper bound of reduction variable " + r.rvars[i] +
                                               " of stage " + describe());
    }
    r.init = conform_value(*this, r.init, "the initial value");
    check_scope(*this, r.init, scope, "the initial value");
    if (r.updates.empty())
      throw Error("stage " + describe() + w + ": a reduction needs at least one update");
    for (std::size_t i = 0; i < r.updates.size(); ++i) {
      ReductionUpdate& u = r.updates[i];
      const std::string which = "update " + std::to_string(i + 1);
      if (static_cast<int>(u.target.size()) != dimensions())
        throw Error("wrong number of arguments: " + which + " of stage " + describe() + w +
                    " has a target of " + std::to_string(u.target.size()) +
                    " indices but the stage has " + std::to_string(dimensions()) + " dimensions");
      for (Expr& t : u.target) {
        if (!t.defined() || is_float(t.type()))
          throw Error("stage " + describe() + w + ": a target index of " + which +
                      " must be an integer" +
                      (t.defined() ? ", but " + to_string(t) + " is not" : ""));
        if (t.type() != ScalarType::Int64) t = Cast::make(ScalarType::Int32, t);
        check_scope(*this, t, rscope, "a target index of " + which);
      }
      u.value = conform_value(*this, u.value, "the value of " + which);
      check_scope(*this, u.value, rscope, "the value of " + which);
    }
    if (!def.cases.empty() || def.otherwise.defined())
      throw Error("stage " + describe() + w + ": a reduction cannot also have cases or a value");
  } else {
    def.otherwise = conform_value(*this, def.otherwise,
                                  def.cases.empty() ? "the definition" : "the default value");
    check_scope(*this, def.otherwise, scope,
                def.cases.empty() ? "the definition" : "the default value");
  }
  // Store first so that the cycle search sees this stage's reads.
  definition_ = std::move(def);
  defined_ = true;
  defined_at_ = where;
  const std::vector<Function*> reads = stages_read(definition_);
  if (const std::vector<const Function*> cycle = cycle_through_this(reads); !cycle.empty()) {
    const bool was_reduction = definition_.is_reduction();
    defined_ = false;
    definition_ = Definition{};
    throw Error("cycle: stage " + describe() + w + " reads itself through " + cycle_text(cycle) +
                "; a pipeline is a DAG of stages" +
                (was_reduction ? "" : " (use a reduction to accumulate)"));
  }
  reads_only_defined_ = true;
  for (Function* read : reads) {
    if (!read->has_definition()) ++read->reads_before_definition_;
    reads_only_defined_ = reads_only_defined_ && read->reads_only_defined_;
  }
}

InputImage::InputImage(std::string name, ScalarType type, std::vector<Expr> extents,
                       SourceLocation declared_at)
    : name_(std::move(name)), type_(type), extents_(std::move(extents)), declared_at_(declared_at) {
  check_name("input", name_, declared_at_);
  if (extents_.empty()) throw Error("input " + describe() + " has no dimensions");
  for (std::size_t d = 0; d < extents_.size(); ++d)
    check_param_expression(extents_[d], "extent " + std::to_string(d) + " of input " + describe());
}

std::vector<Interval> InputImage::domain() const {
  std::vector<Interval> box;
  for (const Expr& e : extents_)
    box.emplace_back(Expr(0), Binary::make(BinaryOp::Sub, e, Expr(1)));
  return box;
}

std::string InputImage::describe() const {
  return "'" + name_ + "' (declared at " + declared_at_.str() + ")";
}

} // namespace trapeze::ir
