// PipelineModel: the stage graph and sizes every scheduler starts from.
#include "autoschedule/pipeline_model.h"

#include "analysis/classify.h"
#include "analysis/reduction_targets.h"
#include "ir/value_numbers.h"
#include "plan/demand.h"
#include "trapeze/error.h"
#include "trapeze/ir_visitor.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <unordered_set>

namespace trapeze::autoschedule {

namespace {

// A read at indices computed from the point alone, or a constant.
bool is_load_or_constant(const Expr& e) {
  if (e.as<ir::IntConst>() || e.as<ir::FloatConst>()) return true;
  if (const auto* c = e.as<ir::Cast>())
    return c->value.as<ir::IntConst>() || c->value.as<ir::FloatConst>();
  const auto* a = e.as<ir::Access>();
  if (!a) return false;
  return std::none_of(a->args.begin(), a->args.end(),
                      [](const Expr& index) { return ir::reads_memory(index); });
}

// PipelineModel's StageFacts::relabels: cases (a boundary's interior and
// border), each value one read or a constant. A copy without cases (a
// deinterleaving, an up-sampling by repetition) is left to the other rules.
bool relabels(const ir::Definition& d) {
  if (d.is_reduction() || d.cases.empty()) return false;
  return is_load_or_constant(d.otherwise) &&
         std::all_of(d.cases.begin(), d.cases.end(),
                     [](const ir::Case& c) { return is_load_or_constant(c.value); });
}

// The value assumed for an int64 parameter without an estimate or default:
// a typical image side, moved into the parameter's range.
constexpr std::int64_t assumed_size = 1000;

// Above this many stages the closure (n^2 bits) is not kept.
constexpr int closure_limit = 8192;

// The nodes of an expression: Halide's model counts arithmetic per point.
double count_nodes(const Expr& e) {
  double nodes = 0;
  ir::for_each_node(e, [&](const Expr&) { ++nodes; });
  return nodes;
}

double box_points(const Box& b) {
  double points = 1;
  for (int d = 0; d < b.dimensions(); ++d)
    points *= static_cast<double>(std::max<std::int64_t>(0, b.extent(d)));
  return points;
}

// A value's operations as the generated code computes them (StageFacts::
// arithmetic): every node but constants, variables and parameters, each
// distinct value once; of an index only its reads (a look-up), its affine
// arithmetic being strength-reduced.
class ArithmeticCount {
public:
  double operator()(const Expr& e) {
    seen_.clear();
    divisions_ = 0;
    return count(e, false);
  }
  /// The varying floating-point divisions the last count met (StageFacts::divisions).
  double divisions() const { return divisions_; }

private:
  double count(const Expr& e, bool in_index) {
    if (!seen_.insert(numbers_.number(e)).second) return 0;
    double n = 0;
    switch (e->kind) {
    case ir::ExprKind::IntConst:
    case ir::ExprKind::FloatConst:
    case ir::ExprKind::VarRef:
    case ir::ExprKind::ParamRef: return 0;
    case ir::ExprKind::Access:
      n = 1;
      for (const Expr& index : e.as<ir::Access>()->args)
        n += count(index, true);
      return n;
    default:
      n = in_index ? 0 : 1;
      if (!in_index && varying_float_division(e)) ++divisions_;
      for (const Expr& operand : ir::operands(e))
        n += count(operand, in_index);
      return n;
    }
  }

  bool varying_float_division(const Expr& e) {
    const auto* b = e.as<ir::Binary>();
    return b && b->op == ir::BinaryOp::Div && is_float(b->type) && varies(e);
  }

  // Whether `e` reads a variable or memory.
  static bool varies(const Expr& e) {
    bool found = false;
    ir::for_each_node(e, [&](const Expr& node) {
      found = found || node->kind == ir::ExprKind::VarRef || node->kind == ir::ExprKind::Access;
    });
    return found;
  }

  ir::ValueNumbers numbers_;
  std::unordered_set<int> seen_;
  double divisions_ = 0;
};

// The position of `edge` in edges_: the cost models pass references into it.
std::size_t edge_position(const std::vector<analysis::EdgeDependence>& edges,
                          const analysis::EdgeDependence& edge) {
  const std::less<const analysis::EdgeDependence*> before;
  TRAPEZE_ASSERT(!before(&edge, edges.data()) && before(&edge, edges.data() + edges.size()),
                 "an edge that is not one of the pipeline model's");
  return static_cast<std::size_t>(&edge - edges.data());
}

} // namespace

PipelineModel::PipelineModel(const Pipeline& p, const ParamValues& estimates)
    : p_(p), edges_(analysis::dependences(p)), prover_(analysis::BoundsProver::for_pipeline(p)),
      demanded_(plan::demanded_boxes(p, prover_)) {
  for (const ParamInfo& param : p.params()) {
    if (auto it = estimates.find(param.name); it != estimates.end()) {
      estimates_[param.name] = it->second;
    } else if (param.has_default) {
      estimates_[param.name] = param.default_value;
    } else if (param.type == ScalarType::Int64) {
      std::int64_t v = assumed_size;
      if (param.min) v = std::max(v, *param.min);
      if (param.max) v = std::min(v, *param.max);
      estimates_[param.name] = v;
      notes_.push_back("no estimate or default for parameter " + param.name + ": assumed " +
                       std::to_string(v));
    }
  }
  std::map<std::string, int>& index = index_;
  for (const ir::FunctionPtr& f : p.stages())
    index.emplace(f->name(), static_cast<int>(index.size()));
  for (const ir::InputImagePtr& image : p.inputs())
    inputs_.emplace(image->name(), concrete_domain(*image, estimates_));
  stages_.resize(p.stages().size());
  for (std::size_t e = 0; e < edges_.size(); ++e) {
    const analysis::EdgeDependence& edge = edges_[e];
    const int consumer = index.at(edge.consumer->name());
    stages_[static_cast<std::size_t>(consumer)].in_edges.push_back(e);
    if (!edge.producer_stage) continue;
    const int producer = index.at(edge.producer_stage->name());
    stages_[static_cast<std::size_t>(consumer)].producers.push_back(producer);
    stages_[static_cast<std::size_t>(producer)].consumers.push_back(consumer);
  }
  for (std::size_t i = 0; i < stages_.size(); ++i) {
    StageFacts& s = stages_[i];
    s.function = p.stages()[i];
    const ir::Function& f = *s.function;
    for (std::vector<int>* list : {&s.producers, &s.consumers}) {
      std::sort(list->begin(), list->end());
      list->erase(std::unique(list->begin(), list->end()), list->end());
    }
    s.demanded =
        concrete_box(demanded_.at(f.name()), estimates_, "the demanded box of " + f.describe());
    s.points = box_points(s.demanded);
    s.work = s.points;
    if (const auto& reduction = f.definition().reduction) {
      s.reduction = true;
      const Box rdom =
          concrete_box(reduction->rdom, estimates_, "the reduction domain of " + f.describe());
      s.work += box_points(rdom) *
                static_cast<double>(std::max<std::size_t>(1, reduction->updates.size()));
      s.rvars = reduction->rvars;
      s.rvar_follows.assign(s.rvars.size(), -1);
      for (std::size_t r = 0; r < s.rvars.size(); ++r)
        s.rvar_extents.push_back(
            static_cast<double>(std::max<std::int64_t>(0, rdom.extent(static_cast<int>(r)))));
      const std::vector<analysis::TargetDim> targets =
          analysis::reduction_targets(f, *reduction, prover_);
      for (std::size_t j = 0; j < targets.size(); ++j)
        if (targets[j].kind == analysis::TargetDim::Kind::Follows)
          s.rvar_follows[targets[j].rvar] = static_cast<int>(j);
    }
    s.bytes = byte_size(f.type());
    s.ops = 0;
    ir::for_each_expr(f.definition(), [&](const Expr& e) { s.ops += count_nodes(e); });
    s.ops = std::max(1.0, s.ops);
    if (!s.reduction) {
      ArithmeticCount arithmetic;
      s.arithmetic = arithmetic(f.definition().otherwise);
      s.divisions = arithmetic.divisions();
      for (const ir::Case& c : f.definition().cases) {
        const double operations = arithmetic(c.value);
        if (operations > s.arithmetic) {
          s.arithmetic = operations;
          s.divisions = arithmetic.divisions();
        }
      }
    }
    s.output = p.is_output(f);
    std::vector<analysis::EdgeDependence> in;
    for (std::size_t e : s.in_edges)
      in.push_back(edges_[e]);
    const analysis::StageClassification c = analysis::classify_stage(f, in);
    s.pointwise = c.flags == (1u << static_cast<unsigned>(analysis::StageClass::PointWise));
    s.data_dependent = c.has(analysis::StageClass::DataDependent);
    s.relabels = relabels(f.definition());
    total_work_ += s.work;
  }
  for (const analysis::EdgeDependence& edge : edges_) {
    const int producer = edge.producer_stage ? index_.at(edge.producer_stage->name()) : -1;
    edge_producer_.push_back(producer);
    edge_bytes_.push_back(producer >= 0 ? stages_[static_cast<std::size_t>(producer)].bytes
                                        : byte_size(edge.producer_input->type()));
    ir::ValueNumbers numbers;
    std::unordered_set<int> distinct;
    for (const analysis::AccessInfo& a : edge.accesses)
      distinct.insert(numbers.number(a.access));
    edge_taps_.push_back(static_cast<int>(distinct.size()));
    edge_producer_box_.push_back(producer >= 0
                                     ? &stages_[static_cast<std::size_t>(producer)].demanded
                                     : &inputs_.at(edge.producer_input->name()));
  }
  if (size() <= closure_limit) {
    const std::size_t words = (stages_.size() + 63) / 64;
    closure_.assign(stages_.size(), std::vector<std::uint64_t>(words, 0));
    for (std::size_t i = stages_.size(); i-- > 0;)
      for (int c : stages_[i].consumers) {
        closure_[i][static_cast<std::size_t>(c) / 64] |= std::uint64_t{1} << (c % 64);
        for (std::size_t w = 0; w < words; ++w)
          closure_[i][w] |= closure_[static_cast<std::size_t>(c)][w];
      }
  }
}

const Box& PipelineModel::producer_box(const analysis::EdgeDependence& edge) const {
  return *edge_producer_box_[edge_position(edges_, edge)];
}

int PipelineModel::producer_of(const analysis::EdgeDependence& edge) const {
  return edge_producer_[edge_position(edges_, edge)];
}

int PipelineModel::taps(const analysis::EdgeDependence& edge) const {
  return edge_taps_[edge_position(edges_, edge)];
}

int PipelineModel::producer_bytes(const analysis::EdgeDependence& edge) const {
  return edge_bytes_[edge_position(edges_, edge)];
}

double PipelineModel::producer_box_bytes(const analysis::EdgeDependence& edge) const {
  return box_points(producer_box(edge)) * producer_bytes(edge);
}

int PipelineModel::index_of(const ir::Function& f) const {
  const std::optional<std::size_t> i = p_.stage_index(f);
  TRAPEZE_ASSERT(i.has_value(), "no stage " + f.name() + " in the pipeline model");
  return static_cast<int>(*i);
}

int PipelineModel::index_of(const std::string& name) const {
  const auto it = index_.find(name);
  TRAPEZE_ASSERT(it != index_.end(), "no stage named " + name);
  return it->second;
}

bool PipelineModel::reaches(int a, int b) const {
  if (a == b || b < a) return false; // topological order: paths only go forward
  if (!closure_.empty())
    return (closure_[static_cast<std::size_t>(a)][static_cast<std::size_t>(b) / 64] >> (b % 64)) &
           1u;
  // Depth-first search, pruned to stages before b in topological order.
  std::vector<bool> seen(stages_.size(), false);
  std::vector<int> stack = {a};
  while (!stack.empty()) {
    const int v = stack.back();
    stack.pop_back();
    for (int c : stage(v).consumers) {
      if (c == b) return true;
      if (c < b && !seen[static_cast<std::size_t>(c)]) {
        seen[static_cast<std::size_t>(c)] = true;
        stack.push_back(c);
      }
    }
  }
  return false;
}

} // namespace trapeze::autoschedule
