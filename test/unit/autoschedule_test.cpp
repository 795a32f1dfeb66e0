// The automatic schedulers (paper 001): the DP finds the minimum of its cost
// function (brute force on random DAGs, every grouping of a chain), the
// tile-size model on hand-computed cases, automatic inlining, the machine
// model, the greedy baselines, and every app's schedules.
#include "app.h"
#include "autoschedule/cpu_cost_model.h"
#include "autoschedule/dp_grouping.h"
#include "autoschedule/group_decision.h"
#include "autoschedule/group_facts.h"
#include "autoschedule/inlining.h"
#include "autoschedule/pipeline_model.h"
#include "autoschedule/tile_metrics.h"
#include "autoschedule/tile_sizes.h"
#include "support/sample_pipelines.h"
#include "trapeze/autoschedule.h"
#include "trapeze/autotune.h"
#include "trapeze/boundary.h"
#include "trapeze/dsl.h"
#include "trapeze/error.h"
#include "trapeze/runtime.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <set>

namespace trapeze {
namespace {

using autoschedule::VertexGraph;
using testing::Contains;
using testing::HasSubstr;
using testing::Not;

constexpr double inf = std::numeric_limits<double>::infinity();

// The machine the cost model's tests price for: two cores with 1 MiB of L2
// each and 64-byte vectors (this project's AMD guest).
MachineModel two_cores_with_1_mib_l2() {
  MachineModel machine;
  machine.cores = 2;
  machine.l2_bytes = 1024 * 1024;
  machine.vector_bytes = 64;
  return machine;
}

// The stages named, as a sorted group of the model's indices.
std::vector<int> members_named(const autoschedule::PipelineModel& model,
                               std::initializer_list<const char*> names) {
  std::vector<int> members;
  for (const char* name : names)
    members.push_back(model.index_of(name));
  std::sort(members.begin(), members.end());
  return members;
}

// Eq. 2 at the default weights: what CpuCostModel::price makes of a tile.
double eq2_price(const autoschedule::GroupFacts& facts, const autoschedule::TileMetrics& t,
                 const MachineModel& machine) {
  return autoschedule::weighted(AutoScheduleOptions{}.weights,
                                autoschedule::cost_components(facts, t, machine));
}

// Alg. 3 on `members` (sorted), the last of them the one live-out, at 3
// operations a byte: each member's reason by stage name ("" where stored).
std::map<std::string, std::string> inline_reasons(const autoschedule::PipelineModel& model,
                                                  const std::vector<int>& members) {
  std::vector<bool> live_out(members.size(), false);
  live_out.back() = true;
  const std::vector<autoschedule::InlineDecision> decisions =
      autoschedule::choose_inlining(model, members, live_out, 3);
  std::map<std::string, std::string> reasons;
  for (std::size_t m = 0; m < members.size(); ++m)
    reasons[model.stage(members[m]).function->name()] = decisions[m].reason;
  return reasons;
}

// Unsharp's stages in one group (dp's), inlined as Alg. 3 decides.
autoschedule::GroupFacts unsharp_group(const autoschedule::PipelineModel& model) {
  return autoschedule::group_facts(
      model, members_named(model, {"img_constant_exterior", "blurx", "blury", "sharpen", "mask"}),
      true, 3);
}

// A random DAG of n vertices in topological order: each vertex after the
// first reads one to three earlier ones.
std::vector<std::vector<int>> random_dag(int n, std::mt19937& rng) {
  std::vector<std::vector<int>> consumers(static_cast<std::size_t>(n));
  for (int v = 1; v < n; ++v) {
    const int reads = 1 + static_cast<int>(rng() % 3);
    std::set<int> producers;
    for (int r = 0; r < reads; ++r)
      producers.insert(static_cast<int>(rng() % static_cast<unsigned>(v)));
    for (int p : producers)
      consumers[static_cast<std::size_t>(p)].push_back(v);
  }
  return consumers;
}

// A cost for any set of stages: deterministic pseudo-random, some groups
// invalid (infinite), singletons always valid.
autoschedule::GroupCostFn random_cost(unsigned seed) {
  return [seed](const std::vector<int>& stages) {
    std::uint64_t h = seed * 0x9e3779b97f4a7c15ull;
    for (int s : stages)
      h = (h ^ static_cast<std::uint64_t>(s + 1)) * 0x100000001b3ull;
    h ^= h >> 31;
    if (stages.size() > 1 && h % 7 == 0) return inf;
    return 1.0 + static_cast<double>(h % 1000) / 100.0 - 0.5 * static_cast<double>(stages.size());
  };
}

// Every partition of {0..n-1} into groups (restricted growth strings).
void for_each_partition(int n,
                        const std::function<void(const std::vector<std::vector<int>>&)>& fn) {
  std::vector<int> label(static_cast<std::size_t>(n), 0);
  std::function<void(int, int)> rec = [&](int i, int used) {
    if (i == n) {
      std::vector<std::vector<int>> groups(static_cast<std::size_t>(used));
      for (int v = 0; v < n; ++v)
        groups[static_cast<std::size_t>(label[static_cast<std::size_t>(v)])].push_back(v);
      fn(groups);
      return;
    }
    for (int l = 0; l <= used; ++l) {
      label[static_cast<std::size_t>(i)] = l;
      rec(i + 1, std::max(used, l + 1));
    }
  };
  rec(0, 0);
}

// A valid grouping: every group connected, the graph of groups acyclic.
bool valid_grouping(const VertexGraph& g, const std::vector<std::vector<int>>& groups) {
  std::vector<int> group_of(static_cast<std::size_t>(g.size()));
  for (std::size_t i = 0; i < groups.size(); ++i)
    for (int v : groups[i])
      group_of[static_cast<std::size_t>(v)] = static_cast<int>(i);
  for (const std::vector<int>& group : groups) {
    std::set<int> seen = {group.front()};
    std::vector<int> stack = {group.front()};
    while (!stack.empty()) {
      const int v = stack.back();
      stack.pop_back();
      for (const auto* list :
           {&g.preds[static_cast<std::size_t>(v)], &g.succs[static_cast<std::size_t>(v)]})
        for (int u : *list)
          if (group_of[static_cast<std::size_t>(u)] == group_of[static_cast<std::size_t>(v)] &&
              seen.insert(u).second)
            stack.push_back(u);
    }
    if (seen.size() != group.size()) return false;
  }
  // Kahn's algorithm on the groups.
  const std::size_t k = groups.size();
  std::vector<std::set<int>> succ(k);
  std::vector<int> indegree(k, 0);
  for (int v = 0; v < g.size(); ++v)
    for (int s : g.succs[static_cast<std::size_t>(v)]) {
      const int a = group_of[static_cast<std::size_t>(v)],
                b = group_of[static_cast<std::size_t>(s)];
      if (a != b && succ[static_cast<std::size_t>(a)].insert(b).second)
        ++indegree[static_cast<std::size_t>(b)];
    }
  std::vector<int> ready;
  for (std::size_t i = 0; i < k; ++i)
    if (indegree[i] == 0) ready.push_back(static_cast<int>(i));
  std::size_t done = 0;
  while (!ready.empty()) {
    const int a = ready.back();
    ready.pop_back();
    ++done;
    for (int b : succ[static_cast<std::size_t>(a)])
      if (--indegree[static_cast<std::size_t>(b)] == 0) ready.push_back(b);
  }
  return done == k;
}

double brute_force_minimum(const VertexGraph& g, const autoschedule::GroupCostFn& cost) {
  double best = inf;
  for_each_partition(g.size(), [&](const std::vector<std::vector<int>>& groups) {
    if (!valid_grouping(g, groups)) return;
    double total = 0;
    for (const std::vector<int>& group : groups)
      total += cost(group);
    best = std::min(best, total);
  });
  return best;
}

TEST(DpGrouping, EqualsTheBruteForceMinimumOnRandomDags) {
  std::mt19937 rng(2026);
  for (int trial = 0; trial < 60; ++trial) {
    const int n = 2 + trial % 8; // 2 to 9 stages
    const VertexGraph g = autoschedule::stage_graph(random_dag(n, rng));
    const autoschedule::GroupCostFn cost = random_cost(static_cast<unsigned>(trial));
    const autoschedule::DpResult r = autoschedule::dp_grouping(g, cost, 0);
    ASSERT_TRUE(r.complete);
    const double expected = brute_force_minimum(g, cost);
    EXPECT_NEAR(r.cost, expected, 1e-9) << "trial " << trial << ", " << n << " stages";
    // The grouping it returns is valid and costs what it says.
    std::vector<std::vector<int>> stages;
    double total = 0;
    for (const std::vector<int>& group : r.groups) {
      total += cost(group);
      stages.push_back(group);
    }
    EXPECT_TRUE(valid_grouping(g, stages)) << "trial " << trial;
    EXPECT_NEAR(total, r.cost, 1e-9);
  }
}

TEST(DpGrouping, EvaluatesEveryGroupingOfAChain) {
  const int n = 9;
  std::vector<std::vector<int>> consumers(n);
  for (int v = 0; v + 1 < n; ++v)
    consumers[static_cast<std::size_t>(v)] = {v + 1};
  const VertexGraph g = autoschedule::stage_graph(consumers);
  std::set<std::vector<int>> costed;
  const autoschedule::GroupCostFn inner = random_cost(7);
  const auto cost = [&](const std::vector<int>& s) {
    costed.insert(s);
    return inner(s);
  };
  const autoschedule::DpResult r = autoschedule::dp_grouping(g, cost, 0);
  // Every run [i, j] of the chain is costed: every one of the 2^(n-1)
  // groupings is a choice of runs, so each was weighed.
  EXPECT_EQ(costed.size(), static_cast<std::size_t>(n * (n + 1) / 2));
  for (const std::vector<int>& s : costed)
    EXPECT_EQ(s.back() - s.front() + 1, static_cast<int>(s.size())) << "a group that is not a run";
  int groupings = 0;
  double best = inf;
  for (int mask = 0; mask < (1 << (n - 1)); ++mask) { // a cut after stage i where bit i is set
    ++groupings;
    double total = 0;
    std::vector<int> run;
    for (int v = 0; v < n; ++v) {
      run.push_back(v);
      if (v == n - 1 || (mask >> v & 1)) {
        total += inner(run);
        run.clear();
      }
    }
    best = std::min(best, total);
  }
  EXPECT_EQ(groupings, 1 << (n - 1));
  EXPECT_NEAR(r.cost, best, 1e-9);
  EXPECT_EQ(r.states, n); // the finalized prefixes
}

TEST(DpGrouping, IsDeterministicAndRespectsItsGroupLimit) {
  std::mt19937 rng(99);
  const VertexGraph g = autoschedule::stage_graph(random_dag(9, rng));
  const autoschedule::GroupCostFn cost = random_cost(3);
  const autoschedule::DpResult a = autoschedule::dp_grouping(g, cost, 2);
  const autoschedule::DpResult b = autoschedule::dp_grouping(g, cost, 2);
  EXPECT_EQ(a.groups, b.groups);
  for (const std::vector<int>& group : a.groups)
    EXPECT_LE(group.size(), 2u);
  // Least-first weighs fewer groupings, never finds a cheaper one.
  const autoschedule::DpResult least =
      autoschedule::dp_grouping(g, cost, 0, autoschedule::DpOrder::LeastFirst);
  const autoschedule::DpResult exact = autoschedule::dp_grouping(g, cost, 0);
  EXPECT_GE(least.cost, exact.cost - 1e-9);
  EXPECT_LE(least.states, exact.states);
}

TEST(DpGrouping, IncrementalRoundsCoalesceAndStayValid) {
  std::mt19937 rng(5);
  const VertexGraph g = autoschedule::stage_graph(random_dag(9, rng));
  const autoschedule::GroupCostFn cost = random_cost(11);
  const autoschedule::IncrementalResult r = autoschedule::incremental_dp(g, cost, 2, 2, {});
  ASSERT_FALSE(r.rounds.empty());
  EXPECT_EQ(r.rounds.front(), 2);
  EXPECT_TRUE(valid_grouping(g, r.groups));
  std::set<int> covered;
  for (const std::vector<int>& group : r.groups)
    covered.insert(group.begin(), group.end());
  EXPECT_EQ(covered.size(), 9u);
  // The exact, unbounded DP is at least as good.
  EXPECT_LE(autoschedule::dp_grouping(g, cost, 0).cost, r.cost + 1e-9);
}

// A bounded round that merges nothing is followed by the round without a
// limit: a chain of four whose pairs price higher than their stages apart,
// and all four together lowest (camera_pipe's three groups at a 512 KiB L2).
TEST(DpGrouping, ARoundThatMergesNothingIsFollowedByTheUnboundedRound) {
  const VertexGraph g = autoschedule::stage_graph({{1}, {2}, {3}, {}});
  const autoschedule::GroupCostFn cost = [](const std::vector<int>& s) {
    switch (s.size()) {
    case 1: return 1.0;
    case 4: return 1.5;
    default: return 2.5 * static_cast<double>(s.size() - 1);
    }
  };
  const autoschedule::IncrementalResult r = autoschedule::incremental_dp(g, cost, 2, 2, {});
  EXPECT_EQ(r.rounds, (std::vector<int>{2, 0}));
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.groups.front(), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_DOUBLE_EQ(r.cost, 1.5);
}

// A vertex alone (a group a refinement keeps) joins no candidate: the chain
// 0 -> 1 -> 2 whose whole is cheapest keeps 1 by itself, and so 0 and 2
// apart too (together they would be a cycle through 1).
TEST(DpGrouping, AVertexAloneJoinsNoGroup) {
  VertexGraph g = autoschedule::stage_graph({{1}, {2}, {}});
  g.alone = {false, true, false};
  std::set<std::vector<int>> costed;
  const autoschedule::GroupCostFn cost = [&](const std::vector<int>& s) {
    costed.insert(s);
    return s.size() == 3 ? 0.5 : static_cast<double>(s.size());
  };
  const autoschedule::DpResult r = autoschedule::dp_grouping(g, cost, 0);
  ASSERT_TRUE(r.complete);
  EXPECT_EQ(r.groups, (std::vector<std::vector<int>>{{0}, {1}, {2}}));
  EXPECT_EQ(costed, (std::set<std::vector<int>>{{0}, {1}, {2}}));
}

// Alg. 5's rounds coalesce for good: on the chain 0 -> 1 -> 2 -> 3 a round of
// two stages a group takes {0, 1} and {2, 3} (1.2, its cheapest), and no
// later round can reach {0}, {1, 2, 3} (1.1), which needs stage 1 moved.
// Refining the pair regroups it.
TEST(DpGrouping, RefiningAPairRegroupsWhatTheRoundsCoalescedApart) {
  const VertexGraph g = autoschedule::stage_graph({{1}, {2}, {3}, {}});
  const autoschedule::GroupCostFn cost = [](const std::vector<int>& s) {
    static const std::map<std::vector<int>, double> priced = {
        {{0, 1}, 0.5}, {{2, 3}, 0.7}, {{1, 2}, 0.9}, {{1, 2, 3}, 0.1}};
    const auto it = priced.find(s);
    return it != priced.end() ? it->second : s.size() == 1 ? 1.0 : 10.0;
  };
  const autoschedule::IncrementalResult r = autoschedule::incremental_dp(g, cost, 2, 2, {});
  EXPECT_EQ(r.rounds.front(), 2);
  EXPECT_EQ(r.groups, (std::vector<std::vector<int>>{{0}, {1, 2, 3}}));
  EXPECT_NEAR(r.cost, 1.1, 1e-12);
  EXPECT_EQ(r.refined_pairs, 1);
  // Within a budget too small for the pair's search (a tenth of 10 groups),
  // the rounds' grouping stays.
  autoschedule::IncrementalResult rounds;
  rounds.groups = {{0, 1}, {2, 3}};
  rounds.cost = 1.2;
  autoschedule::DpBudget small;
  small.new_groups = 10;
  autoschedule::refine_pairs(g, cost, small, rounds);
  EXPECT_EQ(rounds.groups, (std::vector<std::vector<int>>{{0, 1}, {2, 3}}));
  EXPECT_EQ(rounds.refined_pairs, 0);
  autoschedule::refine_pairs(g, cost, {}, rounds);
  EXPECT_EQ(rounds.groups, r.groups);
}

// Refinement keeps every grouping valid, never raises the cost, and cannot
// pass the exact DP's minimum.
TEST(DpGrouping, RefinedRoundsStayValidAndNoDearerThanTheRounds) {
  std::mt19937 rng(31);
  int refined = 0;
  for (int trial = 0; trial < 40; ++trial) {
    const int n = 6 + trial % 5;
    const VertexGraph g = autoschedule::stage_graph(random_dag(n, rng));
    const autoschedule::GroupCostFn cost = random_cost(static_cast<unsigned>(100 + trial));
    autoschedule::IncrementalResult r = autoschedule::incremental_dp(g, cost, 2, 2, {});
    EXPECT_TRUE(valid_grouping(g, r.groups)) << "trial " << trial;
    double total = 0;
    for (const std::vector<int>& group : r.groups)
      total += cost(group);
    EXPECT_NEAR(total, r.cost, 1e-9) << "trial " << trial;
    EXPECT_GE(r.cost, autoschedule::dp_grouping(g, cost, 0).cost - 1e-9) << "trial " << trial;
    refined += r.refined_pairs;
    // Refining what the rounds found by hand does no worse.
    autoschedule::IncrementalResult again = r;
    autoschedule::refine_pairs(g, cost, {}, again);
    EXPECT_LE(again.cost, r.cost + 1e-12) << "trial " << trial;
    EXPECT_TRUE(valid_grouping(g, again.groups)) << "trial " << trial;
  }
  EXPECT_GT(refined, 0); // the random costs do lock some rounds in
}

TEST(DpGrouping, FallsBackWhenTheBudgetRunsOut) {
  std::mt19937 rng(12);
  const VertexGraph g = autoschedule::stage_graph(random_dag(9, rng));
  autoschedule::DpBudget tiny;
  tiny.candidates = 3;
  EXPECT_FALSE(
      autoschedule::dp_grouping(g, random_cost(1), 0, autoschedule::DpOrder::Exact, tiny).complete);
  const autoschedule::IncrementalResult r =
      autoschedule::incremental_dp(g, random_cost(1), 0, 2, tiny);
  EXPECT_TRUE(r.least_first);
  EXPECT_TRUE(valid_grouping(g, r.groups));
}

TEST(DpGrouping, ARoundOverItsBudgetPricesNoGroup) {
  std::mt19937 rng(12);
  const VertexGraph g = autoschedule::stage_graph(random_dag(9, rng));
  int priced = 0;
  const autoschedule::GroupCostFn inner = random_cost(1);
  const auto cost = [&](const std::vector<int>& s) {
    ++priced;
    return inner(s);
  };
  autoschedule::DpBudget few_groups;
  few_groups.new_groups = 5;
  EXPECT_FALSE(
      autoschedule::dp_grouping(g, cost, 0, autoschedule::DpOrder::Exact, few_groups).complete);
  autoschedule::DpBudget few_candidates;
  few_candidates.candidates = 3;
  EXPECT_FALSE(
      autoschedule::dp_grouping(g, cost, 0, autoschedule::DpOrder::Exact, few_candidates).complete);
  EXPECT_EQ(priced, 0);
  // Within its budget it prices every group it weighs, each as often as the
  // walk meets it.
  EXPECT_TRUE(autoschedule::dp_grouping(g, cost, 0).complete);
  EXPECT_GT(priced, 0);
}

TEST(DpGrouping, TheBudgetCountsTheGroupsNoEarlierRoundMet) {
  std::mt19937 rng(12);
  const VertexGraph g = autoschedule::stage_graph(random_dag(9, rng));
  const autoschedule::GroupCostFn cost = random_cost(1);
  autoschedule::ReachedGroups all;
  ASSERT_TRUE(
      autoschedule::dp_grouping(g, cost, 0, autoschedule::DpOrder::Exact, {}, &all).complete);
  const auto every_group = static_cast<std::int64_t>(all.size());
  ASSERT_GT(every_group, 8);
  // A round cut short after 5 new groups met 6; a second round over the same
  // graph then finds every_group - 6 new ones: a budget of that completes,
  // one fewer does not.
  const auto round = [&](autoschedule::ReachedGroups& reached, std::int64_t new_groups) {
    autoschedule::DpBudget budget;
    budget.new_groups = new_groups;
    return autoschedule::dp_grouping(g, cost, 0, autoschedule::DpOrder::Exact, budget, &reached)
        .complete;
  };
  for (const std::int64_t second : {every_group - 6, every_group - 7}) {
    autoschedule::ReachedGroups reached;
    EXPECT_FALSE(round(reached, 5));
    EXPECT_EQ(reached.size(), 6u);
    EXPECT_EQ(round(reached, second), second == every_group - 6) << second;
  }
}

// The tile-size model (Alg. 2's ComputeTileSizes), computed by hand.
TEST(TileSizes, WholeRowsAndReuseWeightedOuterDimensions) {
  // Unsharp at 2832 x 4256 x 3 in 512 KiB at 12 bytes a point: 43690 points;
  // rows of 4256 leave 10.27 rows to share between c (reuse 1) and x (5):
  // tau^2 * 1/5 = 10.27, c = tau/5 = 1.43 -> 1, x takes the rest: 10.
  autoschedule::TileSizeRequest r;
  r.sizes = {3, 2832, 4256};
  r.reuse = {1, 5, 5};
  r.volume = 512.0 * 1024 / 12;
  r.innermost = 8192;
  r.vector_points = 16;
  EXPECT_EQ(autoschedule::compute_tile_sizes(r), (std::vector<std::int64_t>{1, 10, 4256}));
  // A short innermost tile is a multiple of the vector width: 300 -> 288;
  // equal reuse shares the rest equally: sqrt(288000 / 288) = 31.6 -> 32, 31.
  // Evened out: 4 tiles of 288 over 1000 points are 4 of 256 (the last 232,
  // not 136); 32 x 32 and 33 x 31 are as even as 1000 allows.
  r.sizes = {1000, 1000, 1000};
  r.reuse = {2, 2, 2};
  r.innermost = 300;
  r.volume = 288000;
  EXPECT_EQ(autoschedule::compute_tile_sizes(r), (std::vector<std::int64_t>{32, 31, 256}));
  // A dimension smaller than its share is whole, the others share the rest:
  // 4 x 24 x 24 x 256 with a volume of 64 * 4 * 256.
  r.sizes = {4, 1000, 1000, 256};
  r.reuse = {8, 8, 2, 1};
  r.innermost = 8192;
  r.vector_points = 8;
  r.volume = 64.0 * 4 * 256;
  // tau^3 * 1 * 1 * 1/4 = 256 -> tau = 10.1: 10 and 10 and 2.5 (c is 4 at most).
  const std::vector<std::int64_t> t = autoschedule::compute_tile_sizes(r);
  EXPECT_EQ(t.back(), 256);
  EXPECT_LE(t[0], 4);
  EXPECT_GE(t[1], t[2]); // more reuse, a larger tile
  EXPECT_NEAR(static_cast<double>(t[0] * t[1] * t[2]), 256, 64);
}

TEST(TileSizes, EvenedOutTilesKeepTheirCount) {
  // 257 points in tiles of 128 leave one point to a third tile: 96 (six
  // vectors of 16) keeps three tiles, the last of 65. An outer dimension
  // needs no vectors: 100 in tiles of 40 is 34, 34, 32.
  EXPECT_EQ(autoschedule::even_out({40, 128}, {100, 257}, 1, 16),
            (std::vector<std::int64_t>{34, 96}));
  // A tile that divides its dimension, or spans it, stays; so does an
  // innermost tile that was not a multiple of the vector (the whole row).
  EXPECT_EQ(autoschedule::even_out({25, 257}, {100, 257}, 1, 16),
            (std::vector<std::int64_t>{25, 257}));
  for (std::int64_t size = 1; size <= 300; ++size)
    for (std::int64_t tile = 16; tile <= size; tile += 16) {
      const std::int64_t even = autoschedule::even_out({tile}, {size}, 0, 16)[0];
      EXPECT_EQ((size + even - 1) / even, (size + tile - 1) / tile) << size << " / " << tile;
      EXPECT_LE(even, tile);
      if (even < size) {
        EXPECT_EQ(even % 16, 0);
      }
    }
}

TEST(TileSizes, NeverOutsideOneAndTheSize) {
  autoschedule::TileSizeRequest r;
  r.sizes = {1, 3, 5};
  r.reuse = {1, 100, 1};
  r.volume = 1e12;
  EXPECT_EQ(autoschedule::compute_tile_sizes(r), (std::vector<std::int64_t>{1, 3, 5}));
  r.volume = 0;
  EXPECT_EQ(autoschedule::compute_tile_sizes(r), (std::vector<std::int64_t>{1, 1, 5}));
}

// The model sizes a stage by the box its readers demand (plan/demand.h), as
// every schedule computes it: a multigrid restriction is defined over the
// fine grid's extent and read on the coarse interior only. Priced over its
// definition, the defect fused with it tiled a space twice the fine grid's
// and recomputed four times its work (overlap 4.3), so dp never fused them.
TEST(PipelineModel, AStageIsSizedByWhatItsReadersDemand) {
  const Pipeline p = apps::find_app("mg_jacobi3d_v_1000").build();
  const autoschedule::PipelineModel model(p, {});
  const autoschedule::StageFacts& restriction = model.stage(model.index_of("restrict_L2_11"));
  EXPECT_EQ(restriction.demanded.str(), "[1, 127] x [1, 127] x [1, 127]");
  EXPECT_EQ(restriction.points, 127.0 * 127 * 127);
  const autoschedule::StageFacts& defect = model.stage(model.index_of("defect_L3_10"));
  EXPECT_EQ(defect.demanded.str(), "[1, 255] x [1, 255] x [1, 255]");
  const autoschedule::GroupFacts pair = autoschedule::group_facts(
      model, members_named(model, {"defect_L3_10", "restrict_L2_11"}), true, 3);
  ASSERT_TRUE(pair.ok) << pair.why;
  // The restriction (live-out) at twice its scale: 2 x [1, 127].
  EXPECT_EQ(pair.space, (std::vector<std::int64_t>{253, 253, 253}));
  // The hand-written schedule's tiles recompute a sixth (0.16), not 4.3 times.
  const autoschedule::TileMetrics tile = autoschedule::measure_tile(model, pair, {16, 32, 253});
  EXPECT_LT(tile.overlap(), 0.25);
}

// Alg. 3 on harris: the gradients Ix and Iy are inlined into the products,
// which read them at their own point in one nest (rule (vi)); the products,
// read at nine points by the box sums, stay stored rather than be recomputed
// at every tap; each sum is read at its own point by det and trace (rule
// (vi) again), and det and trace by harris (rules (ii) and (i)).
TEST(Inlining, HarrisInlinesGradientsIntoProductsAndStoresTheProducts) {
  const Pipeline p = apps::find_app("harris").build();
  const autoschedule::PipelineModel model(p, {});
  std::vector<int> all;
  for (int i = 0; i < model.size(); ++i)
    all.push_back(i);
  const autoschedule::GroupFacts facts = autoschedule::group_facts(model, all, true, 3);
  ASSERT_TRUE(facts.ok) << facts.why;
  std::set<std::string> inlined;
  for (std::size_t m = 0; m < facts.members.size(); ++m)
    if (facts.inlined(m)) inlined.insert(model.stage(facts.members[m]).function->name());
  EXPECT_EQ(inlined, (std::set<std::string>{"Ix", "Iy", "det", "trace", "Sxx", "Syy", "Sxy"}));
}

// Rule (vi): a stage whose consumers all read it at their own point, over
// one box and not reading one another, is inlined: they share one nest and
// the compiler computes it once. Not where a consumer reads it at an offset,
// where the consumers' boxes differ, or where one consumer reads the other
// (two nests, each computing it).
TEST(Inlining, AStageReadAtTheirOwnPointByConsumersOfOneNestIsInlined) {
  Param N("N");
  Var x("x"), y("y");
  Image img("img", ScalarType::Float32, {N + 2, N});
  struct Case {
    const char* name;
    int offset;     // where b reads g: g(x + offset, y)
    int b_lo;       // b's first row
    bool b_reads_a; // b reads a too
    bool inlined;   // g inlined by rule (vi)
  };
  for (const Case& k :
       {Case{"own point, one box", 0, 1, false, true}, Case{"an offset", 1, 1, false, false},
        Case{"another box", 0, 2, false, false}, Case{"one reads the other", 0, 1, true, false}}) {
    SCOPED_TRACE(k.name);
    Func g("g", ScalarType::Float32, {x, y}, {{1, N}, {0, N - 1}});
    g.define(img(x - 1, y) + img(x + 1, y)); // a stencil: not point-wise
    Func a("a", ScalarType::Float32, {x, y}, {{1, N - 1}, {0, N - 1}});
    a.define(g(x, y) * g(x, y));
    Func b("b", ScalarType::Float32, {x, y}, {{k.b_lo, N - 1}, {0, N - 1}});
    b.define(k.b_reads_a ? g(x + k.offset, y) * 2.0f + a(x, y) : g(x + k.offset, y) * 2.0f);
    Func out("out", ScalarType::Float32, {x, y}, {{2, N - 2}, {0, N - 1}});
    out.define(a(x - 1, y) + a(x + 1, y) + b(x - 1, y) + b(x + 1, y));
    const Pipeline p({out}, "shared_stencil");
    const autoschedule::PipelineModel model(p, {{"N", 256}});
    std::map<std::string, std::string> reason =
        inline_reasons(model, members_named(model, {"g", "a", "b", "out"}));
    if (k.inlined) {
      EXPECT_THAT(reason["g"], HasSubstr("its consumers read it at their own point"));
      // a now computes the stencil: read at two points by out, it is stored.
      EXPECT_EQ(reason["a"], "");
    } else {
      EXPECT_THAT(reason["g"], Not(HasSubstr("its consumers read it at their own point")));
      EXPECT_THAT(reason["a"], testing::StartsWith("point-wise"));
    }
  }
}

// Rule (i), bounded: a point-wise stage that its consumer recomputes at each
// of several taps is inlined only while that at most quadruples the
// consumer's operations (or keeps it memory-bound). A grey conversion (5
// operations) in a 5x5 blur would multiply the blur's by 4.5: stored. Read
// at one point per point, it is inlined as the paper's rule says; 2-D
// multigrid's first smoothing step, 2.7x in its consumer, is inlined too.
TEST(Inlining, APointWiseStageRecomputedAtManyTapsIsStored) {
  Param N("N");
  Var x("x"), y("y");
  Image rgb("rgb", ScalarType::Float32, {3, N + 4, N + 4});
  Func lum("lum", ScalarType::Float32, {x, y}, {{0, N + 3}, {0, N + 3}});
  lum.define(0.299f * rgb(0, x, y) + 0.587f * rgb(1, x, y) + 0.114f * rgb(2, x, y));
  Expr taps;
  for (int dx = -2; dx <= 2; ++dx)
    for (int dy = -2; dy <= 2; ++dy)
      taps = taps.defined() ? taps + lum(x + dx, y + dy) : lum(x + dx, y + dy);
  Func blur("blur", ScalarType::Float32, {x, y}, {{2, N + 1}, {2, N + 1}});
  blur.define(taps * 0.04f);
  Func bright("bright", ScalarType::Float32, {x, y}, {{0, N + 3}, {0, N + 3}});
  bright.define(lum(x, y) * 2.0f);
  for (const bool one_point : {false, true}) {
    SCOPED_TRACE(one_point ? "read at one point" : "read at 25 taps");
    const Pipeline p({one_point ? bright : blur}, "grey_blur");
    const autoschedule::PipelineModel model(p, {{"N", 1024}});
    std::map<std::string, std::string> reason =
        inline_reasons(model, members_named(model, {"lum", one_point ? "bright" : "blur"}));
    EXPECT_EQ(reason["lum"], one_point ? "point-wise" : "");
  }
  const Pipeline mg = apps::find_app("mg_jacobi2d_v_444").build();
  const autoschedule::PipelineModel model(mg, {});
  const autoschedule::GroupFacts facts = autoschedule::group_facts(
      model, members_named(model, {"w_jacobi_L1_12", "w_jacobi_L1_13"}), true, 3);
  ASSERT_TRUE(facts.ok) << facts.why;
  EXPECT_THAT(facts.inlining[0].reason,
              HasSubstr("point-wise, and recomputed at its consumers' taps it multiplies their "
                        "operations by 2.7, at most 4"));
}

// Rule (iii): the channels of a deinterleaved image are read at disjoint
// points by one consumer each, so the channel copies inline.
TEST(Inlining, DisjointReadersOfADeinterleavedImage) {
  Param N("N");
  Var x("x"), y("y");
  Image raw("raw", ScalarType::Float32, {2 * N, 2 * N});
  Func pair("pair", ScalarType::Float32, {x, y}, {{0, 2 * N - 1}, {0, 2 * N - 1}});
  pair.define(raw(x, y) * 2.0f + raw(x, y)); // point-wise
  Func blur("blur", ScalarType::Float32, {x, y}, {{1, 2 * N - 2}, {0, 2 * N - 1}});
  blur.define(pair(x - 1, y) + pair(x + 1, y)); // a stencil: not inlined by (i)
  Func even("even", ScalarType::Float32, {x, y}, {{1, N - 2}, {0, N - 1}});
  even.define(blur(2 * x, 2 * y));
  Func odd("odd", ScalarType::Float32, {x, y}, {{1, N - 2}, {0, N - 1}});
  odd.define(blur(2 * x + 1, 2 * y) * 3.0f);
  Func out("out", ScalarType::Float32, {x, y}, {{1, N - 2}, {0, N - 1}});
  out.define(even(x, y) + odd(x, y));
  const Pipeline p({out}, "deinterleave");
  const autoschedule::PipelineModel model(p, {{"N", 100}});
  std::map<std::string, std::string> reason =
      inline_reasons(model, members_named(model, {"pair", "blur", "even", "odd", "out"}));
  EXPECT_EQ(reason["blur"], "its consumers read disjoint points of it");
  EXPECT_THAT(reason["pair"], testing::StartsWith("point-wise"));
  EXPECT_EQ(reason["out"], "");
}

// Rule (ii) takes a consumer that reads one point per point, not one that
// reads several channels of a stage at each point: bilateral_grid's slicing
// stored in strips that fit the L2 ran 0.87 (Zen 3) and 0.91-0.95 (Intel)
// of its time inlined into the division (docs/performance.md). A consumer
// that reads constant points of a stage at every point of its own (a table)
// would recompute them: stored. So is a stage a consumer reads at two
// channels and two rows (x and x + 1: each row read twice).
TEST(Inlining, AStageReadAtTwoChannelsByItsOneConsumerIsStored) {
  const Pipeline bilateral = apps::find_app("bilateral_grid").build();
  const autoschedule::PipelineModel bilateral_model(bilateral, {});
  EXPECT_EQ(
      inline_reasons(bilateral_model, members_named(bilateral_model, {"interpolated", "filtered"}))
          .at("interpolated"),
      "");
  Param N("N");
  Var c("c"), x("x"), y("y");
  Image img("img", ScalarType::Float32, {N + 1, N});
  Func pair("pair", ScalarType::Float32, {c, x, y}, {{0, 1}, {0, N}, {0, N - 1}});
  pair.define(img(x, y) * cast<float>(c + 1) + img(x + 1, y)); // a stencil: not rule (i)'s
  Func table("table", ScalarType::Float32, {c}, {{0, 3}});
  table.define(img(c, 0) - img(c + 1, 0));
  Func ratio("ratio", ScalarType::Float32, {x, y}, {{0, N - 1}, {0, N - 1}});
  ratio.define(pair(0, x, y) / (pair(1, x, y) + table(1) * table(3)));
  Func rows("rows", ScalarType::Float32, {x, y}, {{0, N - 1}, {0, N - 1}});
  rows.define(pair(0, x, y) - pair(1, x + 1, y));
  const Pipeline p({ratio, rows}, "channels");
  const autoschedule::PipelineModel model(p, {{"N", 100}});
  std::map<std::string, std::string> one =
      inline_reasons(model, members_named(model, {"pair", "table", "ratio"}));
  EXPECT_EQ(one["pair"], "");
  EXPECT_EQ(one["table"], "");
  EXPECT_EQ(inline_reasons(model, members_named(model, {"pair", "rows"}))["pair"], "");
}

// Rule (v): a stencil on memory with one consumer is inlined where its
// consumer, recomputing it at every tap, still computes no more than the
// machine's operations a byte of memory traffic, a division weighed as ten.
// A blur that multiplies by a third: the horizontal sum, 3 reads, 2 adds and
// a multiplication (6), read at 3 taps by the vertical one (6 of its own):
// 6 - 3 + 3 x 6 = 21 operations over 8 bytes (img read, the output
// written). blur's blurx divides by 3: with blury's own division 4 of them,
// 21 + 4 x 9 = 57 operations over 8 bytes, inlined only on a machine that
// computes 7.2 a byte. A stencil that computes more, or a machine that
// computes less a byte, keeps it.
TEST(Inlining, AStencilOnMemoryIsInlinedWhereTheLoopStaysMemoryBound) {
  {
    Param C("C"), R("R");
    Var x("x"), y("y");
    Image img("img", ScalarType::Float32, {R + 2, C + 2});
    Func across("across", ScalarType::Float32, {x, y}, {{1, R}, {0, C + 1}});
    across.define((img(x - 1, y) + img(x, y) + img(x + 1, y)) * (1.0f / 3.0f));
    Func down("down", ScalarType::Float32, {x, y}, {{1, R}, {1, C}});
    down.define((across(x, y - 1) + across(x, y) + across(x, y + 1)) * (1.0f / 3.0f));
    const Pipeline thirds({down}, "thirds");
    const autoschedule::PipelineModel model(thirds, {{"C", 6398}, {"R", 4798}});
    const std::vector<int> members = {model.index_of("across"), model.index_of("down")};
    ASSERT_LT(members[0], members[1]);
    EXPECT_EQ(model.stage(members[0]).arithmetic, 6);
    EXPECT_EQ(model.stage(members[0]).divisions, 0);
    const std::vector<autoschedule::InlineDecision> decisions =
        autoschedule::choose_inlining(model, members, {false, true}, 3);
    EXPECT_TRUE(decisions[0].recomputes_stencil);
    EXPECT_THAT(decisions[0].reason,
                HasSubstr("a stencil on memory that its one consumer recomputes: 2.62 "
                          "operations a byte"));
    EXPECT_EQ(decisions[1].reason, "");
    EXPECT_EQ(autoschedule::choose_inlining(model, members, {false, true}, 2.5)[0].reason, "");
  }
  const Pipeline blur_pipeline = apps::find_app("blur").build();
  const autoschedule::PipelineModel blur(blur_pipeline, {});
  const std::vector<int> members = {blur.index_of("blurx"), blur.index_of("blury")};
  EXPECT_EQ(blur.stage(members[0]).arithmetic, 6);
  EXPECT_EQ(blur.stage(members[0]).divisions, 1);
  EXPECT_EQ(autoschedule::choose_inlining(blur, members, {false, true}, 3)[0].reason, "");
  EXPECT_EQ(autoschedule::choose_inlining(blur, members, {false, true}, 7)[0].reason, "");
  EXPECT_THAT(autoschedule::choose_inlining(blur, members, {false, true}, 7.2)[0].reason,
              HasSubstr("a stencil on memory that its one consumer recomputes: 7.12 "
                        "operations a byte"));

  Var x("x"), y("y");
  Param N("N");
  Image img("img", ScalarType::Float32, {N + 2, N});
  Func heavy("heavy", ScalarType::Float32, {x, y}, {{1, N}, {0, N - 1}});
  const Expr a = img(x - 1, y), b = img(x, y), c = img(x + 1, y);
  heavy.define(sqrt(a * c + b * b + 1.0f) / (a + c + 2.0f) + sqrt(a * a + c * c) * b - a * b * c +
               (a - c) / (b + 3.0f));
  Func out("out", ScalarType::Float32, {x, y}, {{2, N - 1}, {0, N - 1}});
  out.define(heavy(x - 1, y) + heavy(x + 1, y));
  const Pipeline p({out}, "heavy_stencil");
  const autoschedule::PipelineModel model(p, {{"N", 512}});
  const std::vector<int> pair = {model.index_of("heavy"), model.index_of("out")};
  EXPECT_GE(model.stage(pair[0]).arithmetic, 20);
  EXPECT_EQ(autoschedule::choose_inlining(model, pair, {false, true}, 3)[0].reason, "");
  EXPECT_THAT(autoschedule::choose_inlining(model, pair, {false, true}, 100)[0].reason,
              HasSubstr("a stencil on memory"));
}

TEST(CpuCostModel, AGroupThatRecomputesAStencilStreamsWholeRows) {
  // blur with blurx inlined keeps no scratchpad: tiles would only cut its
  // rows, so it runs in strips of whole rows. (Inlined on a machine that
  // computes 8 operations a byte: blurx's division weighs ten.)
  const Pipeline p = apps::find_app("blur").build();
  const autoschedule::PipelineModel model(p, {});
  MachineModel machine;
  machine.cores = 2;
  machine.l2_bytes = 1024 * 1024;
  machine.ops_per_byte = 8;
  const autoschedule::CpuCostModel cpu(model, {}, machine);
  const std::vector<int> members = {model.index_of("blurx"), model.index_of("blury")};
  const autoschedule::GroupFacts facts =
      autoschedule::group_facts(model, members, true, machine.ops_per_byte);
  ASSERT_TRUE(facts.ok) << facts.why;
  EXPECT_TRUE(autoschedule::streams_whole_rows(facts));
  const autoschedule::GroupDecision d = cpu.evaluate(members);
  ASSERT_TRUE(d.valid) << d.why_invalid;
  EXPECT_EQ(d.group.tile_sizes.back(), facts.space[facts.inner]);
  EXPECT_GT(d.group.tile_sizes.front(), 1);
  EXPECT_THAT(d.group.reasons, Contains(HasSubstr("it recomputes a stencil rather than store it")));
  // With the rule off blurx is stored: its rows are whole only because a
  // strip of them recomputes little (two rows of halo a strip).
  machine.ops_per_byte = 1;
  const autoschedule::CpuCostModel stored(model, {}, machine);
  const autoschedule::GroupDecision strips = stored.evaluate(members);
  EXPECT_EQ(strips.group.tile_sizes.back(), facts.space[facts.inner]);
  EXPECT_THAT(strips.group.reasons, Contains(HasSubstr("a strip of them recomputes")));
  EXPECT_THAT(strips.group.reasons,
              Not(Contains(HasSubstr("it recomputes a stencil rather than store it"))));
}

// A live-out's nest that streams memory with little arithmetic gets 32-byte
// vectors on a machine with 64-byte ones, the reason in the schedule; a nest
// on a machine with 32-byte vectors, and a nest storing 8-bit elements, keep
// the widest.
TEST(GroupDecision, ANestThatStreamsMemoryGetsNarrowerVectors) {
  const Pipeline blur = apps::find_app("blur").build();
  const autoschedule::PipelineModel blur_model(blur, {});
  MachineModel machine;
  machine.cores = 2;
  machine.vector_bytes = 64;
  const std::vector<int> blur_group = {blur_model.index_of("blurx"), blur_model.index_of("blury")};
  const autoschedule::GroupDecision narrowed =
      autoschedule::CpuCostModel(blur_model, {}, machine).evaluate(blur_group);
  ASSERT_TRUE(narrowed.valid) << narrowed.why_invalid;
  EXPECT_EQ(narrowed.group.vector_bytes, (std::map<std::string, int>{{"blury", 32}}));
  EXPECT_THAT(narrowed.group.reasons,
              Contains(HasSubstr("blury in vectors of 32 bytes: its nest computes 1.5 operations "
                                 "a byte it moves to or from memory, within the 3")));
  machine.vector_bytes = 32;
  EXPECT_TRUE(autoschedule::CpuCostModel(blur_model, {}, machine)
                  .evaluate(blur_group)
                  .group.vector_bytes.empty());
  machine.vector_bytes = 64;

  // The camera pipeline's output: 8-bit elements at 1 operation a byte.
  const Pipeline camera = apps::find_app("camera_pipe").build();
  const autoschedule::PipelineModel camera_model(camera, {});
  const int process = camera_model.index_of("process");
  const std::vector<int> members = {camera_model.index_of("corrected"), process};
  const autoschedule::GroupFacts facts =
      autoschedule::group_facts(camera_model, members, true, machine.ops_per_byte);
  ASSERT_TRUE(facts.ok) << facts.why;
  const std::size_t m = static_cast<std::size_t>(
      std::find(facts.members.begin(), facts.members.end(), process) - facts.members.begin());
  ASSERT_LT(m, facts.members.size());
  EXPECT_LE(facts.inlining[m].operations, machine.ops_per_byte * facts.inlining[m].memory_bytes);
  EXPECT_EQ(autoschedule::narrow_vector_bytes(camera_model, facts, m, machine), 0);
}

// A tiled group prefetches its live-ins that a core's L2 does not hold, a
// row ahead, the reason in the schedule: blur's image (4802 x 6400 floats)
// on a 1 MiB L2; at a size whose image the L2 holds, and with the image's
// values in a 256 MiB L2, none. The greedy baselines decide so too.
TEST(GroupDecision, ALiveInBeyondTheL2IsPrefetched) {
  const Pipeline blur = apps::find_app("blur").build();
  MachineModel machine;
  machine.cores = 2;
  machine.l2_bytes = 1 << 20;
  const autoschedule::PipelineModel large(blur, {});
  const std::vector<int> group = {large.index_of("blurx"), large.index_of("blury")};
  const autoschedule::GroupDecision d =
      autoschedule::CpuCostModel(large, {}, machine).evaluate(group);
  ASSERT_TRUE(d.valid) << d.why_invalid;
  EXPECT_EQ(d.group.prefetch, (std::map<std::string, int>{{"img", 1}}));
  EXPECT_THAT(d.group.reasons, Contains(HasSubstr("img prefetched a row ahead in the nests that "
                                                  "read it: its 123 MB do not fit in a core's "
                                                  "1024 KiB L2")));
  const autoschedule::PipelineModel small(blur, {{"R", 100}, {"C", 200}});
  EXPECT_TRUE(
      autoschedule::CpuCostModel(small, {}, machine).evaluate(group).group.prefetch.empty());
  machine.l2_bytes = std::int64_t{256} << 20;
  EXPECT_TRUE(
      autoschedule::CpuCostModel(large, {}, machine).evaluate(group).group.prefetch.empty());
  machine.l2_bytes = 1 << 20;
  for (const SchedulerKind scheduler : {SchedulerKind::Greedy, SchedulerKind::HalideGreedy}) {
    AutoScheduleOptions options;
    options.scheduler = scheduler;
    options.machine = machine;
    const Schedule s = auto_schedule(blur, options);
    ASSERT_EQ(s.groups.size(), 1u) << scheduler_name(scheduler);
    EXPECT_EQ(s.groups[0].prefetch, (std::map<std::string, int>{{"img", 1}}))
        << scheduler_name(scheduler);
  }
}

// A stored nest that gathers gets 32-byte vectors on a machine whose
// gathers are scalar loads, whatever it computes: bilateral_grid's slicing
// and division in one nest. Where gathers are vector instructions it keeps
// the widest.
TEST(GroupDecision, AGatheringNestGetsNarrowerVectorsWhereGathersAreScalarLoads) {
  const Pipeline p = apps::find_app("bilateral_grid").build();
  const autoschedule::PipelineModel model(p, {});
  MachineModel machine;
  machine.cores = 2;
  machine.vector_bytes = 64;
  machine.vector_gathers = false;
  const std::vector<int> group = members_named(model, {"interpolated", "filtered"});
  const autoschedule::GroupDecision d =
      autoschedule::CpuCostModel(model, {}, machine).evaluate(group);
  ASSERT_TRUE(d.valid) << d.why_invalid;
  EXPECT_EQ(d.group.vector_bytes.at("interpolated"), 32);
  EXPECT_THAT(d.group.reasons, Contains(HasSubstr("interpolated in vectors of 32 bytes: its nest "
                                                  "gathers, one scalar load a lane")));
  // A histogram's bins are look-ups too, but its updates run in order, not
  // in vectors: it keeps the widest.
  const autoschedule::GroupDecision histogram =
      autoschedule::CpuCostModel(model, {}, machine)
          .evaluate(members_named(model, {"input_repeat_edge", "grid", "blurz"}));
  ASSERT_TRUE(histogram.valid) << histogram.why_invalid;
  EXPECT_FALSE(histogram.group.vector_bytes.count("grid"));
  machine.vector_gathers = true;
  EXPECT_FALSE(autoschedule::CpuCostModel(model, {}, machine)
                   .evaluate(group)
                   .group.vector_bytes.count("interpolated"));
}

TEST(CpuCostModel, InfiniteWhereDependencesCannotBeMadeConstant) {
  // Local Laplacian's remap reads a pyramid level at a data-dependent index.
  const Pipeline p = apps::find_app("local_laplacian").build();
  const autoschedule::PipelineModel model(p, {});
  const autoschedule::CpuCostModel cpu(model, {}, MachineModel::host());
  const int lut = model.index_of("outLPyramid_L0");
  std::vector<int> members = {lut};
  for (int producer : model.stage(lut).producers)
    members.push_back(producer);
  std::sort(members.begin(), members.end());
  members.erase(std::unique(members.begin(), members.end()), members.end());
  const autoschedule::GroupDecision d = cpu.evaluate(members);
  EXPECT_FALSE(d.valid);
  EXPECT_EQ(d.cost, inf);
  EXPECT_FALSE(d.why_invalid.empty());
  // One stage alone is always valid and finite.
  EXPECT_TRUE(cpu.evaluate({lut}).valid);
}

TEST(CpuCostModel, FusedChainOfStencilsBeatsItsStagesApartOnUnsharp) {
  const Pipeline p = apps::find_app("unsharp").build();
  const autoschedule::PipelineModel model(p, {});
  // An L2 of 256 KiB a core: a strip of whole rows would hold 2-3 of them
  // and recompute a third as much again, so the group is tiled.
  MachineModel machine;
  machine.cores = 2;
  machine.l2_bytes = 256 * 1024;
  const autoschedule::CpuCostModel cpu(model, {}, machine);
  double apart = 0;
  for (int s = 0; s < model.size(); ++s)
    apart += cpu.evaluate({s}).cost;
  const autoschedule::GroupDecision fused = cpu.evaluate({0, 1, 2, 3, 4});
  ASSERT_TRUE(fused.valid);
  EXPECT_LT(fused.cost, apart);
  // The zero border is one read of the image; sharpen is point-wise; then
  // mask reads blury at its own point only.
  EXPECT_EQ(fused.inlined, (std::vector<std::string>{"img_constant_exterior", "blury", "sharpen"}));
  // The innermost tile is at most InnerMostTileSize (512), a multiple of the
  // vector width; the rows take the rest of half the L2 cache, the channels
  // (nothing reused along them) 1.
  const std::int64_t inner = fused.group.tile_sizes.back();
  EXPECT_LE(inner, 512);
  EXPECT_GE(inner, 128);
  EXPECT_EQ(inner % 16, 0);
  EXPECT_EQ(fused.group.tile_sizes.front(), 1);
  EXPECT_GT(fused.group.tile_sizes[1], 8);
  // The narrowest start the option allows is where the search ends.
  AutoScheduleOptions rows;
  rows.innermost_tile = 128;
  const autoschedule::CpuCostModel short_rows(model, rows, machine);
  EXPECT_EQ(short_rows.evaluate({0, 1, 2, 3, 4}).group.tile_sizes.back(), 128);
  // With 1 MiB, a strip of 9 whole rows recomputes 9% (blurx's 4 rows of
  // halo over the group's work): strips.
  machine.l2_bytes = 1024 * 1024;
  const autoschedule::CpuCostModel large(model, {}, machine);
  const autoschedule::GroupDecision strips = large.evaluate({0, 1, 2, 3, 4});
  const autoschedule::GroupFacts facts =
      autoschedule::group_facts(model, {0, 1, 2, 3, 4}, true, machine.ops_per_byte);
  EXPECT_EQ(strips.group.tile_sizes.back(), facts.space[facts.inner]);
  EXPECT_THAT(strips.group.reasons, Contains(HasSubstr("a strip of them recomputes")));
}

TEST(CpuCostModel, AStripGrowsPastTheBudgetWhereItsBuffersAreNoChain) {
  // unsharp's strip: blurx (a scratchpad computed from the image) and the
  // image read back, both read by mask. The budget (half the L2) buys a
  // strip of ~15 rows; it grows while eq. 2 prices the taller one lower,
  // blurx within the budget and, with the image, within the L2.
  const MachineModel machine = two_cores_with_1_mib_l2();
  const Pipeline p = apps::find_app("unsharp").build();
  const autoschedule::PipelineModel model(p, {});
  const autoschedule::CpuCostModel cpu(model, {}, machine);
  const std::vector<int> all = {0, 1, 2, 3, 4};
  const autoschedule::GroupFacts facts = autoschedule::group_facts(model, all, true, 3);
  ASSERT_TRUE(facts.ok) << facts.why;
  const autoschedule::CpuCostModel::LevelChoice level =
      cpu.tiles_for_cache(facts, machine.l2_bytes, std::vector<bool>(facts.space.size(), false));
  ASSERT_TRUE(level.few_halo_rows);
  const autoschedule::TileMetrics& strip = level.tile;
  EXPECT_EQ(strip.tiles[facts.inner], facts.space[facts.inner]);
  EXPECT_GT(strip.cached_bytes, level.budget * 1.25); // past the budget...
  EXPECT_LE(strip.cached_bytes - strip.live_in_read_back_bytes, level.budget * 1.25);
  EXPECT_LE(strip.cached_bytes, static_cast<double>(machine.l2_bytes)); // ...within the L2
  const autoschedule::TileMetrics budget_strip =
      autoschedule::measure_tile(model, facts, {1, 15, facts.space[facts.inner]});
  EXPECT_LT(strip.overlap(), budget_strip.overlap());
  EXPECT_FALSE(level.strip_grown_from.empty());
  EXPECT_THAT(cpu.evaluate(all).group.reasons, Contains(HasSubstr("grown from the budget's [1, ")));

  // 2-D multigrid's smoothing steps chain their scratchpads (each step reads
  // the one before): their strips stay within the budget.
  const Pipeline mg = apps::find_app("mg_jacobi2d_w_444").build();
  const autoschedule::PipelineModel mg_model(mg, {});
  const autoschedule::CpuCostModel mg_cpu(mg_model, {}, machine);
  const std::vector<int> steps = members_named(
      mg_model, {"w_jacobi_L1_27", "w_jacobi_L1_28", "w_jacobi_L1_29", "w_jacobi_L1_30"});
  const autoschedule::GroupFacts chain = autoschedule::group_facts(mg_model, steps, true, 3);
  ASSERT_TRUE(chain.ok) << chain.why;
  const autoschedule::CpuCostModel::LevelChoice mg_level =
      mg_cpu.tiles_for_cache(chain, machine.l2_bytes, std::vector<bool>(chain.space.size(), false));
  ASSERT_TRUE(mg_level.few_halo_rows);
  EXPECT_LE(mg_level.tile.cached_bytes, mg_level.budget * 1.25);
  EXPECT_TRUE(mg_level.strip_grown_from.empty());
}

TEST(CpuCostModel, ChannelsReadAtMixedIndicesArePricedWhole) {
  // Interpolate's finest levels: every colour channel of interpolated_L0
  // reads downsampled_L0's alpha channel too, so a tile one channel wide
  // reads two channels for one. The group is priced with its channels whole
  // as well, and that is the cheaper tile (unsharp's channels, read at their
  // own index only, stay one a tile: the test above).
  const Pipeline p = apps::find_app("interpolate").build();
  const autoschedule::PipelineModel model(p, {});
  const autoschedule::CpuCostModel cpu(model, {}, MachineModel::host());
  std::vector<int> members;
  for (const char* name :
       {"Ux_interpolated_L1", "interpolated_L1", "Ux_interpolated_L0", "interpolated_L0"})
    members.push_back(model.index_of(name));
  std::sort(members.begin(), members.end());
  const autoschedule::GroupDecision d = cpu.evaluate(members);
  ASSERT_TRUE(d.valid) << d.why_invalid;
  ASSERT_FALSE(d.group.tile_sizes.empty());
  EXPECT_EQ(d.group.tile_sizes.front(), 4);
}

TEST(CpuCostModel, BuffersWithTheirHalosFitTheBudget) {
  // Four smoothing steps of the 3-D V-cycle in one group take two shared
  // buffers; the volume their footprint buys leaves out the halos, which
  // in 3-D make a tile's buffers twice as large. The tiles are sized again
  // until the buffers, halos included, are within a quarter of the budget.
  const Pipeline p = apps::find_app("mg_jacobi3d_v_444").build();
  const autoschedule::PipelineModel model(p, {});
  const MachineModel machine = two_cores_with_1_mib_l2();
  const autoschedule::CpuCostModel cpu(model, {}, machine);
  const std::vector<int> members =
      members_named(model, {"w_jacobi_L3_0", "w_jacobi_L3_1", "w_jacobi_L3_2", "w_jacobi_L3_3"});
  const autoschedule::GroupFacts facts = autoschedule::group_facts(model, members, true, 3);
  ASSERT_TRUE(facts.ok) << facts.why;
  ASSERT_EQ(facts.space.size(), 3u);
  const auto choice = cpu.tiles_for_cache(facts, machine.l2_bytes, {false, false, false});
  EXPECT_GT(choice.budget, 0);
  EXPECT_LE(choice.tile.cached_bytes, 1.25 * choice.budget);
  // Its volume is well below what the footprint alone buys: the halos.
  EXPECT_LT(choice.tile.tiles[0] * choice.tile.tiles[1] * choice.tile.tiles[2] *
                autoschedule::cached_bytes_per_point(model, facts),
            0.8 * choice.budget);
}

TEST(CpuCostModel, ATileThatRecomputesMuchGrowsUntilItRecomputesLittle) {
  // Two smoothing steps at the 3-D V-cycle's finest level (257^3 doubles):
  // the tile the budget buys (its first step's buffer and the right-hand
  // side both steps load) is 9 x 9 whole rows, and its first step computes
  // a halo on two sides in two dimensions: 25% recomputed. It grows until
  // it recomputes at most 15%, its first step's buffer within the budget
  // (with its halos, as any tile's); the right-hand side it re-reads does
  // not fit beside it. (Half the cache: at the default's 0.7 the budget's
  // tile is larger and grows less.)
  const Pipeline p = apps::find_app("mg_jacobi3d_v_444").build();
  const autoschedule::PipelineModel model(p, {});
  const MachineModel machine = two_cores_with_1_mib_l2();
  AutoScheduleOptions half;
  half.cache_fill = 0.5;
  const autoschedule::CpuCostModel cpu(model, half, machine);
  const std::vector<int> members = members_named(model, {"w_jacobi_L3_0", "w_jacobi_L3_1"});
  const autoschedule::GroupFacts facts = autoschedule::group_facts(model, members, true, 3);
  ASSERT_TRUE(facts.ok) << facts.why;
  const auto choice = cpu.tiles_for_cache(facts, machine.l2_bytes, {false, false, false});
  EXPECT_GT(choice.grown_from_overlap, 0.15);
  EXPECT_LE(choice.tile.overlap(), 0.15 + 1e-9);
  EXPECT_TRUE(choice.accepted);
  const double written = choice.tile.cached_bytes - choice.tile.live_in_read_back_bytes;
  EXPECT_LE(written, 1.25 * choice.budget);
  EXPECT_GT(choice.tile.cached_bytes, 1.25 * choice.budget);
  EXPECT_EQ(choice.tile.tiles[2], 257); // rows whole, as before it grew
  // One step more would have recomputed more than 15%.
  const autoschedule::TileMetrics smaller = autoschedule::measure_tile(
      model, facts, {choice.tile.tiles[0] - 1, choice.tile.tiles[1] - 1, 257});
  EXPECT_GT(smaller.overlap(), 0.15);
  const autoschedule::GroupDecision d = cpu.evaluate(members);
  ASSERT_TRUE(d.valid) << d.why_invalid;
  EXPECT_EQ(d.group.tile_sizes, choice.tile.tiles);
  EXPECT_THAT(d.group.reasons, Contains(HasSubstr("tiles grown")));

  // A group that recomputes little at the budget's tile keeps it: unsharp's.
  const Pipeline unsharp = apps::find_app("unsharp").build();
  const autoschedule::PipelineModel unsharp_model(unsharp, {});
  const autoschedule::CpuCostModel unsharp_cpu(unsharp_model, {}, machine);
  const autoschedule::GroupDecision kept = unsharp_cpu.evaluate(
      members_named(unsharp_model, {"img_constant_exterior", "blurx", "blury", "sharpen", "mask"}));
  ASSERT_TRUE(kept.valid) << kept.why_invalid;
  EXPECT_THAT(kept.group.reasons, Not(Contains(HasSubstr("tiles grown"))));
}

TEST(CpuCostModel, AGrownTileGrowsOnWhileEq2PricesItLower) {
  // pyramid_blend's first image from its second level to its third, down-
  // and up-sampled (six stages), on a core with 512 KiB of L2: the budget's
  // tile recomputes more than 15%, and growing past 15% goes on while eq. 2
  // prices each larger tile lower (its overlap term falls faster than its
  // live data rises).
  const Pipeline p = apps::find_app("pyramid_blend").build();
  const autoschedule::PipelineModel model(p, {});
  MachineModel machine = two_cores_with_1_mib_l2();
  machine.l2_bytes = 512 * 1024;
  const autoschedule::CpuCostModel cpu(model, {}, machine);
  const std::vector<int> members = members_named(
      model, {"Dx_2_img1", "Dy_2_img1", "Ux_1_img1", "Uy_1_img1", "Dx_3_img1", "Dy_3_img1"});
  const autoschedule::GroupFacts facts = autoschedule::group_facts(model, members, true, 3);
  ASSERT_TRUE(facts.ok) << facts.why;
  // The channels whole, as dp keeps a short dimension.
  const auto choice = cpu.tiles_for_cache(facts, machine.l2_bytes, {true, false, false});
  ASSERT_GT(choice.grown_from_overlap, 0.15);
  const autoschedule::TileMetrics& grown = choice.tile;
  // A fifth fewer rows already recomputed at most 15%, where growing used
  // to stop; eq. 2 prices it higher than the tile chosen.
  std::vector<std::int64_t> fewer_rows = grown.tiles;
  fewer_rows[1] = fewer_rows[1] * 5 / 6;
  const autoschedule::TileMetrics smaller = autoschedule::measure_tile(model, facts, fewer_rows);
  EXPECT_LE(smaller.overlap(), 0.15);
  EXPECT_GT(eq2_price(facts, smaller, machine), eq2_price(facts, grown, machine));
  EXPECT_LE(grown.cached_bytes - grown.live_in_read_back_bytes, 1.25 * choice.budget);
}

TEST(CpuCostModel, AGrownTileGrowsOnOnlyWhileItsDataFitTheCache) {
  // The 2-D V-4-4-4's last group (the coarser level's last two smoothing
  // steps, then interpolation and smoothing at the two finer levels: twelve
  // stages) on a core with 2 MiB of L2: the budget's tile recomputes more
  // than 15%; once it recomputes less, it grows on while eq. 2 prices it
  // lower, but not past the cache with the live-ins it reads back (tiles of
  // 114 x 824, 129% of the cache, ran 1.09-1.16x the time of this rule's on
  // an Intel guest; docs/performance.md).
  const Pipeline p = apps::find_app("mg_jacobi2d_v_444").build();
  const autoschedule::PipelineModel model(p, {});
  MachineModel machine = two_cores_with_1_mib_l2();
  machine.l2_bytes = 2048 * 1024;
  const autoschedule::CpuCostModel cpu(model, {}, machine);
  const std::vector<int> members = members_named(
      model, {"w_jacobi_L1_25", "w_jacobi_L1_26", "interpolate_L2_27", "w_jacobi_L2_28",
              "w_jacobi_L2_29", "w_jacobi_L2_30", "w_jacobi_L2_31", "interpolate_L3_32",
              "w_jacobi_L3_33", "w_jacobi_L3_34", "w_jacobi_L3_35", "w_jacobi_L3_36"});
  const autoschedule::GroupFacts facts = autoschedule::group_facts(model, members, true, 3);
  ASSERT_TRUE(facts.ok) << facts.why;
  const auto choice = cpu.tiles_for_cache(facts, machine.l2_bytes, {false, false});
  ASSERT_GT(choice.grown_from_overlap, 0.15);
  const autoschedule::TileMetrics& grown = choice.tile;
  EXPECT_LE(grown.overlap(), 0.15);
  EXPECT_LE(grown.cached_bytes, static_cast<double>(machine.l2_bytes));
  // A fifth more rows and columns: eq. 2 prices it lower still (where
  // growing used to go on), but its data no longer fit.
  const autoschedule::TileMetrics larger =
      autoschedule::measure_tile(model, facts, {grown.tiles[0] * 6 / 5, grown.tiles[1] * 6 / 5});
  EXPECT_LT(eq2_price(facts, larger, machine), eq2_price(facts, grown, machine));
  EXPECT_GT(larger.cached_bytes, static_cast<double>(machine.l2_bytes));
}

TEST(CpuCostModel, AGroupAcrossScalesAlongTheRowsKeepsThemWhole) {
  // The first down-sampling step of interpolate's pyramid, from the
  // premultiplied image (Dx_1 halves its rows, D_1 its columns): its stored
  // stages lie at scales 1 and 2 along the rows, so the group runs in strips
  // of whole rows (cut into tiles, eq. 2 prices [4, 37, 400] lower): such a
  // strip recomputes little. The smoothing
  // steps of a multigrid level lie at one scale and are cut along the rows.
  MachineModel machine;
  machine.cores = 2;
  machine.l1_bytes = 32 * 1024;
  machine.l2_bytes = 1024 * 1024;
  machine.vector_bytes = 64;
  const auto decide = [&](const Pipeline& p, std::vector<std::string> names) {
    const autoschedule::PipelineModel model(p, {});
    const autoschedule::CpuCostModel cpu(model, {}, machine);
    std::vector<int> members;
    for (const std::string& name : names)
      members.push_back(model.index_of(name));
    std::sort(members.begin(), members.end());
    const autoschedule::GroupFacts facts = autoschedule::group_facts(model, members, true, 3);
    EXPECT_TRUE(facts.ok) << facts.why;
    return std::make_tuple(autoschedule::spans_scales_along_rows(facts), facts.space[facts.inner],
                           cpu.evaluate(members), facts.inner);
  };
  const auto [pyramid_spans, pyramid_row, pyramid, pyramid_inner] =
      decide(apps::find_app("interpolate").build(),
             {"premultiplied", "premultiplied_constant_exterior", "downsampled_L0", "Dx_1", "D_1"});
  EXPECT_TRUE(pyramid_spans);
  ASSERT_TRUE(pyramid.valid) << pyramid.why_invalid;
  EXPECT_EQ(pyramid.group.tile_sizes[pyramid_inner], pyramid_row);
  EXPECT_THAT(pyramid.group.reasons, Contains(HasSubstr("rows whole")));

  // camera_pipe's demosaic fused with its colour stages (2x down-sampled
  // channels): a strip of whole rows within the budget is a few rows deep
  // and recomputes its halo again and again (over 15%), so the group is cut
  // into tiles as any other (full fusion in tiles ran 5-11% faster than the
  // strips the demosaic and the colour stages took apart).
  const auto [camera_spans, camera_row, camera, camera_inner] =
      decide(apps::find_app("camera_pipe").build(),
             {"denoised", "deinterleaved", "g_gr",      "g_gb",   "g_r",   "r_r",    "r_gr",
              "redX1",    "g_b",           "r_b",       "r_gb",   "redX2", "red",    "greenX1",
              "greenX2",  "green",         "b_b",       "b_gr",   "b_r",   "blueX1", "b_gb",
              "blueX2",   "blue",          "corrected", "process"});
  EXPECT_TRUE(camera_spans);
  ASSERT_TRUE(camera.valid) << camera.why_invalid;
  EXPECT_LT(camera.group.tile_sizes[camera_inner], camera_row);
  EXPECT_THAT(camera.group.reasons, Not(Contains(HasSubstr("rows whole"))));

  const auto [smoothing_spans, smoothing_row, smoothing, smoothing_inner] =
      decide(apps::find_app("mg_jacobi2d_v_1000").build(),
             {"w_jacobi_L3_0", "w_jacobi_L3_1", "w_jacobi_L3_2", "w_jacobi_L3_3"});
  EXPECT_FALSE(smoothing_spans);
  ASSERT_TRUE(smoothing.valid) << smoothing.why_invalid;
  EXPECT_LT(smoothing.group.tile_sizes[smoothing_inner], smoothing_row);
  EXPECT_THAT(smoothing.group.reasons, Not(Contains(HasSubstr("rows whole"))));
}

TEST(CpuCostModel, ATileWholeInAShortInnermostDimensionSpansTheNextOneWhereRunsPay) {
  // bilateral_grid's histogram fused with its blur along the 11 intensity
  // bins (the innermost dimension, whole in any tile; the two channels
  // whole, as dp keeps them): a tile's runs in memory end where it cuts the
  // grid's columns (Y). Where short runs stream slower, the tile spans Y
  // whole as well, priced lower by eq. 2 than a tile of the same volume
  // with Y cut.
  const Pipeline p = apps::find_app("bilateral_grid").build();
  const autoschedule::PipelineModel model(p, {});
  MachineModel machine = two_cores_with_1_mib_l2();
  machine.run_bandwidth = {{256, 0.5, 0.6}, {4096, 0.85, 0.95}, {65536, 1.0, 1.0}};
  const autoschedule::CpuCostModel cpu(model, {}, machine);
  const autoschedule::GroupFacts facts = autoschedule::group_facts(
      model, members_named(model, {"input_repeat_edge", "grid", "blurz"}), true, 3);
  ASSERT_TRUE(facts.ok) << facts.why;
  ASSERT_EQ(facts.space.size(), 4u);
  ASSERT_EQ(facts.inner, 3u);
  const auto choice = cpu.tiles_for_cache(facts, machine.l2_bytes, {true, false, false, false});
  EXPECT_EQ(choice.runs_across_rows, 2);
  const std::vector<std::int64_t>& tiles = choice.tile.tiles;
  EXPECT_EQ(tiles[3], facts.space[3]);
  EXPECT_EQ(tiles[2], facts.space[2]);
  EXPECT_LT(tiles[1], facts.space[1]);
  std::vector<std::int64_t> cut = tiles;
  cut[1] = cut[2] = std::llround(std::sqrt(static_cast<double>(tiles[1] * tiles[2])));
  EXPECT_LT(eq2_price(facts, choice.tile, machine),
            eq2_price(facts, autoschedule::measure_tile(model, facts, cut), machine));
  EXPECT_THAT(cpu.evaluate(facts.members).group.reasons,
              Contains(HasSubstr("dimension 2 whole as well (197 points)")));

  // A long innermost dimension keeps the next one cut: the 3-D V-cycle's
  // smoothing at its second level (65 points a row) in tiles, not planes,
  // on the Intel guest (2 MiB of L2, its row runs measured), where eq. 2
  // prices the planes lower.
  const Pipeline cycle = apps::find_app("mg_jacobi3d_v_1000").build();
  const autoschedule::PipelineModel cycle_model(cycle, {});
  MachineModel intel = machine;
  intel.l1_bytes = 48 * 1024;
  intel.l2_bytes = 2048 * 1024;
  intel.run_bandwidth = {{256, 0.5, 0.6},    {512, 0.65, 0.7},  {1024, 0.75, 0.9}, {2048, 0.8, 0.9},
                         {4096, 0.85, 0.95}, {8192, 0.9, 0.95}, {65536, 1.0, 1.0}};
  const autoschedule::CpuCostModel cycle_cpu(cycle_model, {}, intel);
  const autoschedule::GroupFacts smoothing =
      autoschedule::group_facts(cycle_model,
                                members_named(cycle_model, {"w_jacobi_L1_30", "w_jacobi_L1_31",
                                                            "w_jacobi_L1_32", "w_jacobi_L1_33"}),
                                true, 3);
  ASSERT_TRUE(smoothing.ok) << smoothing.why;
  const auto planes = cycle_cpu.tiles_for_cache(smoothing, intel.l2_bytes, {false, false, false});
  EXPECT_EQ(planes.runs_across_rows, -1);
  EXPECT_LT(planes.tile.tiles[1], smoothing.space[1]);
}

TEST(GroupDecision, TileLoopsOfOneTileAreNotCollapsed) {
  // The fewest outermost loops with four tiles a core; else every loop up
  // to the last with more than one tile (bilateral_grid's blur in 2 x 2 x 1
  // x 1 tiles runs its two parallel loops, not four).
  const auto dims = [](std::vector<double> counts, int cores) {
    autoschedule::TileMetrics t;
    t.tile_counts = std::move(counts);
    return autoschedule::parallel_tile_dims(t, cores);
  };
  EXPECT_EQ(dims({2, 2, 1, 1}, 2), 2);
  EXPECT_EQ(dims({1, 8, 1}, 2), 2);
  EXPECT_EQ(dims({3, 1, 1}, 2), 1);
  EXPECT_EQ(dims({1, 1, 1}, 2), 1);
  EXPECT_EQ(dims({20, 3}, 2), 1);
  EXPECT_EQ(dims({2, 3, 4}, 2), 3);
  EXPECT_EQ(dims({2, 3, 4}, 1), 2);
}

TEST(TileMetrics, AHistogramTileReadsItsCellsPixels) {
  // The bilateral grid's histogram reads input_repeat_edge(8 X - 4 + rx,
  // 8 Y - 4 + ry), X and Y reduction variables that its cells follow: a
  // tile of cells reads their pixels and a margin, so that all the tiles
  // together read the image about once (a little less: the margin the
  // boundary condition adds is wider than the cells reach), not once each.
  const Pipeline p = apps::find_app("bilateral_grid").build();
  const autoschedule::PipelineModel model(p, {});
  std::vector<int> members = {model.index_of("grid"), model.index_of("blurz")};
  std::sort(members.begin(), members.end());
  const autoschedule::GroupFacts facts = autoschedule::group_facts(model, members, true, 3);
  ASSERT_TRUE(facts.ok) << facts.why;
  std::vector<std::int64_t> tiles = facts.space;
  for (std::size_t c = 0; c < tiles.size(); ++c)
    if (tiles[c] > 16) tiles[c] = 32; // 32 x 32 cells, channels and bins whole
  const autoschedule::TileMetrics t = autoschedule::measure_tile(model, facts, tiles);
  const autoschedule::StageFacts& source = model.stage(model.index_of("input_repeat_edge"));
  const double image_bytes = source.points * source.bytes;
  EXPECT_GT(t.tile_count, 8);
  EXPECT_GT(t.live_in_bytes * t.tile_count, 0.9 * image_bytes);
  EXPECT_LT(t.live_in_bytes * t.tile_count, 1.2 * image_bytes);
}

TEST(GroupFacts, ABoundaryConditionFoldsIntoTheReductionThatReadsIt) {
  // bilateral_grid's histogram reads the clamped image: the clamp computes
  // nothing, so the group inlines it into the histogram's reads (as the
  // hand-written schedule does), outside the group's space, instead of
  // writing a copy of the image and reading it back.
  const Pipeline p = apps::find_app("bilateral_grid").build();
  const autoschedule::PipelineModel model(p, {});
  const std::vector<int> members = members_named(model, {"input_repeat_edge", "grid", "blurz"});
  const autoschedule::GroupFacts facts = autoschedule::group_facts(model, members, true, 3);
  ASSERT_TRUE(facts.ok) << facts.why;
  EXPECT_EQ(facts.folded, members_named(model, {"input_repeat_edge"}));
  EXPECT_EQ(facts.members, members_named(model, {"grid", "blurz"}));
  const autoschedule::CpuCostModel cpu(model, {}, two_cores_with_1_mib_l2());
  const autoschedule::GroupDecision d = cpu.evaluate(members);
  ASSERT_TRUE(d.valid) << d.why_invalid;
  EXPECT_EQ(d.group.stages, (std::vector<std::string>{"input_repeat_edge", "grid", "blurz"}));
  EXPECT_EQ(d.inlined, (std::vector<std::string>{"input_repeat_edge"}));
  EXPECT_EQ(d.report.work_share, autoschedule::work_share(model, facts));
  EXPECT_GT(d.report.work_share,
            autoschedule::work_share(
                model, autoschedule::group_facts(model, members_named(model, {"grid", "blurz"}),
                                                 true, 3)));
  // Folded, the clamp costs less than a pass of its own.
  EXPECT_LT(d.cost, cpu.cost(members_named(model, {"input_repeat_edge"})) +
                        cpu.cost(members_named(model, {"grid", "blurz"})));
  // With the histogram alone the group is one reduction and its clamp, untiled.
  const autoschedule::GroupDecision lone =
      cpu.evaluate(members_named(model, {"input_repeat_edge", "grid"}));
  ASSERT_TRUE(lone.valid) << lone.why_invalid;
  EXPECT_TRUE(lone.group.tile_sizes.empty());
  // Without inlining, or where a stage that computes feeds the reduction,
  // the reduction would be fused with its producer: no group.
  EXPECT_FALSE(autoschedule::group_facts(model, members, false, 3).ok);
  const autoschedule::GroupFacts computed =
      autoschedule::group_facts(model, members_named(model, {"grid", "blurz", "blurx"}), true, 3);
  EXPECT_TRUE(computed.ok);
  EXPECT_TRUE(computed.folded.empty());

  // A boundary condition that a stage other than the reduction reads too
  // stays stored, and cannot share a group with the reduction.
  Param n("n");
  Var x("x");
  Image img("img", ScalarType::Float32, {n});
  const Func clamped = boundary::repeat_edge(img, {1});
  RVar r("r", {-1, n});
  Func total("total", ScalarType::Float32, {x}, {{0, 0}});
  total.define_reduction(0.0f, {r}, {sum_into({Expr(0)}, clamped(r))});
  Func shifted("shifted", ScalarType::Float32, {x}, {{0, n - 1}});
  shifted.define(clamped(x - 1) + total(0));
  const Pipeline shared({shifted}, "shared_boundary");
  const autoschedule::PipelineModel shared_model(shared, {{"n", 1000}});
  const autoschedule::GroupFacts both = autoschedule::group_facts(
      shared_model, members_named(shared_model, {"img_repeat_edge", "total", "shifted"}), true, 3);
  EXPECT_FALSE(both.ok);
  EXPECT_THAT(both.why, HasSubstr("would be fused with its producer 'img_repeat_edge'"));

  // A boundary condition around a stage that computes: folded into the
  // reduction, it would have the reduction read that stage, so the stage
  // must be in an earlier group.
  Func scaled("scaled", ScalarType::Float32, {x}, {{0, n - 1}});
  scaled.define(img(x) * 2.0f);
  const Func around = boundary::repeat_edge(scaled, {1});
  Func sum("sum", ScalarType::Float32, {x}, {{0, 0}});
  sum.define_reduction(0.0f, {r}, {sum_into({Expr(0)}, around(r))});
  Func both_read("both_read", ScalarType::Float32, {x}, {{0, n - 1}});
  both_read.define(scaled(x) + sum(0));
  const Pipeline computed_source({both_read}, "boundary_of_a_stage");
  const autoschedule::PipelineModel source_model(computed_source, {{"n", 1000}});
  // Connected through both_read, which reads scaled and the sum.
  const autoschedule::GroupFacts with_source = autoschedule::group_facts(
      source_model,
      members_named(source_model, {"scaled", "scaled_repeat_edge", "sum", "both_read"}), true, 3);
  EXPECT_FALSE(with_source.ok);
  EXPECT_THAT(with_source.why, HasSubstr("would be fused with its producer 'scaled'"));
  const autoschedule::GroupFacts without_source = autoschedule::group_facts(
      source_model, members_named(source_model, {"scaled_repeat_edge", "sum"}), true, 3);
  EXPECT_TRUE(without_source.ok) << without_source.why;
  // dp's schedule of it is valid (compile() validates it) and runs.
  EXPECT_NO_THROW(compile(computed_source));
}

TEST(TileMetrics, BuffersWhoseLifetimesAreApartShareOne) {
  // As lowering lays them out (share_scratchpads): in the chain s1 -> s2 ->
  // s3 -> out, s1 is dead once s2 is computed and s3 takes its memory (s2
  // is float64: a buffer of its own); in the diamond a -> {b, c} -> d, a
  // lives until c and b until d, so only d may take a's.
  const Pipeline chain = testing_support::stencil_chain();
  const autoschedule::PipelineModel model(chain, {{"n", 1000}});
  const autoschedule::GroupFacts facts = autoschedule::group_facts(model, {0, 1, 2, 3}, false, 3);
  ASSERT_TRUE(facts.ok) << facts.why;
  EXPECT_EQ(facts.buffer_of, (std::vector<int>{0, 1, 0, 2}));
  const autoschedule::TileMetrics t = autoschedule::measure_tile(model, facts, {64, 64});
  // Regions of 70, 68, 66 and 64 points square: s1's and s3's (float32) in
  // one buffer as large as s1's, not in two.
  const double s1 = 70.0 * 70 * 4, s2 = 68.0 * 68 * 8, out = 64.0 * 64 * 4;
  EXPECT_NEAR(t.buffer_bytes, s1 + s2 + out, 0.05 * (s1 + s2 + out));
  // out is written once and read by no member: not what the tile keeps.
  EXPECT_NEAR(t.cached_bytes, s1 + s2, 0.05 * (s1 + s2));
  EXPECT_NEAR(autoschedule::cached_bytes_per_point(model, facts), 4 + 8, 1e-9);

  const Pipeline diamond = testing_support::stencil_diamond();
  const autoschedule::PipelineModel diamond_model(diamond, {{"n", 1000}});
  const autoschedule::GroupFacts d =
      autoschedule::group_facts(diamond_model, {0, 1, 2, 3}, false, 3);
  ASSERT_TRUE(d.ok) << d.why;
  EXPECT_EQ(d.buffer_of, (std::vector<int>{0, 1, 2, 0}));
}

TEST(TileMetrics, ATileCachesWhatItReadsBack) {
  // The chain s1 -> s2 -> s3 -> out: every member but out is read by the
  // next; out, the live-out, is written once and streams. The image is
  // loaded by s1's nest alone.
  const Pipeline chain = testing_support::stencil_chain();
  const autoschedule::PipelineModel chain_model(chain, {{"n", 1000}});
  const autoschedule::GroupFacts facts =
      autoschedule::group_facts(chain_model, {0, 1, 2, 3}, false, 3);
  ASSERT_TRUE(facts.ok) << facts.why;
  EXPECT_EQ(facts.cached, (std::vector<bool>{true, true, true, false}));
  EXPECT_TRUE(facts.live_ins_read_back.empty());
  // A group of one stage reads nothing back; what it stores sizes its tiles.
  const autoschedule::GroupFacts alone = autoschedule::group_facts(chain_model, {3}, false, 3);
  ASSERT_TRUE(alone.ok) << alone.why;
  EXPECT_EQ(alone.cached, (std::vector<bool>{true}));

  // Unsharp's group, Alg. 3 inlining all but blurx and mask: the input is
  // loaded by blurx's nest and again by mask's (through the inlined
  // sharpen), so a tile reads its region back, as it does blurx's buffer;
  // mask is the live-out.
  const Pipeline unsharp = apps::find_app("unsharp").build();
  const autoschedule::PipelineModel model(unsharp, {});
  const std::vector<int> members =
      members_named(model, {"img_constant_exterior", "blurx", "blury", "sharpen", "mask"});
  const autoschedule::GroupFacts group = autoschedule::group_facts(model, members, true, 3);
  ASSERT_TRUE(group.ok) << group.why;
  const auto member = [&](const char* name) {
    const auto at = std::find(group.members.begin(), group.members.end(), model.index_of(name));
    return static_cast<std::size_t>(at - group.members.begin());
  };
  EXPECT_TRUE(group.cached[member("blurx")]);
  EXPECT_FALSE(group.cached[member("mask")]);
  ASSERT_EQ(group.live_ins_read_back.size(), 1u);
  EXPECT_EQ(group.live_ins_read_back.front().producer,
            static_cast<const void*>(unsharp.inputs().front().get()));
  const autoschedule::TileMetrics t = autoschedule::measure_tile(model, group, {1, 64, 256});
  // A 64 x 256 tile (x, then y innermost): blurx's buffer is 64 x 260 (blury,
  // inlined, reads it at y - 2 to y + 2), mask's 64 x 256; the image is the
  // one live-in, all of it read back.
  const double blurx = 64.0 * 260 * 4, mask = 64.0 * 256 * 4;
  EXPECT_NEAR(t.buffer_bytes, blurx + mask, 1e-6 * (blurx + mask));
  EXPECT_GT(t.live_in_bytes, 64.0 * 256 * 4);
  EXPECT_NEAR(t.cached_bytes, blurx + t.live_in_bytes, 1e-6 * (blurx + t.live_in_bytes));
}

TEST(TileMetrics, ALiveInIsTheTileAndItsWindow) {
  // A tile of `t` points read through a window of width w (offsets -w/2 ..
  // w/2) needs t + w points of its producer, not t + w + 1: over a
  // dimension one point wide (a colour channel), one more point was two
  // channels, and unsharp's strips looked as if they read twice their
  // input (their tiles then held 3 rows where 6 fit).
  const Pipeline unsharp = apps::find_app("unsharp").build();
  const autoschedule::PipelineModel model(unsharp, {});
  const autoschedule::GroupFacts group = unsharp_group(model);
  ASSERT_TRUE(group.ok) << group.why;
  ASSERT_EQ(group.space, (std::vector<std::int64_t>{3, 2832, 4256}));
  // 177 x 266 divides the space (16 x 16 tiles): the mean tile is the full
  // one. blurx reads the image at x - 2 .. x + 2 over blury's columns, which
  // read blurx at y - 2 .. y + 2: the image's 181 rows of 270 columns.
  const autoschedule::TileMetrics t = autoschedule::measure_tile(model, group, {1, 177, 266});
  EXPECT_DOUBLE_EQ(t.live_in_bytes, 1.0 * 181 * 270 * 4);
  // Whole rows: the columns' window falls outside the image, which holds 4256.
  const autoschedule::TileMetrics strip = autoschedule::measure_tile(model, group, {1, 6, 4256});
  EXPECT_DOUBLE_EQ(strip.live_in_bytes, 1.0 * 10 * 4256 * 4);

  // The chain's s1 (a 5-point stencil over the image) alone, on a 1000 x
  // 1000 image: its 998 x 998 points in four tiles of 499 x 499, each
  // reading 501 x 501.
  const Pipeline chain = testing_support::stencil_chain();
  const autoschedule::PipelineModel chain_model(chain, {{"n", 1000}});
  const autoschedule::GroupFacts s1 = autoschedule::group_facts(chain_model, {0}, false, 3);
  ASSERT_TRUE(s1.ok) << s1.why;
  EXPECT_DOUBLE_EQ(autoschedule::measure_tile(chain_model, s1, {499, 499}).live_in_bytes,
                   501.0 * 501 * 4);
}

TEST(TileMetrics, ClippedEdgeTilesAreNotRecomputation) {
  // Unsharp's fused group: lowering clips the edge tiles to the space, so
  // the overlap a tile size implies depends on how many tiles there are, not
  // on how much of the last one is empty (a full-size count of the edge tile
  // once made rows of 512 over 1,538 columns look 33% redundant).
  const Pipeline p = apps::find_app("unsharp").build();
  const autoschedule::PipelineModel model(p, {});
  const autoschedule::GroupFacts facts = autoschedule::group_facts(model, {0, 1, 2, 3, 4}, true, 3);
  ASSERT_TRUE(facts.ok);
  ASSERT_EQ(facts.space.size(), 3u);
  const auto measure = [&](std::int64_t tile_rows, std::int64_t tile_columns) {
    return autoschedule::measure_tile(model, facts, {1, tile_rows, tile_columns});
  };
  const auto overlap = [&](const autoschedule::TileMetrics& t) { return t.redundant / t.useful; };
  const std::int64_t rows = facts.space[1], columns = facts.space[2];
  for (const std::int64_t count : {3, 7, 45}) {
    // The narrowest tile that makes `count` tiles along a dimension, and
    // the widest: the same tiles, the last one fuller or emptier.
    const auto narrowest = [&](std::int64_t space) { return (space + count - 1) / count; };
    const auto widest = [&](std::int64_t space) { return (space - 1) / (count - 1); };
    SCOPED_TRACE(count);
    ASSERT_GT(widest(rows), narrowest(rows));
    const autoschedule::TileMetrics full = measure(narrowest(rows), columns);
    const autoschedule::TileMetrics empty = measure(widest(rows), columns);
    EXPECT_EQ(full.tile_count, empty.tile_count);
    EXPECT_NEAR(overlap(empty), overlap(full), 1e-9);
    EXPECT_NEAR(empty.live_in_bytes, full.live_in_bytes, 1e-6 * full.live_in_bytes);
    EXPECT_NEAR(overlap(measure(rows, widest(columns))), overlap(measure(rows, narrowest(columns))),
                1e-9);
    // The buffers are the full tile's: what the cache must hold.
    EXPECT_GT(empty.buffer_bytes, full.buffer_bytes);
    // Halide's model prices every tile at full size, the edge's empty part
    // as work: the halide-greedy baseline measures so.
    const autoschedule::TileMetrics halide = autoschedule::measure_tile(
        model, facts, {1, widest(rows), columns}, autoschedule::TileExtent::Full);
    EXPECT_GT(overlap(halide), overlap(empty) + 0.01);
  }
  // A halo makes overlap: blury reads 4 columns of blurx beyond its own.
  EXPECT_GT(overlap(measure(rows, columns / 3)), overlap(measure(rows, columns)));
}

TEST(TileMetrics, AShiftedReadCostsItsWindowNotItsShift) {
  // pyramid_blend's first level reads its padded input at 2x - 33 .. 2x - 29
  // along the rows: a tile of 16 rows of the common space needs 20 rows of
  // the input's boundary stage, not 16 + 33 (the region's hull with the
  // tile), which once priced its own strips 118% redundant.
  const Pipeline p = apps::find_app("pyramid_blend").build();
  const autoschedule::PipelineModel model(p, {});
  std::vector<int> members;
  for (const char* name : {"img1_repeat_edge", "Dx_1_img1", "Dy_1_img1"})
    members.push_back(model.index_of(name));
  const autoschedule::GroupFacts facts = autoschedule::group_facts(model, members, true, 3);
  ASSERT_TRUE(facts.ok) << facts.why;
  ASSERT_EQ(facts.members.front(), model.index_of("img1_repeat_edge"));
  ASSERT_EQ(facts.space.size(), 3u);
  const plan::DimReach& rows = facts.reach[0][1];
  EXPECT_EQ(rows.to - rows.from, 4);
  EXPECT_GT(rows.below, 30); // the hull holds the shift
  const autoschedule::TileMetrics t =
      autoschedule::measure_tile(model, facts, {1, 16, facts.space[2]});
  // The boundary stage's rows per tile: the mean tile's and the window's 4.
  const autoschedule::TileMetrics taller =
      autoschedule::measure_tile(model, facts, {1, 32, facts.space[2]});
  const auto rows_of = [&](const autoschedule::TileMetrics& m) {
    return static_cast<double>(facts.space[1]) / m.tile_counts[1] + 4;
  };
  EXPECT_NEAR(t.region_points[0] / taller.region_points[0], rows_of(t) / rows_of(taller), 1e-9);
  // So the strip's overlap is its halos, a few tens of percent, not a
  // multiple.
  EXPECT_LT(t.redundant / t.useful, 0.5);
}

TEST(MachineModel, JsonRoundTripsAndRejectsBadFields) {
  MachineModel m;
  m.cores = 16;
  m.l1_bytes = 32768;
  m.l2_bytes = 1 << 20;
  m.l3_bytes = 32 << 20;
  m.vector_bytes = 32;
  const MachineModel back = MachineModel::from_json(m.to_json(), MachineModel{}, "test");
  EXPECT_EQ(back.cores, 16);
  EXPECT_EQ(back.l2_bytes, 1 << 20);
  EXPECT_EQ(back.l3_bytes, 32 << 20);
  // A subset overrides the base.
  EXPECT_EQ(MachineModel::from_json(R"({"cores": 3})", m, "test").l1_bytes, 32768);
  EXPECT_THAT([] { MachineModel::from_json(R"({"cores": 2, "l4": 1})", MachineModel{}, "m.json"); },
              testing::ThrowsMessage<Error>(HasSubstr("m.json: unknown field 'l4'")));
  EXPECT_THAT([] { MachineModel::from_json(R"({"cores": 0})", MachineModel{}, "m.json"); },
              testing::ThrowsMessage<Error>(HasSubstr("cores must be positive")));
  EXPECT_THAT([] { MachineModel::from_json(R"({"l2_bytes": "big"})", MachineModel{}, "m.json"); },
              testing::ThrowsMessage<Error>(HasSubstr("'l2_bytes' must be an integer")));
  m.ops_per_byte = 4.5;
  EXPECT_EQ(MachineModel::from_json(m.to_json(), MachineModel{}, "test").ops_per_byte, 4.5);
  EXPECT_THAT([] { MachineModel::from_json(R"({"ops_per_byte": 0})", MachineModel{}, "m.json"); },
              testing::ThrowsMessage<Error>(HasSubstr("ops_per_byte must be positive")));
  EXPECT_THAT([] { MachineModel::from_json(R"({"ops_per_byte": "x"})", MachineModel{}, "m.json"); },
              testing::ThrowsMessage<Error>(HasSubstr("'ops_per_byte' must be a number")));
  const MachineModel& host = MachineModel::host();
  EXPECT_GE(host.cores, 1);
  EXPECT_GT(host.l1_bytes, 0);
  EXPECT_GE(host.vector_bytes, 16);
}

TEST(MachineModel, RunBandwidthInterpolatesAndRoundTrips) {
  MachineModel m;
  EXPECT_EQ(m.read_share(64), 1.0); // not measured: every run at full bandwidth
  m.run_bandwidth = {{512, 0.5, 0.4}, {2048, 0.7, 0.8}, {65536, 1.0, 1.0}};
  EXPECT_DOUBLE_EQ(m.read_share(100), 0.5);   // shorter than the first: the first's
  EXPECT_DOUBLE_EQ(m.read_share(1024), 0.6);  // halfway in log(bytes)
  EXPECT_DOUBLE_EQ(m.write_share(1024), 0.6); // 0.4 .. 0.8
  EXPECT_DOUBLE_EQ(m.write_share(2048), 0.8);
  EXPECT_DOUBLE_EQ(m.read_share(1e9), 1.0); // longer than the last: the last's
  const MachineModel back = MachineModel::from_json(m.to_json(), MachineModel{}, "test");
  ASSERT_EQ(back.run_bandwidth.size(), 3u);
  EXPECT_EQ(back.run_bandwidth[1].bytes, 2048);
  EXPECT_EQ(back.run_bandwidth[1].write, 0.8);
  EXPECT_TRUE(MachineModel::from_json(R"({"run_bandwidth": []})", m, "test").run_bandwidth.empty());
  EXPECT_TRUE(back.vector_gathers);
  m.vector_gathers = false;
  EXPECT_FALSE(MachineModel::from_json(m.to_json(), MachineModel{}, "test").vector_gathers);
  const auto rejects = [](const char* json, const char* message) {
    EXPECT_THAT([&] { MachineModel::from_json(json, MachineModel{}, "m.json"); },
                testing::ThrowsMessage<Error>(HasSubstr(message)))
        << json;
  };
  rejects(R"({"run_bandwidth": 3})", "'run_bandwidth' must be an array of objects");
  rejects(R"({"run_bandwidth": [{"bytes": 512, "read": 0.5}]})",
          "'run_bandwidth' must be an array of objects");
  rejects(R"({"run_bandwidth": [{"bytes": 512, "read": 0.5, "write": 1.5}]})",
          "shares must be in (0, 1], got 1.5 at entry 0");
  rejects(R"({"run_bandwidth": [{"bytes": 512, "read": 0.5, "write": 0.5},
                                {"bytes": 256, "read": 0.5, "write": 0.5}]})",
          "bytes must be positive and ascending, got 256 at entry 1");
  rejects(R"({"vector_gathers": 1})", "field 'vector_gathers' must be true or false, got 1");
  EXPECT_EQ(back.l2_window_share, 1.0); // not measured: windows from the L2 no slower
  m.l2_window_share = 0.7;
  EXPECT_EQ(MachineModel::from_json(m.to_json(), MachineModel{}, "test").l2_window_share, 0.7);
  rejects(R"({"l2_window_share": "fast"})", "field 'l2_window_share' must be a number");
  rejects(R"({"l2_window_share": 0})", "l2_window_share must be in (0, 1], got 0");
  rejects(R"({"l2_window_share": 1.5})", "l2_window_share must be in (0, 1], got 1.5");
}

TEST(TileMetrics, LiveDataIsPricedByItsRowRuns) {
  // Unsharp's group: a tile 266 columns wide reads rows of 270 floats of
  // the image and writes rows of 266; a strip of whole rows reads and
  // writes one run a tile (its rows join up).
  const Pipeline unsharp = apps::find_app("unsharp").build();
  const autoschedule::PipelineModel model(unsharp, {});
  const autoschedule::GroupFacts group = unsharp_group(model);
  ASSERT_TRUE(group.ok) << group.why;
  const autoschedule::TileMetrics tile = autoschedule::measure_tile(model, group, {1, 177, 266});
  const autoschedule::TileMetrics strip = autoschedule::measure_tile(model, group, {1, 6, 4256});
  const auto runs = [](const autoschedule::TileMetrics& t) {
    std::vector<std::pair<double, bool>> r;
    for (const autoschedule::TileMetrics::Stream& s : t.streams)
      r.emplace_back(s.run_bytes, s.written);
    std::sort(r.begin(), r.end());
    return r;
  };
  using Runs = std::vector<std::pair<double, bool>>;
  EXPECT_EQ(runs(tile), (Runs{{266.0 * 4, true}, {270.0 * 4, false}}));
  EXPECT_EQ(runs(strip), (Runs{{6.0 * 4256 * 4, true}, {10.0 * 4256 * 4, false}}));

  // Not measured, the live data is its bytes; measured, short runs cost
  // more, and so the model takes longer rows.
  MachineModel flat = two_cores_with_1_mib_l2();
  const autoschedule::CostComponents plain = autoschedule::cost_components(group, tile, flat);
  EXPECT_DOUBLE_EQ(plain.live_data, (tile.live_in_bytes + tile.live_out_bytes) / tile.useful / 16);
  MachineModel steep = flat;
  steep.run_bandwidth = {{1024, 0.5, 0.5}, {65536, 1.0, 1.0}};
  EXPECT_NEAR(autoschedule::cost_components(group, tile, steep).live_data / plain.live_data, 1.97,
              0.02);
  EXPECT_DOUBLE_EQ(autoschedule::cost_components(group, strip, steep).live_data,
                   autoschedule::cost_components(group, strip, flat).live_data);

  // Harris in one group on a two-core machine with 512 KiB of L2 and AVX2:
  // squarish tiles with rows of 128 where every run streams alike; longer
  // rows where short runs take half the bandwidth.
  const Pipeline harris = apps::find_app("harris").build();
  const autoschedule::PipelineModel harris_model(harris, {});
  std::vector<int> all(static_cast<std::size_t>(harris_model.size()));
  std::iota(all.begin(), all.end(), 0);
  MachineModel avx2 = flat;
  avx2.l2_bytes = 512 * 1024;
  avx2.vector_bytes = 32;
  const auto row = [&](const std::vector<MachineModel::RunShare>& curve) {
    MachineModel machine = avx2;
    machine.run_bandwidth = curve;
    const autoschedule::CpuCostModel cpu(harris_model, {}, machine);
    return cpu.evaluate(all).group.tile_sizes.back();
  };
  EXPECT_EQ(row({}), 128);
  EXPECT_GE(row(steep.run_bandwidth), 256);
}

TEST(CostComponents, SizeDifferenceCountsTheDimensionsTheTileCuts) {
  // bilateral_grid's histogram (15 bins of intensity) fused with blurz (11
  // bins, the group's space): a tile spanning the bins whole leaves no tile
  // part-filled, each stage loops its own extent, so the stages do not
  // differ; a tile that cuts only the bins prices their difference there.
  const Pipeline p = apps::find_app("bilateral_grid").build();
  const autoschedule::PipelineModel model(p, {});
  const autoschedule::GroupFacts facts = autoschedule::group_facts(
      model, members_named(model, {"input_repeat_edge", "grid", "blurz"}), true, 3);
  ASSERT_TRUE(facts.ok) << facts.why;
  using Extents = std::vector<std::int64_t>;
  ASSERT_EQ(facts.space, (Extents{2, 325, 197, 11}));
  ASSERT_EQ(facts.extents, (std::vector<Extents>{{2, 325, 197, 15}, {2, 325, 197, 11}}));
  const MachineModel machine = two_cores_with_1_mib_l2();
  const auto difference = [&](const Extents& tile) {
    return autoschedule::cost_components(facts, autoschedule::measure_tile(model, facts, tile),
                                         machine)
        .size_difference;
  };
  EXPECT_EQ(difference({2, 109, 99, 11}), 0);
  // The extents 15 and 11: a standard deviation of 2 about their mean of 13.
  EXPECT_NEAR(difference({2, 325, 197, 4}), 2.0 / 13, 1e-12);
  // Cut in three dimensions, two of them equal: the mean over the three.
  EXPECT_NEAR(difference({2, 109, 99, 4}), 2.0 / 13 / 3, 1e-12);
}

TEST(TileMetrics, RowWindowCountsTheRowsReadAgainFromRowToRow) {
  // unsharp's group: blurx reads five rows of the image (through its
  // boundary condition, inlined), and the inlined blury reads blurx along
  // the row; sharpen and mask read the image and blurx at their own point.
  // Five image rows and one blurx row, four bytes a point each.
  const Pipeline unsharp = apps::find_app("unsharp").build();
  const autoschedule::PipelineModel unsharp_model(unsharp, {});
  const autoschedule::GroupFacts unsharp_facts = unsharp_group(unsharp_model);
  ASSERT_TRUE(unsharp_facts.ok) << unsharp_facts.why;
  EXPECT_EQ(autoschedule::row_window_bytes_per_point(unsharp_model, unsharp_facts), 24);
  // blur: blurx reads three image rows, blury one blurx row.
  const Pipeline blur = apps::find_app("blur").build();
  const autoschedule::PipelineModel blur_model(blur, {});
  const autoschedule::GroupFacts blur_facts =
      autoschedule::group_facts(blur_model, members_named(blur_model, {"blurx", "blury"}), true, 3);
  ASSERT_TRUE(blur_facts.ok) << blur_facts.why;
  EXPECT_EQ(autoschedule::row_window_bytes_per_point(blur_model, blur_facts), 16);
}

TEST(CpuCostModel, AStripWhoseRowWindowSpillsTheL1IsCutWhereTheL2ServesItSlowly) {
  // unsharp's group on a core with a 48 KiB L1 and 2 MiB of L2: whole rows
  // of 4256 points leave 100 KiB of rows to read again, more than 70% of
  // the L1. Where the L2 serves them as fast (the built-in 1), a strip of
  // whole rows; where at 0.65 of the L1's speed (the Intel guest), the
  // strip's rows cut to InnerMostTileSize (512, evened out over 4256 to 9
  // tiles of 480), its height the budget's.
  const Pipeline p = apps::find_app("unsharp").build();
  const autoschedule::PipelineModel model(p, {});
  const std::vector<int> members =
      members_named(model, {"img_constant_exterior", "blurx", "blury", "sharpen", "mask"});
  MachineModel machine = two_cores_with_1_mib_l2();
  machine.l1_bytes = 48 * 1024;
  machine.l2_bytes = 2048 * 1024;
  const autoschedule::GroupDecision fast =
      autoschedule::CpuCostModel(model, {}, machine).evaluate(members);
  ASSERT_TRUE(fast.valid) << fast.why_invalid;
  EXPECT_EQ(fast.group.tile_sizes.back(), 4256);
  machine.l2_window_share = 0.65;
  const autoschedule::GroupDecision slow =
      autoschedule::CpuCostModel(model, {}, machine).evaluate(members);
  ASSERT_TRUE(slow.valid) << slow.why_invalid;
  EXPECT_EQ(slow.group.tile_sizes.back(), 480);
  EXPECT_LT(slow.group.tile_sizes[1], 4 * 52); // not grown into a tall tile
  EXPECT_THAT(slow.group.reasons, Contains(HasSubstr("its rows cut")));
  // On an L1 of 8 KiB, rows of 480 would still leave 11 KiB, more than 70%
  // of it: cutting them would not bring the window into the L1, and the
  // strip stays whole.
  machine.l1_bytes = 8 * 1024;
  const autoschedule::GroupDecision tiny =
      autoschedule::CpuCostModel(model, {}, machine).evaluate(members);
  ASSERT_TRUE(tiny.valid) << tiny.why_invalid;
  EXPECT_THAT(tiny.group.reasons, Not(Contains(HasSubstr("its rows cut"))));
}

// Every app under every automatic scheduler: a valid schedule (auto_schedule
// validates it), the same on a second run, in well under the paper's times.
TEST(AutoSchedule, EveryAppUnderEverySchedulerIsValidAndDeterministic) {
  for (const apps::App& app : apps::all_apps()) {
    const Pipeline p = app.build();
    for (SchedulerKind kind :
         {SchedulerKind::DP, SchedulerKind::Greedy, SchedulerKind::HalideGreedy}) {
      AutoScheduleOptions o;
      o.scheduler = kind;
      AutoScheduleReport report;
      const Schedule a = auto_schedule(p, o, &report);
      const Schedule b = auto_schedule(p, o);
      EXPECT_EQ(a.to_json(), b.to_json()) << app.name << " " << scheduler_name(kind);
      EXPECT_EQ(report.groups.size(), a.groups.size());
      EXPECT_GT(report.groups_evaluated, 0);
      std::set<std::string> seen;
      for (const GroupSchedule& g : a.groups)
        for (const std::string& s : g.stages)
          EXPECT_TRUE(seen.insert(s).second) << s << " in two groups";
      EXPECT_EQ(seen.size(), p.stages().size());
    }
  }
}

TEST(AutoSchedule, EstimatesDecideTheTiles) {
  const Pipeline p = apps::find_app("blur").build();
  AutoScheduleOptions small, large;
  small.estimates = {{"R", 64}, {"C", 100}};
  large.estimates = {{"R", 4000}, {"C", 6000}};
  AutoScheduleReport report;
  const Schedule s = auto_schedule(p, small, &report);
  EXPECT_EQ(report.estimates.at("C").i, 100);
  const Schedule l = auto_schedule(p, large);
  ASSERT_FALSE(l.groups.front().tile_sizes.empty());
  EXPECT_NE(s.to_json(), l.to_json());
}

TEST(AutoSchedule, AssumesASizeForParametersWithoutEstimates) {
  const Pipeline p = testing_support::sample_blur(); // no defaults
  AutoScheduleReport report;
  auto_schedule(p, {}, &report);
  EXPECT_EQ(report.estimates.at("R").i, 1000);
  ASSERT_FALSE(report.notes.empty());
  EXPECT_THAT(report.notes.front(),
              HasSubstr("no estimate or default for parameter C: assumed 1000"));
}

TEST(AutoSchedule, ReportsItsSearch) {
  const Pipeline p = apps::find_app("harris").build();
  AutoScheduleReport report;
  auto_schedule(p, {}, &report);
  const std::string text = autoschedule_report_text(report);
  EXPECT_THAT(text, HasSubstr("scheduler dp: 1 groups"));
  EXPECT_THAT(text, HasSubstr("groupings enumerated"));
  EXPECT_THAT(autoschedule_report_json(report), HasSubstr("\"groups_evaluated\""));
  EXPECT_EQ(report.rounds, std::vector<int>{0}); // 11 stages: Alg. 1, no limit
}

TEST(AutoSchedule, RejectsBadOptions) {
  const Pipeline p = apps::find_app("blur").build();
  AutoScheduleOptions o;
  o.cache_fill = 0;
  EXPECT_THAT([&] { auto_schedule(p, o); },
              testing::ThrowsMessage<Error>(HasSubstr("cache_fill must be in (0, 1]")));
  o = {};
  o.greedy_tile_sizes = {};
  EXPECT_THAT([&] { auto_schedule(p, o); },
              testing::ThrowsMessage<Error>(HasSubstr("greedy_tile_sizes")));
  o = {};
  MachineModel m;
  m.cores = 0;
  o.machine = m;
  EXPECT_THAT([&] { auto_schedule(p, o); },
              testing::ThrowsMessage<Error>(HasSubstr("cores must be positive")));
}

// compile(p) schedules with dp once: the schedule is kept beside the JIT's
// shared objects and read back on the next compile.
TEST(AutoSchedule, ASecondCompileReadsTheScheduleFromTheCache) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("trapeze_schedules_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  CompileOptions options;
  options.cache_dir = dir.string();
  const Pipeline p = apps::find_app("harris").build();
  bool cached = true;
  const Schedule first = cached_auto_schedule(p, options, &cached);
  EXPECT_FALSE(cached);
  const Schedule second = cached_auto_schedule(p, options, &cached);
  EXPECT_TRUE(cached);
  EXPECT_EQ(first.to_json(), second.to_json());
  // Other options are another entry.
  options.scheduling.scheduler = SchedulerKind::Greedy;
  cached_auto_schedule(p, options, &cached);
  EXPECT_FALSE(cached);
  // A damaged entry is ignored and rewritten.
  int entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir / "schedules")) {
    std::ofstream(e.path()) << "{ not json";
    ++entries;
  }
  EXPECT_EQ(entries, 2);
  options.scheduling.scheduler = SchedulerKind::DP;
  EXPECT_EQ(cached_auto_schedule(p, options, &cached).to_json(), first.to_json());
  EXPECT_FALSE(cached);
  cached_auto_schedule(p, options, &cached);
  EXPECT_TRUE(cached);
  std::filesystem::remove_all(dir);
}

// PolyMage-A: every candidate measured once, kept in the results file, a
// stopped run resumed, a file for another pipeline refused.
TEST(Autotune, MeasuresResumesAndStops) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("trapeze_autotune_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const Pipeline p = testing_support::sample_blur();
  const ParamValues params = {{"R", std::int64_t{40}}, {"C", std::int64_t{50}}};
  BufferMap inputs;
  inputs.emplace("img", Buffer(ScalarType::Float32, {42, 52}));
  AutotuneOptions o;
  o.tile_sizes = {4, 16};
  o.thresholds = {0.4};
  o.reps = 1;
  o.results_file = (dir / "r.jsonl").string();
  // Stopped after the first candidate: the best so far, and a resumable file.
  std::atomic<bool> stop{false};
  o.stop = &stop;
  int calls = 0;
  o.progress = [&](const AutotuneProgress& at) {
    ++calls;
    EXPECT_EQ(at.total, 4);
    EXPECT_GT(at.best_ms, 0);
    stop = true;
  };
  AutotuneResult r = autotune(p, params, inputs, o);
  EXPECT_TRUE(r.stopped);
  EXPECT_EQ(r.measured, 1);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(r.best_tiles, (std::vector<std::int64_t>{4, 4}));
  // Resumed: the first candidate is read back, the other three measured.
  stop = false;
  o.progress = {};
  r = autotune(p, params, inputs, o);
  EXPECT_FALSE(r.stopped);
  EXPECT_GE(r.resumed, 1); // and any whose schedule equals one measured
  EXPECT_GE(r.measured, 1);
  EXPECT_EQ(r.resumed + r.measured, 4);
  EXPECT_EQ(r.total, 4);
  r.best.validate(p);
  // Everything read back the third time.
  r = autotune(p, params, inputs, o);
  EXPECT_EQ(r.measured, 0);
  EXPECT_EQ(r.resumed, 4);
  // The same file for another size is refused.
  EXPECT_THAT(
      [&] {
        autotune(p, {{"R", std::int64_t{30}}, {"C", std::int64_t{50}}}, inputs, o);
      },
      testing::ThrowsMessage<Error>(HasSubstr("is for another pipeline, size")));
  std::filesystem::remove_all(dir);
}

TEST(GreedySchedulers, PolyMageStopsAtItsOverlapThreshold) {
  const Pipeline p = apps::find_app("mg_jacobi2d_v_1000").build();
  AutoScheduleOptions loose, tight;
  loose.scheduler = tight.scheduler = SchedulerKind::Greedy;
  loose.greedy_overlap_threshold = 0.9;
  tight.greedy_overlap_threshold = 0.05;
  const std::size_t many = auto_schedule(p, tight).groups.size();
  const std::size_t few = auto_schedule(p, loose).groups.size();
  EXPECT_LT(few, many);
  for (const GroupSchedule& g : auto_schedule(p, loose).groups)
    if (g.stages.size() > 1) {
      EXPECT_EQ(g.tile_sizes, (std::vector<std::int64_t>{32, 256}));
    }
}

TEST(GreedySchedulers, HalideMergesOnlyWhatPaysUnderItsModel) {
  const Pipeline p = apps::find_app("unsharp").build();
  AutoScheduleOptions o;
  o.scheduler = SchedulerKind::HalideGreedy;
  AutoScheduleReport report;
  const Schedule s = auto_schedule(p, o, &report);
  EXPECT_LT(s.groups.size(), p.stages().size()); // the blurs fuse: less traffic
  for (const GroupSchedule& g : s.groups)
    for (std::int64_t t : g.tile_sizes) // powers of two, or a whole dimension
      EXPECT_TRUE((t & (t - 1)) == 0 || t == 3 || t == 2832 || t == 4256) << t;
}

} // namespace
} // namespace trapeze
