// Pipeline construction: the DAG reachable from the outputs, in a
// deterministic topological order, with its inputs and parameters.
#include "trapeze/pipeline.h"

#include "ir/boundary_margins.h"
#include "trapeze/ir_visitor.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <set>
#include <sstream>
#include <unordered_set>

namespace trapeze {

using namespace ir;

namespace {

// Every expression of a stage's definition and domain, in a fixed order.
void for_each_stage_expr(const Function& f, const std::function<void(const Expr&)>& fn) {
  for (const Interval& i : f.domain())
    fn(i.lo), fn(i.hi);
  ir::for_each_expr(f.definition(), fn);
}

// The accesses of a stage's definition, in order of appearance.
std::vector<const Access*> accesses_of(const Function& f) {
  std::vector<const Access*> out;
  for_each_stage_expr(f, [&](const Expr& e) {
    for_each_node(e, [&](const Expr& n) {
      if (const auto* a = n.as<Access>()) out.push_back(a);
    });
  });
  return out;
}

} // namespace

Pipeline::Pipeline(const std::vector<FunctionPtr>& outputs, std::string name)
    : name_(std::move(name)), outputs_(outputs) {
  if (outputs_.empty()) throw Error("pipeline '" + name_ + "' has no outputs");
  std::set<const Function*> done, on_stack;
  std::map<std::string, const void*> owners; // name -> Function or InputImage
  std::map<std::string, ScalarType> param_types;

  const auto claim_name = [&](const std::string& n, const void* owner, const std::string& what) {
    auto [it, fresh] = owners.emplace(n, owner);
    if (!fresh && it->second != owner)
      throw Error("pipeline '" + name_ + "' has two different stages or inputs named '" + n +
                  "' (one is " + what + "); names must be unique");
  };
  const auto note_params = [&](const Expr& e) {
    for_each_node(e, [&](const Expr& n) {
      const auto* p = n.as<ParamRef>();
      if (!p) return;
      auto [it, fresh] = param_types.emplace(p->name, p->type);
      if (!fresh && it->second != p->type)
        throw Error("parameter '" + p->name + "' is used both as " +
                    std::string(type_name(it->second)) + " and as " +
                    std::string(type_name(p->type)));
    });
  };

  // Depth-first from the outputs; a stage is appended after all its producers.
  // Iterative, with the path on the heap: a chain of stages can be 100,000 deep.
  struct Frame {
    const FunctionPtr* stage;
    std::vector<const Access*> accesses;
    std::size_t next = 0;
  };
  std::vector<Frame> path;
  std::set<const InputImage*> seen_inputs;
  const auto enter = [&](const FunctionPtr& f, const Function* consumer) {
    if (!f->has_definition())
      throw Error("stage " + f->describe() + " is used but never defined" +
                  (consumer ? " (it is read by stage " + consumer->describe() + ")" : "") +
                  ": give it a definition with define()");
    if (!on_stack.insert(f.get()).second)
      throw Error("cycle through stage " + f->describe()); // define() prevents this
    claim_name(f->name(), f.get(), "stage " + f->describe());
    for_each_stage_expr(*f, note_params);
    path.push_back(Frame{&f, accesses_of(*f)});
  };
  for (const FunctionPtr& out : outputs_) {
    TRAPEZE_ASSERT(out != nullptr, "null output");
    if (!done.count(out.get())) enter(out, nullptr);
    while (!path.empty()) {
      Frame& top = path.back();
      if (top.next < top.accesses.size()) {
        const Access* a = top.accesses[top.next++];
        if (a->func) {
          if (!done.count(a->func.get())) enter(a->func, top.stage->get());
          continue;
        }
        claim_name(a->image->name(), a->image.get(), "input " + a->image->describe());
        if (seen_inputs.insert(a->image.get()).second) {
          for (const Expr& e : a->image->extents())
            note_params(e);
          inputs_.push_back(a->image);
        }
        continue;
      }
      const FunctionPtr& f = *top.stage;
      path.pop_back();
      on_stack.erase(f.get());
      done.insert(f.get());
      stages_.push_back(f);
    }
  }
  for (const auto& [n, t] : param_types)
    params_.push_back(ParamInfo{n, t, false, {}, std::nullopt, std::nullopt});
  index_stages();
  infer_boundary_margins(*this);
}

void Pipeline::index_stages() {
  for (std::size_t i = 0; i < stages_.size(); ++i) {
    stage_index_.emplace(stages_[i].get(), i);
    stage_by_name_.emplace(stages_[i]->name(), i);
  }
  for (std::size_t i = 0; i < inputs_.size(); ++i)
    input_by_name_.emplace(inputs_[i]->name(), i);
  for (const FunctionPtr& o : outputs_)
    output_set_.insert(o.get());
  consumers_.resize(stages_.size());
  for (std::size_t i = 0; i < stages_.size(); ++i)
    for (const FunctionPtr& producer : producer_stages(*stages_[i]))
      consumers_[stage_index_.at(producer.get())].push_back(i);
}

bool Pipeline::is_output(const Function& f) const { return output_set_.count(&f) > 0; }

std::optional<std::size_t> Pipeline::stage_index(const Function& f) const {
  const auto it = stage_index_.find(&f);
  if (it == stage_index_.end()) return std::nullopt;
  return it->second;
}

bool Pipeline::has_stage(std::string_view n) const {
  return stage_by_name_.count(std::string(n)) > 0;
}

const FunctionPtr& Pipeline::stage(std::string_view n) const {
  if (const auto it = stage_by_name_.find(std::string(n)); it != stage_by_name_.end())
    return stages_[it->second];
  throw Error("pipeline '" + name_ + "' has no stage named '" + std::string(n) + "'");
}

const InputImagePtr& Pipeline::input(std::string_view n) const {
  if (const auto it = input_by_name_.find(std::string(n)); it != input_by_name_.end())
    return inputs_[it->second];
  throw Error("pipeline '" + name_ + "' has no input named '" + std::string(n) + "'");
}

std::vector<FunctionPtr> Pipeline::consumers(const Function& f) const {
  std::vector<FunctionPtr> out;
  if (const auto it = stage_index_.find(&f); it != stage_index_.end())
    for (std::size_t c : consumers_[it->second])
      out.push_back(stages_[c]);
  return out;
}

std::vector<FunctionPtr> Pipeline::producer_stages(const Function& f) const {
  std::vector<FunctionPtr> out;
  std::unordered_set<const Function*> seen;
  for (const Access* a : accesses_of(f))
    if (a->func && seen.insert(a->func.get()).second) out.push_back(a->func);
  return out;
}

std::vector<InputImagePtr> Pipeline::producer_inputs(const Function& f) const {
  std::vector<InputImagePtr> out;
  std::unordered_set<const InputImage*> seen;
  for (const Access* a : accesses_of(f))
    if (a->image && seen.insert(a->image.get()).second) out.push_back(a->image);
  return out;
}

namespace {

// "n in [1, 4096]", "n >= 1", "n <= 64".
std::string range_text(const ParamInfo& p) {
  if (p.min && p.max)
    return p.name + " in [" + std::to_string(*p.min) + ", " + std::to_string(*p.max) + "]";
  if (p.min) return p.name + " >= " + std::to_string(*p.min);
  return p.name + " <= " + std::to_string(*p.max);
}

void check_in_range(const ParamInfo& p, std::int64_t v, const std::string& pipeline,
                    const char* what) {
  if ((p.min && v < *p.min) || (p.max && v > *p.max))
    throw Error("parameter '" + p.name + "' of pipeline '" + pipeline + "' " + what + " " +
                std::to_string(v) + ", outside its range " + range_text(p) +
                " (declared with set_range, or 'param " + range_text(p) + "' in the text form)");
}

} // namespace

void Pipeline::set_default(const std::string& param, ParamValue value) {
  for (ParamInfo& p : params_) {
    if (p.name != param) continue;
    if (value.is_float && p.type == ScalarType::Int64)
      throw Error("parameter '" + param + "' is int64 but its default is a float");
    if (!value.is_float && is_float(p.type)) value = ParamValue(static_cast<double>(value.i));
    if (p.type == ScalarType::Int64) check_in_range(p, value.i, name_, "has the default");
    p.has_default = true;
    p.default_value = value;
    return;
  }
  throw Error("pipeline '" + name_ + "' has no parameter named '" + param + "'");
}

void Pipeline::set_range(const std::string& param, std::optional<std::int64_t> min,
                         std::optional<std::int64_t> max) {
  for (ParamInfo& p : params_) {
    if (p.name != param) continue;
    if (p.type != ScalarType::Int64)
      throw Error("parameter '" + param + "' is " + std::string(type_name(p.type)) +
                  "; only int64 parameters have a range");
    if (min && max && *min > *max)
      throw Error("parameter '" + param + "': the range [" + std::to_string(*min) + ", " +
                  std::to_string(*max) + "] is empty");
    p.min = min;
    p.max = max;
    if (p.has_default) check_in_range(p, p.default_value.i, name_, "has the default");
    return;
  }
  throw Error("pipeline '" + name_ + "' has no parameter named '" + param + "'");
}

ParamValues Pipeline::bind(const ParamValues& given) const {
  ParamValues bound;
  for (const ParamInfo& p : params_) {
    auto it = given.find(p.name);
    if (it == given.end()) {
      if (!p.has_default)
        throw Error("parameter '" + p.name + "' (" + std::string(type_name(p.type)) +
                    ") of pipeline '" + name_ + "' has no value: bind it (--param " + p.name +
                    "=VALUE on the command line)");
      bound[p.name] = p.default_value;
      continue;
    }
    ParamValue v = it->second;
    if (p.type == ScalarType::Int64 && v.is_float)
      throw Error("parameter '" + p.name + "' is int64 but was given the float value " +
                  std::to_string(v.f));
    if (is_float(p.type) && !v.is_float) v = ParamValue(static_cast<double>(v.i));
    if (p.type == ScalarType::Int64) check_in_range(p, v.i, name_, "is given the value");
    bound[p.name] = v;
  }
  for (const auto& [n, v] : given) {
    if (!bound.count(n)) throw Error("pipeline '" + name_ + "' has no parameter named '" + n + "'");
  }
  return bound;
}

bool Pipeline::gives_every_param(const ParamValues& given) const {
  return std::all_of(params_.begin(), params_.end(),
                     [&](const ParamInfo& p) { return p.has_default || given.count(p.name); });
}

namespace {

// Thrown by the checked arithmetic below; evaluate_int turns it into an
// Error naming the whole expression and its parameters.
struct Int64Overflow {};

std::int64_t add(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_add_overflow(a, b, &r)) throw Int64Overflow{};
  return r;
}
std::int64_t sub(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) throw Int64Overflow{};
  return r;
}
std::int64_t mul(std::int64_t a, std::int64_t b) {
  std::int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw Int64Overflow{};
  return r;
}

// Division and modulo as the DSL defines them (docs/dsl.md): by zero gives
// 0; INT64_MIN / -1 does not fit, so it is an overflow here.
std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return sub(0, a);
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
std::int64_t floor_mod(std::int64_t a, std::int64_t b) {
  if (b == 0 || b == -1) return 0;
  return a - floor_div(a, b) * b;
}
std::int64_t trunc_div(std::int64_t a, std::int64_t b) {
  if (b == 0) return 0;
  return b == -1 ? sub(0, a) : a / b;
}
std::int64_t trunc_mod(std::int64_t a, std::int64_t b) { return b == 0 || b == -1 ? 0 : a % b; }

std::int64_t eval_int(const Expr& e, const ParamValues& params, std::string_view what) {
  const auto context = [&] { return what.empty() ? std::string() : " in " + std::string(what); };
  if (const auto* c = e.as<IntConst>()) return c->value;
  if (const auto* p = e.as<ParamRef>()) {
    auto it = params.find(p->name);
    if (it == params.end())
      throw Error("parameter '" + p->name + "' has no value" + context() + ": bind it");
    return it->second.i;
  }
  if (const auto* c = e.as<Cast>()) {
    return wrap_integer(c->type, eval_int(c->value, params, what));
  }
  if (const auto* u = e.as<Unary>()) {
    const std::int64_t v = eval_int(u->value, params, what);
    if (u->op == UnaryOp::Neg) return sub(0, v);
    if (u->op == UnaryOp::Abs) return v < 0 ? sub(0, v) : v;
    if (u->op == UnaryOp::Not) return !v;
  }
  if (const auto* s = e.as<Select>()) {
    return eval_int(s->cond, params, what) ? eval_int(s->if_true, params, what)
                                           : eval_int(s->if_false, params, what);
  }
  if (const auto* b = e.as<Binary>(); b && is_integer(b->a.type())) {
    const std::int64_t x = eval_int(b->a, params, what), y = eval_int(b->b, params, what);
    switch (b->op) {
    case BinaryOp::Add: return add(x, y);
    case BinaryOp::Sub: return sub(x, y);
    case BinaryOp::Mul: return mul(x, y);
    case BinaryOp::Div: return floor_div(x, y);
    case BinaryOp::Mod: return floor_mod(x, y);
    case BinaryOp::TruncDiv: return trunc_div(x, y);
    case BinaryOp::TruncMod: return trunc_mod(x, y);
    case BinaryOp::Min: return std::min(x, y);
    case BinaryOp::Max: return std::max(x, y);
    case BinaryOp::EQ: return x == y;
    case BinaryOp::NE: return x != y;
    case BinaryOp::LT: return x < y;
    case BinaryOp::LE: return x <= y;
    case BinaryOp::GT: return x > y;
    case BinaryOp::GE: return x >= y;
    case BinaryOp::And: return x && y;
    case BinaryOp::Or: return x || y;
    case BinaryOp::Pow: break;
    }
  }
  throw Error("cannot evaluate " + to_string(e) + context() +
              ": expected an integer expression of parameters and constants");
}

} // namespace

std::int64_t evaluate_int(const Expr& e, const ParamValues& params, std::string_view what) {
  try {
    return eval_int(e, params, what);
  } catch (const Int64Overflow&) {
    const std::string bindings = param_bindings_text({e}, params);
    throw Error("integer overflow: " + to_string(e) +
                (what.empty() ? std::string() : " (" + std::string(what) + ")") +
                " does not fit in int64" + (bindings.empty() ? "" : " for " + bindings) +
                ". Check the parameter values.");
  }
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
    const auto it = bound.find(n);
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

std::optional<std::int64_t> buffer_bytes(ScalarType type, std::span<const std::int64_t> extents) {
  std::int64_t bytes = byte_size(type);
  for (const std::int64_t e : extents) {
    TRAPEZE_ASSERT(e >= 0, "buffer_bytes: a negative extent");
    if (__builtin_mul_overflow(bytes, e, &bytes) || bytes > max_buffer_bytes) return std::nullopt;
  }
  return bytes;
}

bool Box::empty() const {
  for (std::size_t d = 0; d < lo.size(); ++d)
    if (hi[d] < lo[d]) return true;
  return false;
}

std::string Box::str() const {
  std::string s;
  for (std::size_t d = 0; d < lo.size(); ++d)
    s += (d ? " x [" : "[") + std::to_string(lo[d]) + ", " + std::to_string(hi[d]) + "]";
  return s;
}

Box concrete_domain(const Function& f, const ParamValues& params) {
  Box b;
  for (int d = 0; d < f.dimensions(); ++d) {
    const Interval& i = f.domain()[static_cast<std::size_t>(d)];
    const std::string what = "dimension " + f.vars()[static_cast<std::size_t>(d)] +
                             " of the domain of stage " + f.describe();
    b.lo.push_back(evaluate_int(i.lo, params, what));
    b.hi.push_back(evaluate_int(i.hi, params, what));
  }
  return b;
}

Box concrete_box(const std::vector<Interval>& box, const ParamValues& params,
                 std::string_view what) {
  Box b;
  for (const Interval& range : box) {
    b.lo.push_back(evaluate_int(range.lo, params, what));
    b.hi.push_back(evaluate_int(range.hi, params, what));
  }
  return b;
}

Box concrete_domain(const InputImage& image, const ParamValues& params) {
  Box b;
  for (std::size_t d = 0; d < image.extents().size(); ++d) {
    const std::int64_t extent =
        evaluate_int(image.extents()[d], params,
                     "extent " + std::to_string(d) + " of input " + image.describe());
    b.lo.push_back(0);
    b.hi.push_back(extent == INT64_MIN ? INT64_MIN : extent - 1); // negative: reported as empty
  }
  return b;
}

} // namespace trapeze
