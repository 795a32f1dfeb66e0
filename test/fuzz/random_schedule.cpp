// Random schedules: see random_schedule.h.
#include "fuzz/random_schedule.h"

#include "analysis/alignment.h"
#include "trapeze/autoschedule.h"
#include "trapeze/error.h"

#include <algorithm>
#include <set>
#include <vector>

namespace trapeze::fuzz {

namespace {

using ir::FunctionPtr;

bool is_reduction(const ir::Function& f) { return f.definition().is_reduction(); }

// True if the groups (stage index -> group id) form no cycle.
bool acyclic(const Pipeline& p, const std::map<std::string, std::size_t>& index,
             const std::vector<std::size_t>& group_of) {
  const std::size_t n = group_of.size();
  std::vector<std::set<std::size_t>> next(n);
  for (const FunctionPtr& consumer : p.stages())
    for (const FunctionPtr& producer : p.producer_stages(*consumer)) {
      const std::size_t a = group_of[index.at(producer->name())];
      const std::size_t b = group_of[index.at(consumer->name())];
      if (a != b) next[a].insert(b);
    }
  std::vector<int> state(n, 0);
  bool ok = true;
  const auto visit = [&](const auto& self, std::size_t g) -> void {
    state[g] = 1;
    for (std::size_t m : next[g]) {
      if (state[m] == 1) ok = false;
      if (state[m] == 0) self(self, m);
    }
    state[g] = 2;
  };
  for (std::size_t g = 0; g < n; ++g)
    if (state[g] == 0) visit(visit, g);
  return ok;
}

std::int64_t tile_size(FuzzRng& rng) {
  const std::int64_t r = rng.uniform(0, 99);
  if (r < 10) return 1;
  if (r < 45) return rng.uniform(2, 5);
  if (r < 80) return rng.uniform(6, 20);
  if (r < 90) return 1000; // larger than any fuzz domain
  return rng.chance(0.5) ? 32 : 64;
}

// The number of dimensions of a group's aligned space (0 if it has none).
std::size_t space_dims(const Pipeline& p, const std::vector<std::string>& stages) {
  std::vector<const ir::Function*> members;
  for (const std::string& s : stages)
    members.push_back(p.stage(s).get());
  const analysis::GroupAlignment a = analysis::align_and_scale(p, members);
  if (a.ok) return a.common_dims.size();
  std::size_t most = 0; // a guess; validate will name the real problem
  for (const ir::Function* f : members)
    most = std::max(most, static_cast<std::size_t>(f->dimensions()));
  return most;
}

} // namespace

Schedule draw_schedule(const RandomPipeline& rp, FuzzRng& rng) {
  const Pipeline& p = rp.pipeline;
  const auto& stages = p.stages();
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < stages.size(); ++i)
    index[stages[i]->name()] = i;

  // Grouping: fuse edges at random, with an appetite drawn per schedule.
  std::vector<std::size_t> group_of(stages.size());
  for (std::size_t i = 0; i < stages.size(); ++i)
    group_of[i] = i;
  const double appetite = rng.unit();
  // Whether a reduction joins its consumer's group comes from a generator of
  // its own, so that the other draws of a seed stay what they were.
  FuzzRng reductions(rp.seed ^ 0x2545f4914f6cdd1dull);
  FuzzRng widths(rp.seed ^ 0x9e3779b97f4a7c15ull);  // vector_bytes: a stream of its own too
  FuzzRng fetches(rp.seed ^ 0xc2b2ae3d27d4eb4full); // prefetch: and one of its own
  for (const FunctionPtr& consumer : stages) {
    if (is_reduction(*consumer)) continue;
    for (const FunctionPtr& producer : p.producer_stages(*consumer)) {
      if (rp.data_dependent_edges.count({producer->name(), consumer->name()})) continue;
      // Nor a boundary condition with the stage it extends: its clamped reads
      // are no constant dependence (docs/dsl.md, "Boundary conditions").
      if (consumer->definition().boundary) continue;
      if (is_reduction(*producer)) {
        if (!reductions.chance(0.35)) continue; // fused: each tile computes its part of it
      } else if (!rng.chance(appetite)) {
        continue;
      }
      const std::size_t from = group_of[index.at(producer->name())];
      const std::size_t to = group_of[index.at(consumer->name())];
      if (from == to) continue;
      std::vector<std::size_t> merged = group_of;
      for (std::size_t& g : merged)
        if (g == from) g = to;
      if (acyclic(p, index, merged)) group_of = merged;
    }
  }

  Schedule s;
  std::map<std::size_t, std::size_t> slot; // group id -> position in s.groups
  for (std::size_t i = 0; i < stages.size(); ++i) {
    if (!slot.count(group_of[i])) {
      slot[group_of[i]] = s.groups.size();
      s.groups.emplace_back();
    }
    s.groups[slot[group_of[i]]].stages.push_back(stages[i]->name());
  }
  // The order of groups and of stages within a group must not matter.
  if (rng.chance(0.3)) std::reverse(s.groups.begin(), s.groups.end());

  for (GroupSchedule& g : s.groups) {
    if (g.stages.size() > 1 && rng.chance(0.3)) std::reverse(g.stages.begin(), g.stages.end());
    const bool single = g.stages.size() == 1;
    const bool reduction = single && is_reduction(*p.stage(g.stages[0]));
    const bool tiled = !reduction && rng.chance(single ? 0.3 : 0.9);
    const std::size_t dims = tiled || !single
                                 ? space_dims(p, g.stages)
                                 : static_cast<std::size_t>(p.stage(g.stages[0])->dimensions());
    if (tiled) {
      for (std::size_t d = 0; d < dims; ++d)
        g.tile_sizes.push_back(tile_size(rng));
      g.shape = rng.pick(
          std::vector<TileShape>{TileShape::Scalene, TileShape::PolyMage, TileShape::Rectangle});
      if (rng.chance(0.2))
        for (std::size_t d = 0; d < dims; ++d)
          g.inner_tile_sizes.push_back(rng.uniform(1, std::min<std::int64_t>(g.tile_sizes[d], 40)));
      g.parallel_tile_dims = static_cast<int>(rng.uniform(0, static_cast<std::int64_t>(dims)));
    } else {
      g.parallel_tile_dims = static_cast<int>(
          rng.uniform(0, std::max<std::int64_t>(1, static_cast<std::int64_t>(dims))));
    }
    g.vectorize = rng.chance(0.5);
    g.intra_tile_fusion = rng.chance(0.5);
    // From the reductions' own stream, so that every seed keeps its other draws.
    if (reduction) g.reassociate_float_sums = reductions.chance(0.5);
    // A nest of a fused or tiled group in narrower vectors now and then (the
    // results must not change).
    if ((tiled || !single) && widths.chance(0.3))
      g.vector_bytes[g.stages[static_cast<std::size_t>(
          widths.uniform(0, static_cast<std::int64_t>(g.stages.size()) - 1))]] =
          static_cast<int>(std::int64_t{16} << widths.uniform(0, 2));
    // A live-in of a tiled group prefetched now and then, 1 to 8 rows ahead
    // (a hint: the results must not change).
    if (tiled && fetches.chance(0.4)) {
      const std::set<std::string> in_group(g.stages.begin(), g.stages.end());
      std::vector<std::string> live_ins;
      for (const std::string& name : g.stages) {
        for (const FunctionPtr& producer : p.producer_stages(*p.stage(name)))
          if (!in_group.count(producer->name())) live_ins.push_back(producer->name());
        for (const auto& input : p.producer_inputs(*p.stage(name)))
          live_ins.push_back(input->name());
      }
      if (!live_ins.empty())
        g.prefetch[live_ins[static_cast<std::size_t>(
            fetches.uniform(0, static_cast<std::int64_t>(live_ins.size()) - 1))]] =
            static_cast<int>(fetches.uniform(1, max_prefetch_rows));
    }
    // Unset (the default) half the time, else any schedule.
    if (rng.chance(0.5)) {
      constexpr ParallelSchedule kinds[] = {ParallelSchedule::Static, ParallelSchedule::Dynamic,
                                            ParallelSchedule::Chunked};
      g.parallel_schedule = kinds[rng.uniform(0, 2)];
    }

    // Storage.
    const std::set<std::string> members(g.stages.begin(), g.stages.end());
    for (const std::string& name : g.stages) {
      const FunctionPtr& f = p.stage(name);
      bool live_out = p.is_output(*f);
      for (const FunctionPtr& c : p.consumers(*f))
        live_out = live_out || !members.count(c->name());
      if (live_out || single) {
        if (rng.chance(0.3)) s.storage[name] = Storage::Full;
        continue;
      }
      // Stages with cases inline too (their cases resolve by their boxes).
      const std::int64_t r = rng.uniform(0, 99);
      if (!is_reduction(*f) && r < 35)
        s.storage[name] = Storage::Inlined;
      else if (r < 55)
        s.storage[name] = Storage::Full;
      else if (r < 75)
        s.storage[name] = Storage::Scratchpad;
    }
  }
  return s;
}

Schedule automatic_schedule(const RandomPipeline& rp, FuzzRng& rng, std::string& source) {
  AutoScheduleOptions o;
  const std::int64_t r = rng.uniform(0, 99);
  o.scheduler = r < 60   ? SchedulerKind::DP
                : r < 80 ? SchedulerKind::Greedy
                         : SchedulerKind::HalideGreedy;
  source = scheduler_name(o.scheduler);
  // A random machine and estimates, so that tiles of every shape come out:
  // caches from a few points to far more than any fuzz domain.
  MachineModel m;
  m.cores = static_cast<int>(rng.uniform(1, 8));
  m.l1_bytes = std::int64_t{1} << rng.uniform(6, 16);
  m.l2_bytes = m.l1_bytes << rng.uniform(0, 6);
  m.vector_bytes = static_cast<int>(std::int64_t{8} << rng.uniform(0, 3));
  // Inlining's rule (v) never, as on this machine, or on every stencil of
  // a stencil it may take.
  m.ops_per_byte = rng.pick(std::vector<double>{0.5, 3.0, 1e6});
  // Short row runs at full bandwidth, or at a fraction of it (longer rows).
  if (rng.chance(0.5)) {
    const std::vector<double> shares = {0.2, 0.5, 0.9};
    m.run_bandwidth = {
        {rng.pick(std::vector<std::int64_t>{64, 1024}), rng.pick(shares), rng.pick(shares)},
        {65536, 1.0, 1.0}};
  }
  m.source = "fuzz";
  o.machine = m;
  o.innermost_tile = rng.pick(std::vector<std::int64_t>{1, 4, 16, 256, 8192});
  o.multi_level = rng.chance(0.5);
  o.inline_stages = rng.chance(0.8);
  for (const auto& [name, v] : rp.params)
    if (!v.is_float) o.estimates[name] = rng.chance(0.5) ? v.i : v.i * rng.uniform(1, 50);
  o.greedy_tile_sizes = {rng.uniform(1, 8), rng.uniform(1, 64)};
  o.greedy_overlap_threshold = rng.pick(std::vector<double>{0.2, 0.4, 0.5, 2.0});
  // Row windows read back from the L2 as fast as from the L1, or slowly
  // (strips of whole rows cut). Drawn last, so that a seed's draws above
  // (its machine, options and estimates) stay what they were.
  o.machine->l2_window_share = rng.pick(std::vector<double>{1.0, 0.5});
  // dp: now and then Alg. 5's bounded rounds (2 to 4 stages a group first)
  // and the pairs refined after them, which the fuzzer's pipelines are too
  // small to reach by default. Drawn last, as above.
  if (rng.chance(0.3)) o.group_limit = static_cast<int>(rng.uniform(2, 4));
  return auto_schedule(rp.pipeline, o);
}

ScheduleChoice random_schedule(const RandomPipeline& rp, std::uint64_t seed, int attempts) {
  FuzzRng rng(seed ^ 0x5C4ED01Eull);
  ScheduleChoice choice;
  if (rng.chance(0.3)) {
    choice.schedule = automatic_schedule(rp, rng, choice.source);
    return choice;
  }
  for (int a = 0; a < attempts; ++a) {
    Schedule s = draw_schedule(rp, rng);
    try {
      s.validate(rp.pipeline);
      choice.schedule = std::move(s);
      return choice;
    } catch (const Error& e) {
      ++choice.rejected;
      const std::string what = e.what();
      // "schedule: group 1 [a, b] cannot ..." -> the words after the group.
      const std::size_t close = what.find(']');
      std::string reason = what.substr(close == std::string::npos ? 0 : close + 2, 40);
      ++choice.reasons[reason];
    }
  }
  choice.schedule = Schedule::naive(rp.pipeline);
  choice.fell_back = true;
  return choice;
}

} // namespace trapeze::fuzz
