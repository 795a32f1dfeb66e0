// group_facts: can these stages be one group, and what does it look like.
#include "autoschedule/group_facts.h"

#include "autoschedule/inlining.h"
#include "plan/buffer_sharing.h"
#include "trapeze/error.h"

#include <algorithm>
#include <numeric>

namespace trapeze::autoschedule {

namespace {

bool contains(const std::vector<int>& sorted, int v) {
  return std::binary_search(sorted.begin(), sorted.end(), v);
}

// Connected through producer-consumer edges inside the group (as
// Schedule::validate demands of a fused group).
bool connected(const PipelineModel& model, const std::vector<int>& members) {
  std::vector<int> seen = {members.front()}, stack = {members.front()};
  while (!stack.empty()) {
    const int v = stack.back();
    stack.pop_back();
    for (const std::vector<int>* next : {&model.stage(v).producers, &model.stage(v).consumers})
      for (int u : *next)
        if (contains(members, u) && std::find(seen.begin(), seen.end(), u) == seen.end()) {
          seen.push_back(u);
          stack.push_back(u);
        }
  }
  return seen.size() == members.size();
}

// Per member, the buffer it is stored in as lowering lays buffers out
// (share_scratchpads): those of one type whose lifetimes are apart share
// one. Member m is live from its own nest to the last nest that reads it
// (through inlined readers, theirs), or to the tile's end if it is live
// out; the nests run in the members' order. -1 for inlined members.
std::vector<int> shared_buffers(const PipelineModel& model, const GroupFacts& facts) {
  const std::size_t n = facts.members.size();
  std::vector<std::size_t> last(n, 0);
  for (std::size_t m = n; m-- > 0;) {
    last[m] = facts.live_out(m) ? n : m;
    for (std::size_t j = m + 1; j < n; ++j)
      if (member_reads(model, facts, j, m))
        last[m] = std::max(last[m], facts.stored(j) ? j : last[j]);
  }
  std::vector<plan::BufferLifetime> lives;
  for (std::size_t m = 0; m < n; ++m)
    if (facts.stored(m))
      lives.push_back({model.stage(facts.members[m]).function->type(), m, last[m]});
  const std::vector<int> memory = plan::share_memories(lives);
  std::vector<int> buffer_of(n, -1);
  for (std::size_t m = 0, stored = 0; m < n; ++m)
    if (facts.stored(m)) buffer_of[m] = memory[stored++];
  return buffer_of;
}

// GroupFacts::cached: the stored members another member reads, or every
// stored member where there are none.
std::vector<bool> cached_members(const PipelineModel& model, const GroupFacts& facts) {
  const std::size_t n = facts.members.size();
  std::vector<bool> cached(n, false);
  bool any = false;
  for (std::size_t m = 0; m < n; ++m) {
    if (!facts.stored(m)) continue;
    for (std::size_t j = m + 1; j < n && !cached[m]; ++j)
      cached[m] = member_reads(model, facts, j, m);
    any = any || cached[m];
  }
  if (!any)
    for (std::size_t m = 0; m < n; ++m)
      cached[m] = facts.stored(m);
  return cached;
}

// GroupFacts::live_ins_read_back: per member, the stored members whose
// nests load what it loads (its own, or, inlined, its consumers' in the
// group); a producer outside loaded by two nests or more is read back.
std::vector<GroupFacts::LiveInReadBack> live_ins_read_back(const PipelineModel& model,
                                                           const GroupFacts& facts) {
  const std::size_t n = facts.members.size();
  std::vector<std::vector<std::size_t>> nests(n);
  for (std::size_t m = n; m-- > 0;) {
    if (facts.stored(m)) {
      nests[m] = {m};
      continue;
    }
    for (std::size_t j = m + 1; j < n; ++j)
      if (member_reads(model, facts, j, m))
        nests[m].insert(nests[m].end(), nests[j].begin(), nests[j].end());
    std::sort(nests[m].begin(), nests[m].end());
    nests[m].erase(std::unique(nests[m].begin(), nests[m].end()), nests[m].end());
  }
  // Per producer outside, in the order first read: its first read and the
  // nests that load it.
  std::vector<GroupFacts::LiveInReadBack> first_reads;
  std::vector<std::vector<std::size_t>> loading;
  for (std::size_t m = 0; m < n; ++m)
    for (std::size_t e : model.stage(facts.members[m]).in_edges) {
      const analysis::EdgeDependence& edge = model.edges()[e];
      if (produced_in_group(model, facts, edge)) continue;
      const void* producer = producer_identity(edge);
      std::size_t i = 0;
      while (i < first_reads.size() && first_reads[i].producer != producer)
        ++i;
      if (i == first_reads.size()) {
        first_reads.push_back({producer, m, e});
        loading.emplace_back();
      }
      loading[i].insert(loading[i].end(), nests[m].begin(), nests[m].end());
    }
  std::vector<GroupFacts::LiveInReadBack> read_back;
  for (std::size_t i = 0; i < first_reads.size(); ++i) {
    std::sort(loading[i].begin(), loading[i].end());
    if (std::unique(loading[i].begin(), loading[i].end()) - loading[i].begin() >= 2)
      read_back.push_back(first_reads[i]);
  }
  return read_back;
}

} // namespace

std::vector<int> folded_into_reductions(const PipelineModel& model, const std::vector<int>& members,
                                        bool inline_stages) {
  std::vector<int> folded;
  if (!inline_stages) return folded;
  // Consumers first, so that a chain of boundary conditions folds in one
  // pass (as Schedule::aligned_stages folds it). Only stages that compute
  // nothing: folding one costs its readers an index clamp a read, where a
  // stage that computes would be recomputed at every read of the reduction's
  // window (bilateral_grid's histogram reads each point 1.27 times).
  for (auto it = members.rbegin(); it != members.rend(); ++it) {
    const StageFacts& s = model.stage(*it);
    if (s.reduction || s.output || !s.relabels || s.consumers.empty()) continue;
    const bool into_reductions = std::all_of(s.consumers.begin(), s.consumers.end(), [&](int c) {
      return contains(members, c) && (model.stage(c).reduction || contains(folded, c));
    });
    if (into_reductions) folded.insert(std::upper_bound(folded.begin(), folded.end(), *it), *it);
  }
  return folded;
}

bool member_reads(const PipelineModel& model, const GroupFacts& facts, std::size_t j,
                  std::size_t m) {
  const std::vector<int>& producers = model.stage(facts.members[j]).producers;
  return std::binary_search(producers.begin(), producers.end(), facts.members[m]);
}

bool produced_in_group(const PipelineModel& model, const GroupFacts& facts,
                       const analysis::EdgeDependence& edge) {
  const int producer = model.producer_of(edge);
  return producer >= 0 &&
         std::find(facts.members.begin(), facts.members.end(), producer) != facts.members.end();
}

std::vector<int> dimension_votes(const plan::GroupGeometry& g, int from_last,
                                 const std::vector<bool>& counted) {
  TRAPEZE_ASSERT(counted.size() == g.stages.size(), "votes counted for another group");
  std::vector<int> votes(g.common_dims(), 0);
  for (std::size_t s = 0; s < g.stages.size(); ++s) {
    const int k = g.stages[s]->dimensions() - 1 - from_last;
    if (!counted[s] || k < 0) continue;
    for (std::size_t c = 0; c < votes.size(); ++c)
      if (g.stage_dim[s][c] == k) ++votes[c];
  }
  return votes;
}

GroupFacts group_facts(const PipelineModel& model, const std::vector<int>& members,
                       bool inline_stages, double ops_per_byte) {
  GroupFacts facts;
  const Pipeline& p = model.pipeline();
  const auto fail = [&](std::string why) {
    facts.why = std::move(why);
    return facts;
  };
  if (members.size() > 1) {
    if (!connected(model, members)) return fail("not connected");
    facts.folded = folded_into_reductions(model, members, inline_stages);
    // A reduction reads only earlier groups' stages, directly or through
    // the stages folded into it (Schedule::validate's rule).
    for (int m : members) {
      if (!model.stage(m).reduction) continue;
      std::vector<int> readers = {m};
      while (!readers.empty()) {
        const int reader = readers.back();
        readers.pop_back();
        for (int producer : model.stage(reader).producers) {
          if (!contains(members, producer)) continue;
          if (contains(facts.folded, producer)) {
            readers.push_back(producer);
            continue;
          }
          return fail("the reduction '" + model.stage(m).function->name() +
                      "' would be fused with its producer '" +
                      model.stage(producer).function->name() + "'" +
                      (reader == m
                           ? ""
                           : " (read through '" + model.stage(reader).function->name() + "')"));
        }
      }
    }
  }
  std::vector<const ir::Function*> functions;
  // Only the edges into the members: a candidate then costs its own size, not the pipeline's.
  std::vector<const analysis::EdgeDependence*> edges;
  for (int m : members) {
    if (contains(facts.folded, m)) continue;
    functions.push_back(model.stage(m).function.get());
    for (std::size_t e : model.stage(m).in_edges)
      edges.push_back(&model.edges()[e]);
  }
  analysis::GroupAlignment alignment = analysis::align_and_scale(p, functions, edges);
  if (!alignment.ok) return fail(alignment.reason);
  const auto role = [&](const ir::Function& f) {
    plan::StageRole r;
    const StageFacts& s = model.stage(model.index_of(f));
    r.live_out = s.output || std::any_of(s.consumers.begin(), s.consumers.end(),
                                         [&](int c) { return !contains(members, c); });
    r.full = r.live_out;
    return r;
  };
  std::string name = "candidate (";
  for (std::size_t i = 0; i < functions.size(); ++i)
    name += (i ? ", " : "") + functions[i]->name();
  facts.geometry = plan::group_geometry(p, name + ")", std::move(alignment), role, model.prover());
  for (const ir::FunctionPtr& f : facts.geometry.stages)
    facts.geometry.demanded.push_back(model.demanded().at(f->name()));
  const plan::GroupGeometry& g = facts.geometry;
  for (const ir::FunctionPtr& f : g.stages)
    facts.members.push_back(model.index_of(*f));
  facts.reach = plan::region_reach(g, TileShape::Scalene);
  facts.inlining = inline_stages && facts.fused()
                       ? choose_inlining(model, facts.members, g.live_out, ops_per_byte)
                       : std::vector<InlineDecision>(facts.members.size());
  const std::size_t dims = g.common_dims();
  facts.space.assign(dims, 1);
  facts.extents.assign(facts.members.size(), std::vector<std::int64_t>(dims, 1));
  std::vector<std::int64_t> lo(dims, 0), hi(dims, -1);
  std::vector<bool> seen(dims, false);
  for (std::size_t s = 0; s < facts.members.size(); ++s) {
    const Box& demanded = model.stage(facts.members[s]).demanded;
    for (std::size_t c = 0; c < dims; ++c) {
      const int k = g.stage_dim[s][c];
      if (k < 0) continue;
      facts.extents[s][c] = std::max<std::int64_t>(1, demanded.extent(k));
      if (!g.full[s]) continue;
      const std::int64_t a = g.scale[s][c] * demanded.lo[static_cast<std::size_t>(k)],
                         b = g.scale[s][c] * demanded.hi[static_cast<std::size_t>(k)];
      lo[c] = seen[c] ? std::min(lo[c], a) : a;
      hi[c] = seen[c] ? std::max(hi[c], b) : b;
      seen[c] = true;
    }
  }
  for (std::size_t c = 0; c < dims; ++c)
    if (seen[c]) facts.space[c] = std::max<std::int64_t>(1, hi[c] - lo[c] + 1);
  const std::vector<int> last_dims =
      dimension_votes(g, 0, std::vector<bool>(facts.members.size(), true));
  for (std::size_t c = 0; c < dims; ++c)
    if (last_dims[c] >= last_dims[facts.inner]) facts.inner = c;
  facts.buffer_of = shared_buffers(model, facts);
  facts.cached = cached_members(model, facts);
  facts.live_ins_read_back = live_ins_read_back(model, facts);
  facts.ok = true;
  return facts;
}

} // namespace trapeze::autoschedule
