// Dynamic-programming grouping: paper 001 §3 (Alg. 1) and its bounded,
// incremental form (§6, Alg. 5).
//
// Alg. 1 as printed memoizes on the pre-fused groups G alone and recurses
// over the partitions of G's successors once G is finalized. Two things go
// wrong with that on a general DAG: a stage that is a successor of G and also
// reachable from G by a longer path is costed twice (once in the partition,
// once again from the path), and a group joined through a predecessor that
// becomes ready only later (A and B both feed C, B after some other stage)
// is never formed. trapeze keeps the recurrence and makes it exact by
// memoizing on the set D of stages already finalized (always closed under
// predecessors):
//
//   F(D) = 0                                        if D holds every stage
//   F(D) = min over candidates H of COST(H) + F(D + H)
//
// where a candidate is a connected set of unfinalized stages, grown from a
// ready stage (all its predecessors in D) by adding neighbours (Case I of the
// paper: merging a successor, or a predecessor that joins through it), whose
// predecessors outside it are all in D; taking it finalizes it (Case II).
// That condition is exactly "no cycle between groups", so every valid
// grouping is reached, each once per order of its groups (memoization
// shares the rest). For a chain of n stages D is a prefix and the candidates
// from it are the n - |D| runs that start there: O(n^2) groups, every one of
// the 2^(n-1) groupings in effect, as the paper says.
//
// Alg. 5 bounds the size of a group (group_limit vertices), then coalesces
// the groups it found into single vertices and runs again with a larger
// bound, until one bound covers the whole graph. As coalescing is for good,
// refine_pairs then regroups pairs of the groups found by the exact DP.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <unordered_set>
#include <vector>

namespace trapeze::autoschedule {

/// A DAG whose vertices are sets of stages (one stage each at first; Alg. 5
/// coalesces them), vertices in topological order.
struct VertexGraph {
  std::vector<std::vector<int>> stages;       ///< per vertex, sorted stage indices
  std::vector<std::vector<int>> preds, succs; ///< per vertex, sorted vertex indices
  /// Per vertex, whether it stays a group by itself, joining no other (the
  /// groups a refinement keeps as they are); empty: none does.
  std::vector<bool> alone;
  int size() const { return static_cast<int>(stages.size()); }
  bool is_alone(int v) const { return !alone.empty() && alone[static_cast<std::size_t>(v)]; }
};

/// One vertex per stage; `consumers[i]` are the consumers of stage i
/// (indices greater than i).
VertexGraph stage_graph(const std::vector<std::vector<int>>& consumers);

/// The graph with each of `groups` (sets of vertices, a partition) made one
/// vertex, in topological order of the groups.
VertexGraph coalesce(const VertexGraph& graph, const std::vector<std::vector<int>>& groups);

/// The cost of a group given as its sorted stages; infinity if it cannot be one.
using GroupCostFn = std::function<double(const std::vector<int>& stages)>;

struct DpResult {
  bool complete = false; ///< false: it stopped at its budget
  double cost = std::numeric_limits<double>::infinity();
  std::vector<std::vector<int>> groups; ///< vertex sets, in the order finalized
  std::int64_t states = 0;              ///< memoized groupings (finalized sets D)
  std::int64_t candidates = 0;          ///< candidate groups costed
};

/// Which candidates a state offers. Exact: groups grown from every ready
/// vertex (every valid grouping). LeastFirst: only the groups of the least
/// unfinalized vertex, which finalizes groups in one fixed order and keeps
/// the states few on wide graphs; it misses groupings whose group of that
/// vertex needs another group first.
enum class DpOrder { Exact, LeastFirst };

/// When dp_grouping gives up (incomplete).
struct DpBudget {
  std::int64_t candidates = 300'000;          ///< candidate groups weighed in all
  std::size_t candidates_per_state = 100'000; ///< candidates one state may offer
  /// Distinct groups a round may meet that no earlier round of the search met.
  std::int64_t new_groups = std::numeric_limits<std::int64_t>::max();
};

/// The groups (sorted stage lists) the rounds of one search have met, priced
/// or not: a round's budget counts only the groups it adds.
class ReachedGroups {
public:
  bool add(const std::vector<int>& stages); ///< true if it is new
  std::size_t size() const { return groups_.size(); }

private:
  struct Hash {
    std::size_t operator()(const std::vector<int>& stages) const;
  };
  std::unordered_set<std::vector<int>, Hash> groups_;
};

/// Alg. 1 (exact form above) over `graph`; groups of at most `group_limit`
/// vertices (0: no limit). The states are first walked without pricing a
/// group (the walk does not depend on the costs), so that a round over its
/// budget gives up without calling `cost`; `reached` (if given) is the
/// search's record of the groups met so far, which the walk extends.
DpResult dp_grouping(const VertexGraph& graph, const GroupCostFn& cost, int group_limit,
                     DpOrder order = DpOrder::Exact, const DpBudget& budget = {},
                     ReachedGroups* reached = nullptr);

/// What Alg. 5 did.
struct IncrementalResult {
  std::vector<std::vector<int>> groups; ///< stage sets, in topological order
  double cost = 0;
  std::vector<int> rounds; ///< the group limit of each round (0: none)
  std::int64_t states = 0, candidates = 0;
  bool least_first = false; ///< some round was too large for the exact order
  int refined_pairs = 0;    ///< pairs of groups regrouped after the rounds (refine_pairs)
};

/// Alg. 5 coalesces each round's groups for good, so a stage that a bounded
/// round grouped can never move to a group a later round forms, though the
/// cheaper grouping may need it there (pyramid_blend: the finest level's
/// up-sampling, which a round of 8 grouped with its down-sampling, belongs
/// with the blend). After the rounds, each pair of groups one of which reads
/// the other is undone into its stages and grouped again by the exact DP,
/// the other groups kept whole (they stay alone), wherever that lowers the
/// total, until no pair does. A pair's search is given up past a tenth of
/// budget.new_groups, and the refinement stops once its pairs have met
/// budget.new_groups groups in all. Never raises result.cost.
void refine_pairs(const VertexGraph& stages, const GroupCostFn& cost, const DpBudget& budget,
                  IncrementalResult& result);

/// Alg. 5: rounds of dp_grouping, the first with `initial_limit` vertices a
/// group (0: first Alg. 1 without a limit, and only if that exceeds the
/// budget the rounds from a limit of 8), each later one with `step` vertices
/// of the graph coalesced so far, until a limit spans the whole graph, then
/// one round without a limit on what is left; a round that merges nothing
/// is followed by that last round at once (the rounds of `step` after it
/// would repeat it). A round that exceeds the budget runs again least-first,
/// and if that does too, with half the limit; budget.new_groups counts, per
/// attempt, the groups no earlier attempt met. After bounded rounds, the
/// pairs are refined (refine_pairs); a first Alg. 1 that completes is exact
/// and needs none.
IncrementalResult incremental_dp(const VertexGraph& graph, const GroupCostFn& cost,
                                 int initial_limit, int step, const DpBudget& budget);

} // namespace trapeze::autoschedule
