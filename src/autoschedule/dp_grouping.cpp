// dp_grouping and incremental_dp: Alg. 1 and 5 of paper 001.
#include "autoschedule/dp_grouping.h"

#include "trapeze/error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <unordered_map>

namespace trapeze::autoschedule {

namespace {

using Bits = std::vector<std::uint64_t>;

bool test(const Bits& b, int v) {
  return (b[static_cast<std::size_t>(v) / 64] >> (static_cast<unsigned>(v) % 64)) & 1u;
}
void set(Bits& b, int v) { b[static_cast<std::size_t>(v) / 64] |= std::uint64_t{1} << (v % 64); }

// For the memo's sets of finalized vertices and the enumerator's groups (Bits),
// and the groups a search met (sorted stage lists).
template <typename Word> std::size_t hash_words(const Word* words, std::size_t count) {
  std::uint64_t h = 0x9e3779b97f4a7c15ull;
  for (std::size_t i = 0; i < count; ++i)
    h = (h ^ static_cast<std::uint64_t>(words[i])) * 0x100000001b3ull + (h >> 29);
  // Mixed, so that the low bits (BitsSet's slot) depend on every word's bits.
  h = (h ^ (h >> 33)) * 0xff51afd7ed558ccdull;
  return static_cast<std::size_t>(h ^ (h >> 33));
}
struct WordsHash {
  template <typename Words> std::size_t operator()(const Words& words) const {
    return hash_words(words.data(), words.size());
  }
};

// A set of vertex sets (Bits of one length): open addressing over one pool
// of words, as the enumerator meets each candidate several times and keeps
// hundreds of thousands on large rounds.
class BitsSet {
public:
  explicit BitsSet(std::size_t words) : words_(words), slots_(64, 0) {}

  /// true if `key` was not in the set.
  bool insert(const Bits& key) {
    if (2 * (count_ + 1) > slots_.size()) grow();
    std::size_t i = slot_of(key.data());
    if (slots_[i] != 0) return false;
    pool_.insert(pool_.end(), key.begin(), key.end());
    slots_[i] = static_cast<std::uint32_t>(++count_);
    return true;
  }

private:
  const std::uint64_t* key_at(std::uint32_t slot) const {
    return pool_.data() + (slot - 1) * words_;
  }
  // The slot holding `key`, or the empty one where it goes.
  std::size_t slot_of(const std::uint64_t* key) const {
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = hash_words(key, words_) & mask;
    while (slots_[i] != 0 && !std::equal(key, key + words_, key_at(slots_[i])))
      i = (i + 1) & mask;
    return i;
  }
  void grow() {
    std::vector<std::uint32_t> old = std::move(slots_);
    slots_.assign(old.size() * 2, 0);
    for (std::uint32_t slot : old)
      if (slot != 0) slots_[slot_of(key_at(slot))] = slot;
  }

  std::size_t words_;
  std::vector<std::uint64_t> pool_;
  std::vector<std::uint32_t> slots_; ///< 1 + the key's index in the pool; 0: empty
  std::size_t count_ = 0;
};

// The candidate groups from the finalized set `done` (see the header): the
// connected sets of unfinalized vertices, at most `limit` of them, closed
// under predecessors outside `done`, whose least vertex r is ready. They are
// grown from {r}: a vertex joins as a successor of the set together with its
// unfinalized ancestors (which a closed set must hold). Every closed connected
// set is reached this way (a vertex of it next to the part grown so far is a
// successor of that part, or it would be an ancestor already in it), each is
// kept once, and one that needs a vertex below r is left to that vertex's turn.
// Sets are bit sets while growing (the enumeration dominates large rounds);
// the candidates come out as sorted vertex lists, in the order first met.
class CandidateEnumerator {
public:
  CandidateEnumerator(const VertexGraph& g, const Bits& done, int limit, bool least_first,
                      std::size_t cap)
      : g_(g), done_(done), limit_(limit), least_first_(least_first), cap_(cap),
        seen_(done.size()) {}

  /// The candidates; `overflow` set if there were more than the cap.
  std::vector<std::vector<int>> run(bool& overflow) {
    for (int r = 0; r < g_.size() && !overflow_; ++r) {
      if (test(done_, r) || !ready(r)) continue;
      // (Groups of different seeds differ in their least vertex: one set
      // of those seen serves them all.)
      seed_ = r;
      Bits start(done_.size(), 0);
      set(start, r);
      if (g_.is_alone(r)) {
        out_.push_back({r});
      } else {
        grow(start, 1);
      }
      if (least_first_) break; // only groups of the least unfinalized vertex
    }
    overflow = overflow_;
    return std::move(out_);
  }

private:
  bool ready(int v) const {
    const auto& preds = g_.preds[static_cast<std::size_t>(v)];
    return std::all_of(preds.begin(), preds.end(), [&](int p) { return test(done_, p); });
  }

  // `group` (of `size` vertices) with `v` and v's unfinalized ancestors, into
  // `out`; false if one of them lies below the seed or the result exceeds
  // the limit.
  bool with_ancestors(const Bits& group, int size, int v, Bits& out, int& out_size) {
    out = group;
    out_size = size;
    stack_.assign(1, v);
    while (!stack_.empty()) {
      const int u = stack_.back();
      stack_.pop_back();
      if (test(out, u)) continue;
      if (u < seed_ || g_.is_alone(u)) return false;
      set(out, u);
      if (++out_size > limit_ && limit_ > 0) return false;
      for (int p : g_.preds[static_cast<std::size_t>(u)])
        if (!test(done_, p)) stack_.push_back(p);
    }
    return true;
  }

  void grow(const Bits& group, int size) {
    if (!seen_.insert(group)) return;
    if (out_.size() >= cap_) {
      overflow_ = true;
      return;
    }
    std::vector<int> vertices;
    for (int v = seed_; v < g_.size(); ++v)
      if (test(group, v)) vertices.push_back(v);
    out_.push_back(vertices); // (a copy: the recursion below appends to out_)
    if (limit_ > 0 && size >= limit_) return;
    Bits bigger;
    int bigger_size = 0;
    for (int v : vertices)
      for (int s : g_.succs[static_cast<std::size_t>(v)]) {
        if (overflow_) return;
        if (test(group, s)) continue;
        if (with_ancestors(group, size, s, bigger, bigger_size)) grow(bigger, bigger_size);
      }
  }

  const VertexGraph& g_;
  const Bits& done_;
  const int limit_;
  const bool least_first_;
  const std::size_t cap_;
  bool overflow_ = false;
  int seed_ = 0;
  BitsSet seen_;
  std::vector<int> stack_;
  std::vector<std::vector<int>> out_;
};

struct Memo {
  double cost = 0;
  std::vector<int> choice; ///< the group taken from this state (empty: the end)
};

} // namespace

VertexGraph stage_graph(const std::vector<std::vector<int>>& consumers) {
  VertexGraph g;
  const std::size_t n = consumers.size();
  g.stages.resize(n);
  g.preds.resize(n);
  g.succs.resize(n);
  for (std::size_t v = 0; v < n; ++v) {
    g.stages[v] = {static_cast<int>(v)};
    for (int c : consumers[v]) {
      TRAPEZE_ASSERT(static_cast<std::size_t>(c) > v, "stage graph not in topological order");
      g.succs[v].push_back(c);
      g.preds[static_cast<std::size_t>(c)].push_back(static_cast<int>(v));
    }
  }
  for (auto& list : g.preds)
    std::sort(list.begin(), list.end());
  for (auto& list : g.succs) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  for (auto& list : g.preds)
    list.erase(std::unique(list.begin(), list.end()), list.end());
  return g;
}

VertexGraph coalesce(const VertexGraph& graph, const std::vector<std::vector<int>>& groups) {
  // Order the groups topologically (Kahn, least first vertex among the ready).
  const std::size_t k = groups.size();
  std::vector<int> group_of(static_cast<std::size_t>(graph.size()), -1);
  for (std::size_t i = 0; i < k; ++i)
    for (int v : groups[i])
      group_of[static_cast<std::size_t>(v)] = static_cast<int>(i);
  std::vector<std::vector<int>> succ(k);
  std::vector<int> indegree(k, 0);
  for (int v = 0; v < graph.size(); ++v)
    for (int s : graph.succs[static_cast<std::size_t>(v)]) {
      const int a = group_of[static_cast<std::size_t>(v)],
                b = group_of[static_cast<std::size_t>(s)];
      if (a == b) continue;
      auto& list = succ[static_cast<std::size_t>(a)];
      if (std::find(list.begin(), list.end(), b) == list.end()) {
        list.push_back(b);
        ++indegree[static_cast<std::size_t>(b)];
      }
    }
  std::vector<int> order, position(k, -1);
  std::vector<bool> placed(k, false);
  while (order.size() < k) {
    int best = -1;
    for (std::size_t i = 0; i < k; ++i)
      if (!placed[i] && indegree[i] == 0 &&
          (best < 0 || groups[i].front() < groups[static_cast<std::size_t>(best)].front()))
        best = static_cast<int>(i);
    TRAPEZE_ASSERT(best >= 0, "coalescing groups that form a cycle");
    placed[static_cast<std::size_t>(best)] = true;
    position[static_cast<std::size_t>(best)] = static_cast<int>(order.size());
    order.push_back(best);
    for (int s : succ[static_cast<std::size_t>(best)])
      --indegree[static_cast<std::size_t>(s)];
  }
  VertexGraph out;
  out.stages.resize(k);
  out.preds.resize(k);
  out.succs.resize(k);
  for (std::size_t i = 0; i < k; ++i) {
    const std::size_t at = static_cast<std::size_t>(position[i]);
    for (int v : groups[i])
      out.stages[at].insert(out.stages[at].end(), graph.stages[static_cast<std::size_t>(v)].begin(),
                            graph.stages[static_cast<std::size_t>(v)].end());
    std::sort(out.stages[at].begin(), out.stages[at].end());
    for (int s : succ[i]) {
      out.succs[at].push_back(position[static_cast<std::size_t>(s)]);
      out.preds[static_cast<std::size_t>(position[static_cast<std::size_t>(s)])].push_back(
          static_cast<int>(at));
    }
  }
  for (auto* lists : {&out.preds, &out.succs})
    for (auto& list : *lists)
      std::sort(list.begin(), list.end());
  return out;
}

bool ReachedGroups::add(const std::vector<int>& stages) { return groups_.insert(stages).second; }

std::size_t ReachedGroups::Hash::operator()(const std::vector<int>& stages) const {
  return WordsHash{}(stages);
}

namespace {

// Alg. 1's states from the empty set, in an order that depends on the graph
// alone: a state's candidates in turn, each after the state it leads to.
// With `cost`, the minimum; without, only the walk, to learn whether the
// round fits its budget before a group is priced (`reached` gains the
// groups it meets, as a priced walk would have priced them).
DpResult walk(const VertexGraph& graph, const GroupCostFn* cost, int group_limit, DpOrder order,
              const DpBudget& budget, ReachedGroups& reached) {
  DpResult result;
  const int n = graph.size();
  const std::size_t words = (static_cast<std::size_t>(n) + 63) / 64;
  std::unordered_map<Bits, Memo, WordsHash> memo;
  const auto stages_of = [&](const std::vector<int>& vertices) {
    std::vector<int> stages;
    for (int v : vertices)
      stages.insert(stages.end(), graph.stages[static_cast<std::size_t>(v)].begin(),
                    graph.stages[static_cast<std::size_t>(v)].end());
    std::sort(stages.begin(), stages.end());
    return stages;
  };
  const auto finished = [&](const Bits& done) {
    for (int v = 0; v < n; ++v)
      if (!test(done, v)) return false;
    return true;
  };
  // An explicit stack instead of recursion: a chain of n stages is n deep.
  struct Frame {
    Bits done;
    std::vector<std::vector<int>> candidates;
    std::size_t next = 0;
    Memo best;
  };
  std::vector<Frame> stack;
  bool overflow = false;
  std::int64_t new_groups = 0;
  const auto push = [&](Bits done) {
    Frame f;
    f.candidates = CandidateEnumerator(graph, done, group_limit, order == DpOrder::LeastFirst,
                                       budget.candidates_per_state)
                       .run(overflow);
    f.done = std::move(done);
    f.best.cost = std::numeric_limits<double>::infinity();
    stack.push_back(std::move(f));
  };
  if (n == 0) {
    result.complete = true;
    result.cost = 0;
    return result;
  }
  push(Bits(words, 0));
  while (!stack.empty()) {
    if (overflow || result.candidates > budget.candidates || new_groups > budget.new_groups)
      return result;
    Frame& f = stack.back();
    if (f.next == f.candidates.size()) {
      Bits done = std::move(f.done);
      Memo best = std::move(f.best);
      stack.pop_back();
      memo.emplace(std::move(done), std::move(best));
      continue;
    }
    const std::vector<int>& candidate = f.candidates[f.next];
    Bits after = f.done;
    for (int v : candidate)
      set(after, v);
    double rest = 0;
    if (!finished(after)) {
      const auto it = memo.find(after);
      if (it == memo.end()) {
        push(std::move(after)); // `f` is invalid from here; come back to this candidate
        continue;
      }
      rest = it->second.cost;
    }
    ++result.candidates;
    double total = rest;
    if (cost) {
      total += (*cost)(stages_of(candidate));
    } else if (reached.add(stages_of(candidate))) {
      ++new_groups;
    }
    if (total < f.best.cost) {
      f.best.cost = total;
      f.best.choice = candidate;
    }
    ++f.next;
  }
  result.states = static_cast<std::int64_t>(memo.size());
  // Follow the choices from the empty set.
  Bits done(words, 0);
  const Memo& root = memo.at(done);
  result.cost = root.cost;
  while (!finished(done)) {
    const Memo& m = memo.at(done);
    TRAPEZE_ASSERT(!m.choice.empty(), "a DP state without a grouping");
    result.groups.push_back(m.choice);
    for (int v : m.choice)
      set(done, v);
  }
  result.complete = true;
  return result;
}

} // namespace

DpResult dp_grouping(const VertexGraph& graph, const GroupCostFn& cost, int group_limit,
                     DpOrder order, const DpBudget& budget, ReachedGroups* reached) {
  ReachedGroups own;
  ReachedGroups& groups = reached ? *reached : own;
  // The walk without prices first: a round too large for its budget is
  // given up having priced nothing (pricing is nearly all of a walk's time).
  const DpResult unpriced = walk(graph, nullptr, group_limit, order, budget, groups);
  if (!unpriced.complete) return unpriced;
  return walk(graph, &cost, group_limit, order, budget, groups);
}

namespace {

// A pair's regrouping is given up past a tenth of a round's budget of
// groups: the pairs whose regrouping paid on the apps (pyramid_blend's,
// local_laplacian's, a W-cycle's) met 40-230 groups; the largest pairs meet
// thousands, and their search would cost seconds.
constexpr std::int64_t pair_budget_share = 10;

// The stage graph with the groups of `partition` (stage sets) as vertices,
// alone, except groups a and b, undone into their stages.
VertexGraph with_pair_undone(const VertexGraph& stages,
                             const std::vector<std::vector<int>>& partition, std::size_t a,
                             std::size_t b) {
  std::vector<std::vector<int>> parts;
  std::vector<bool> kept(static_cast<std::size_t>(stages.size()), false);
  for (std::size_t i = 0; i < partition.size(); ++i) {
    if (i == a || i == b) {
      for (int s : partition[i])
        parts.push_back({s});
      continue;
    }
    parts.push_back(partition[i]);
    for (int s : partition[i])
      kept[static_cast<std::size_t>(s)] = true;
  }
  VertexGraph g = coalesce(stages, parts);
  g.alone.resize(static_cast<std::size_t>(g.size()));
  for (std::size_t v = 0; v < g.alone.size(); ++v)
    g.alone[v] = kept[static_cast<std::size_t>(g.stages[v].front())];
  return g;
}

} // namespace

void refine_pairs(const VertexGraph& stages, const GroupCostFn& cost, const DpBudget& budget,
                  IncrementalResult& result) {
  DpBudget pair_budget = budget;
  pair_budget.new_groups = budget.new_groups / pair_budget_share;
  // The pairs together meet at most a round's budget of groups (the apps'
  // pairs meet 1,200-5,100 in all, their gains within the first 2,700), so
  // that a pipeline of many groups is not refined for long.
  std::int64_t met_by_pairs = 0;
  // A pair is searched again only once one of its groups has changed.
  std::set<std::pair<std::vector<int>, std::vector<int>>> tried;
  for (bool improved = true; improved;) {
    improved = false;
    // The groups as vertices: a vertex's successors are the groups that read it.
    const VertexGraph grouped = coalesce(stages, result.groups);
    const std::vector<std::vector<int>>& groups = grouped.stages;
    for (std::size_t a = 0; a < groups.size() && !improved; ++a) {
      for (int consumer : grouped.succs[a]) {
        const std::size_t b = static_cast<std::size_t>(consumer);
        if (met_by_pairs >= budget.new_groups) return;
        if (!tried.insert({groups[a], groups[b]}).second) continue;
        ReachedGroups met; // this pair's own budget
        const VertexGraph g = with_pair_undone(stages, groups, a, b);
        const DpResult r = dp_grouping(g, cost, 0, DpOrder::Exact, pair_budget, &met);
        met_by_pairs += static_cast<std::int64_t>(met.size());
        result.states += r.states;
        result.candidates += r.candidates;
        // The kept groups are costed in r.cost as they are in result.cost:
        // the totals compare the pair's two groupings.
        if (!r.complete || !(r.cost < result.cost - 1e-9 * std::abs(result.cost))) continue;
        result.groups = coalesce(g, r.groups).stages;
        result.cost = r.cost;
        ++result.refined_pairs;
        improved = true;
        break;
      }
    }
  }
}

IncrementalResult incremental_dp(const VertexGraph& graph, const GroupCostFn& cost,
                                 int initial_limit, int step, const DpBudget& budget) {
  IncrementalResult out;
  ReachedGroups reached;
  const auto accumulate = [&](const DpResult& r) {
    out.states += r.states;
    out.candidates += r.candidates;
  };
  // One round: exact if it fits the budget, else least-first.
  const auto round = [&](const VertexGraph& g, int limit) {
    DpResult r = dp_grouping(g, cost, limit, DpOrder::Exact, budget, &reached);
    accumulate(r);
    if (r.complete) return r;
    out.least_first = true;
    // Least-first with one vertex a group is a single path, which no budget
    // can make shorter: it always runs to the end.
    DpBudget unlimited;
    unlimited.candidates = std::numeric_limits<std::int64_t>::max();
    r = dp_grouping(g, cost, limit, DpOrder::LeastFirst, limit <= 1 ? unlimited : budget, &reached);
    accumulate(r);
    return r;
  };
  if (initial_limit <= 0) {
    const DpResult whole = dp_grouping(graph, cost, 0, DpOrder::Exact, budget, &reached);
    accumulate(whole);
    if (whole.complete) {
      out.groups = coalesce(graph, whole.groups).stages;
      out.cost = whole.cost;
      out.rounds = {0};
      return out;
    }
    initial_limit = 8;
  }
  step = std::max(step, 2);
  VertexGraph current = graph;
  int limit = initial_limit;
  std::int64_t max_size = limit;
  for (;;) {
    DpResult r = round(current, limit);
    if (!r.complete) {
      if (limit == 0) break; // the last, unbounded round: keep what the bounded ones found
      // Least-first with one vertex a group is a single path: always completes.
      TRAPEZE_ASSERT(limit > 1, "the DP ran out of budget with groups of one vertex");
      limit /= 2;
      if (out.rounds.empty()) max_size = limit;
      continue;
    }
    out.rounds.push_back(limit);
    out.cost = r.cost;
    const bool merged = static_cast<int>(r.groups.size()) < current.size();
    current = coalesce(current, r.groups);
    if (limit == 0) break;
    // Once a bound spans the whole graph, a last round without one (the
    // paper's "run again without any group limit") on what is left. A round
    // that merged nothing left the graph as it was, so the paper's further
    // rounds of `step` would only repeat it: the last round comes next. Its
    // groups may be cheaper than any of `step` vertices (camera_pipe at a
    // 512 KiB L2: three groups whose pairs price higher than each apart,
    // and all three together lower).
    if (!merged || max_size >= graph.size()) {
      limit = 0;
    } else {
      limit = step;
      max_size *= step;
    }
  }
  out.groups = current.stages;
  refine_pairs(graph, cost, budget, out);
  return out;
}

} // namespace trapeze::autoschedule
