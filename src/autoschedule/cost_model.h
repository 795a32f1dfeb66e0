// The interface between grouping algorithms and cost models. A grouping
// algorithm asks for the cost of candidate groups (sets of stages) and gets a
// decision: valid or not, its cost, and how the group would run (tiles,
// inlining, reasons). The CPU model of paper 001 (cpu_cost_model.h) and
// Halide's (halide_cost_model.h) implement it; a GPU model (paper 003 §6)
// will too.
#pragma once

#include "trapeze/autoschedule.h"
#include "trapeze/schedule.h"

#include <cstdint>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

namespace trapeze::autoschedule {

constexpr double infinite_cost = std::numeric_limits<double>::infinity();

/// How a candidate group would run, and what it costs.
struct GroupDecision {
  bool valid = false;
  std::string why_invalid; ///< when !valid
  double cost = infinite_cost;
  std::vector<int> members; ///< stage indices, topological order
  /// What the schedule's GroupSchedule and storage get.
  GroupSchedule group;
  std::vector<std::string> inlined;
  GroupCostReport report; ///< for `trapeze explain`
};

class CostModel {
public:
  virtual ~CostModel() = default;
  /// "paper 001 CPU model", "Halide (Mullapudi 2016) model".
  virtual std::string name() const = 0;
  /// The decision for the group of `members` (sorted stage indices).
  virtual GroupDecision evaluate(const std::vector<int>& members) const = 0;
  /// Its cost alone (infinite if invalid): what a search asks thousands of
  /// times, without the decision's reasons and report.
  virtual double cost(const std::vector<int>& members) const { return evaluate(members).cost; }
};

/// Memoizes a model's costs and decisions (grouping algorithms ask for the
/// same group many times) and counts the distinct groups costed.
class DecisionCache {
public:
  explicit DecisionCache(const CostModel& model) : model_(model) {}
  const GroupDecision& get(const std::vector<int>& members);
  double cost(const std::vector<int>& members);
  std::int64_t evaluated() const { return static_cast<std::int64_t>(costs_.size()); }

private:
  struct Hash {
    std::size_t operator()(const std::vector<int>& v) const;
  };
  const CostModel& model_;
  std::unordered_map<std::vector<int>, double, Hash> costs_;
  std::unordered_map<std::vector<int>, GroupDecision, Hash> decisions_;
};

} // namespace trapeze::autoschedule
