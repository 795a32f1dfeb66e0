// What every autoscheduler knows of a pipeline before it groups anything:
// the stage graph by index (topological order), each stage's size at the
// parameter estimates, its class, and the pipeline's dependences, computed
// once so that thousands of candidate groups can be weighed cheaply.
#pragma once

#include "analysis/bounds_prover.h"
#include "analysis/dependence.h"
#include "trapeze/autoschedule.h"
#include "trapeze/pipeline.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace trapeze::autoschedule {

/// One stage at the estimates.
struct StageFacts {
  ir::FunctionPtr function;
  /// What every schedule computes of it, at the estimates: its demanded box
  /// (plan/demand.h), which may be less than the domain it defines (a
  /// multigrid restriction, defined over the fine grid, is read on the
  /// coarse interior only).
  Box demanded;
  /// Demanded points, and the points computed (those, plus a reduction's
  /// domain of updates); doubles, so that no size overflows.
  double points = 0, work = 0;
  int bytes = 0; ///< bytes per element
  /// Operations per point: the nodes of the definition's expressions (>= 1),
  /// for Halide's arithmetic cost.
  double ops = 1;
  /// Operations a point of the generated code computes: its reads and its
  /// arithmetic, equal values once (the code generators share them), index
  /// arithmetic not counted (affine indices are strength-reduced out of the
  /// loop), and of a stage defined by cases the costliest case (case
  /// partitioning gives each its own box). 0 for a reduction.
  double arithmetic = 0;
  /// The floating-point divisions among `arithmetic` that vary from point to
  /// point (one of constants and parameters alone is computed once, outside
  /// the loops): what recomputing the stage costs more than its count says.
  double divisions = 0;
  bool output = false;
  bool reduction = false;
  /// Reads every producer at its own point (constant indices allowed):
  /// analysis::StageClass::PointWise and no other class.
  bool pointwise = false;
  /// Reads some producer at an index computed from data (a look-up).
  bool data_dependent = false;
  /// Defined by cases and computes nothing: each of its values (cases and
  /// default) is one read of a producer or input at indices computed from the
  /// point alone, or a constant. A boundary condition (trapeze/boundary.h) is
  /// one.
  bool relabels = false;
  /// A reduction's variables, outermost first: the extent of each one's
  /// range at the estimates, and the stage dimension whose points each one's
  /// updates hit alone (analysis::TargetDim::Follows; -1 where none), where a
  /// tile of the stage limits the variable to the tile.
  std::vector<std::string> rvars;
  std::vector<double> rvar_extents;
  std::vector<int> rvar_follows;
  std::vector<int> producers, consumers; ///< stage indices, ascending, each once
  /// The edges into this stage (indices into PipelineModel::edges).
  std::vector<std::size_t> in_edges;
};

/// The pipeline as the schedulers see it.
class PipelineModel {
public:
  /// `estimates` complete the pipeline's defaults (AutoScheduleOptions::estimates);
  /// a parameter with neither is assumed, and notes() says so.
  PipelineModel(const Pipeline& p, const ParamValues& estimates);
  /// It keeps a reference to the pipeline, which must outlive it.
  PipelineModel(Pipeline&& p, const ParamValues& estimates) = delete;
  // Not copied: it points into its own stages and inputs (edge_producer_box_).
  PipelineModel(const PipelineModel&) = delete;
  PipelineModel& operator=(const PipelineModel&) = delete;

  const Pipeline& pipeline() const { return p_; }
  const ParamValues& estimates() const { return estimates_; }
  const std::vector<StageFacts>& stages() const { return stages_; }
  const StageFacts& stage(int i) const { return stages_[static_cast<std::size_t>(i)]; }
  int size() const { return static_cast<int>(stages_.size()); }
  int index_of(const std::string& name) const;
  /// The index of a stage of this pipeline (a hash look-up, no names compared).
  int index_of(const ir::Function& f) const;
  const std::vector<analysis::EdgeDependence>& edges() const { return edges_; }
  const analysis::BoundsProver& prover() const { return prover_; }
  /// Every stage's demanded box as the plan computes it (plan/demand.h), in
  /// the parameters: a candidate group's geometry computes within them.
  const std::map<std::string, std::vector<Interval>>& demanded() const { return demanded_; }
  /// An input image's box at the estimates.
  const Box& input_domain(const std::string& name) const { return inputs_.at(name); }
  /// The box of an edge's producer that holds values, at the estimates: a
  /// stage's demanded box, an input's domain;
  /// `edge` is one of edges().
  const Box& producer_box(const analysis::EdgeDependence& edge) const;
  /// The stage index of an edge's producer, or -1 for an input; `edge` is one
  /// of edges().
  int producer_of(const analysis::EdgeDependence& edge) const;
  /// The distinct reads of an edge's producer a point of its consumer makes
  /// (a 3-tap stencil: 3); `edge` is one of edges().
  int taps(const analysis::EdgeDependence& edge) const;
  /// Bytes per element of an edge's producer, a stage or an input.
  int producer_bytes(const analysis::EdgeDependence& edge) const;
  /// The bytes of an edge's producer_box: what a buffer of all its values holds.
  double producer_box_bytes(const analysis::EdgeDependence& edge) const;
  /// Sum of every stage's work: the denominator of a group's work share.
  double total_work() const { return total_work_; }
  /// The estimates assumed for parameters that had none.
  const std::vector<std::string>& notes() const { return notes_; }

  /// True if there is a path from a to b (a != b) through the stage graph.
  bool reaches(int a, int b) const;

private:
  const Pipeline& p_;
  ParamValues estimates_;
  std::vector<StageFacts> stages_;
  std::vector<analysis::EdgeDependence> edges_;
  analysis::BoundsProver prover_;
  std::map<std::string, std::vector<Interval>> demanded_;
  double total_work_ = 0;
  std::vector<std::string> notes_;
  std::map<std::string, int> index_;
  std::map<std::string, Box> inputs_;
  /// Per edge, producer_box(): the cost
  /// models ask for it per candidate tile, so it is found once here.
  std::vector<const Box*> edge_producer_box_;
  std::vector<int> edge_producer_; ///< per edge, its producer's stage index or -1
  std::vector<int> edge_taps_;     ///< per edge, taps()
  std::vector<int> edge_bytes_;    ///< per edge, producer_bytes()
  /// Transitive closure, one bit row per stage (for pipelines of up to
  /// closure_limit stages; larger ones search the graph per query).
  std::vector<std::vector<std::uint64_t>> closure_;
};

/// An edge's producer, its Function or its InputImage, as one key for both.
inline const void* producer_identity(const analysis::EdgeDependence& edge) {
  return edge.producer_stage ? static_cast<const void*>(edge.producer_stage)
                             : static_cast<const void*>(edge.producer_input);
}

} // namespace trapeze::autoschedule
