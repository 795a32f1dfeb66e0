// auto_schedule: run the chosen scheduler and write its decisions as a
// Schedule, with a report of how it got there.
#include "trapeze/autoschedule.h"

#include "autoschedule/cpu_cost_model.h"
#include "autoschedule/dp_grouping.h"
#include "autoschedule/greedy.h"
#include "autoschedule/pipeline_model.h"
#include "trapeze/error.h"

#include <fmt/core.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>

namespace trapeze {

namespace {

using namespace autoschedule;

// dp's group limit when the options give none (AutoScheduleOptions::group_limit).
constexpr int unbounded_dp_stage_limit = 24;
constexpr int first_round_limit = 16;

struct Outcome {
  std::vector<GroupDecision> groups;
  std::int64_t groupings = 0, evaluated = 0;
  std::vector<int> rounds;
  std::vector<std::string> notes;
};

Outcome run_dp(const PipelineModel& model, const AutoScheduleOptions& options,
               const MachineModel& machine) {
  const CpuCostModel cpu(model, options, machine);
  DecisionCache cache(cpu);
  std::vector<std::vector<int>> consumers;
  for (const StageFacts& s : model.stages())
    consumers.push_back(s.consumers);
  DpBudget budget;
  budget.new_groups = options.evaluation_budget;
  // No limit by default on small pipelines (Alg. 1 weighs every grouping);
  // larger ones start Alg. 5 at 16 stages a group, so that the search never
  // weighs groups of a hundred stages that tile badly anyway.
  const int limit = options.group_limit > 0                    ? options.group_limit
                    : model.size() <= unbounded_dp_stage_limit ? 0
                                                               : first_round_limit;
  const IncrementalResult r = incremental_dp(
      stage_graph(consumers), [&](const std::vector<int>& stages) { return cache.cost(stages); },
      limit, options.group_limit_step, budget);
  Outcome out;
  for (const std::vector<int>& group : r.groups)
    out.groups.push_back(cache.get(group));
  out.groupings = r.states;
  out.evaluated = cache.evaluated();
  out.rounds = r.rounds;
  if (r.rounds.size() > 1 || (!r.rounds.empty() && r.rounds.front() != 0))
    out.notes.push_back(fmt::format(
        "bounded incremental DP (Alg. 5): group limits {} per round{}", fmt::join(r.rounds, ", "),
        r.least_first ? "; some rounds least-first (too many groupings to weigh all)" : ""));
  if (r.refined_pairs > 0)
    out.notes.push_back(fmt::format(
        "after the rounds, {} pair{} of groups regrouped by the exact DP at a lower cost (the "
        "rounds had coalesced their stages apart)",
        r.refined_pairs, r.refined_pairs == 1 ? "" : "s"));
  return out;
}

Outcome run_greedy(const GreedyResult& r) {
  Outcome out;
  out.groups = r.groups;
  out.groupings = r.merges_considered;
  out.evaluated = r.groups_evaluated;
  return out;
}

// The decisions as a Schedule: groups in order, inlined stages' storage
// (the rest takes the defaults: live-outs full, others scratchpads).
Schedule build_schedule(const std::vector<GroupDecision>& decisions, SchedulerKind kind) {
  Schedule s;
  for (const GroupDecision& d : decisions) {
    TRAPEZE_ASSERT(d.valid, "a scheduler chose an invalid group: " + d.why_invalid);
    GroupSchedule g = d.group;
    for (std::string& reason : g.reasons)
      reason = std::string(scheduler_name(kind)) + ": " + reason;
    s.groups.push_back(std::move(g));
    for (const std::string& stage : d.inlined)
      s.storage[stage] = Storage::Inlined;
  }
  return s;
}

} // namespace

const char* scheduler_name(SchedulerKind s) {
  switch (s) {
  case SchedulerKind::Naive: return "naive";
  case SchedulerKind::Greedy: return "greedy";
  case SchedulerKind::HalideGreedy: return "halide-greedy";
  case SchedulerKind::DP: return "dp";
  }
  return "?";
}

std::optional<SchedulerKind> parse_scheduler(const std::string& name) {
  for (SchedulerKind s : {SchedulerKind::Naive, SchedulerKind::Greedy, SchedulerKind::HalideGreedy,
                          SchedulerKind::DP})
    if (name == scheduler_name(s)) return s;
  return std::nullopt;
}

Schedule auto_schedule(const Pipeline& p, const AutoScheduleOptions& options,
                       AutoScheduleReport* report) {
  const auto start = std::chrono::steady_clock::now();
  const MachineModel machine = options.machine.value_or(MachineModel::host());
  machine.validate();
  if (options.cache_fill <= 0 || options.cache_fill > 1)
    throw Error(
        fmt::format("autoschedule: cache_fill must be in (0, 1], got {}", options.cache_fill));
  if (options.innermost_tile < 1)
    throw Error(fmt::format("autoschedule: innermost_tile must be positive, got {}",
                            options.innermost_tile));
  if (options.greedy_tile_sizes.empty() ||
      std::any_of(options.greedy_tile_sizes.begin(), options.greedy_tile_sizes.end(),
                  [](std::int64_t t) { return t < 1; }))
    throw Error("autoschedule: greedy_tile_sizes must be one or more positive sizes");
  Schedule schedule;
  Outcome outcome;
  std::optional<PipelineModel> model;
  if (options.scheduler == SchedulerKind::Naive) {
    schedule = Schedule::naive(p);
  } else {
    model.emplace(p, options.estimates);
    switch (options.scheduler) {
    case SchedulerKind::DP: outcome = run_dp(*model, options, machine); break;
    case SchedulerKind::Greedy:
      outcome = run_greedy(polymage_greedy(*model, options, machine));
      break;
    case SchedulerKind::HalideGreedy:
      outcome = run_greedy(halide_greedy(*model, options, machine));
      break;
    case SchedulerKind::Naive: break;
    }
    schedule = build_schedule(outcome.groups, options.scheduler);
    try {
      schedule.validate(p);
    } catch (const Error& e) {
      TRAPEZE_ASSERT(false, std::string("the ") + scheduler_name(options.scheduler) +
                                " scheduler made an invalid schedule: " + e.what());
    }
  }
  if (report) {
    AutoScheduleReport& r = *report;
    r = AutoScheduleReport{};
    r.scheduler = options.scheduler;
    r.machine = machine;
    if (model) {
      r.estimates = model->estimates();
      r.notes = model->notes();
    }
    r.notes.insert(r.notes.end(), outcome.notes.begin(), outcome.notes.end());
    r.groupings_enumerated = outcome.groupings;
    r.groups_evaluated = outcome.evaluated;
    r.rounds = outcome.rounds;
    for (const GroupDecision& d : outcome.groups) {
      r.groups.push_back(d.report);
      r.total_cost += d.cost;
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  return schedule;
}

std::string autoschedule_report_text(const AutoScheduleReport& r) {
  std::string out = fmt::format("scheduler {}: {} groups, total cost {:.4g}\n",
                                scheduler_name(r.scheduler), r.groups.size(), r.total_cost);
  const MachineModel& m = r.machine;
  out += fmt::format(
      "  machine      {} cores, L1 {} KiB, L2 {} KiB, L3 {} KiB, {}-byte vectors, {:g} ops/byte, "
      "row windows at {:.2f} ({})\n",
      m.cores, m.l1_bytes / 1024, m.l2_bytes / 1024, m.l3_bytes / 1024, m.vector_bytes,
      m.ops_per_byte, m.l2_window_share, m.source);
  std::vector<std::string> estimates;
  for (const auto& [name, v] : r.estimates)
    estimates.push_back(name + "=" + (v.is_float ? fmt::format("{}", v.f) : std::to_string(v.i)));
  if (!estimates.empty()) out += fmt::format("  estimates    {}\n", fmt::join(estimates, " "));
  out += fmt::format("  search       {} groupings enumerated, {} groups evaluated, {:.3f} s\n",
                     r.groupings_enumerated, r.groups_evaluated, r.seconds);
  for (const std::string& note : r.notes)
    out += "  note         " + note + "\n";
  for (std::size_t g = 0; g < r.groups.size(); ++g) {
    const GroupCostReport& c = r.groups[g];
    out += fmt::format("  group {}: {} ({}), cost {:.4g}: share {:.3g}; live data {:.3g}, idle "
                       "{:.3g}, overlap {:.3g}, size difference {:.3g}\n",
                       g, fmt::join(c.stages, ", "), c.tiling, c.cost, c.work_share, c.live_data,
                       c.cleanup, c.overlap, c.size_difference);
  }
  return out;
}

std::string autoschedule_report_json(const AutoScheduleReport& r) {
  nlohmann::ordered_json j;
  j["scheduler"] = scheduler_name(r.scheduler);
  j["machine"] = nlohmann::ordered_json::parse(r.machine.to_json());
  nlohmann::ordered_json estimates = nlohmann::ordered_json::object();
  for (const auto& [name, v] : r.estimates)
    estimates[name] = v.is_float ? nlohmann::ordered_json(v.f) : nlohmann::ordered_json(v.i);
  j["estimates"] = estimates;
  j["groupings_enumerated"] = r.groupings_enumerated;
  j["groups_evaluated"] = r.groups_evaluated;
  j["rounds"] = r.rounds;
  j["seconds"] = r.seconds;
  j["total_cost"] = r.total_cost;
  j["notes"] = r.notes;
  nlohmann::ordered_json groups = nlohmann::ordered_json::array();
  for (const GroupCostReport& c : r.groups) {
    nlohmann::ordered_json g;
    g["stages"] = c.stages;
    g["inlined"] = c.inlined;
    g["tile_sizes"] = c.tile_sizes;
    g["inner_tile_sizes"] = c.inner_tile_sizes;
    g["tiling"] = c.tiling;
    g["cost"] = c.cost;
    g["work_share"] = c.work_share;
    g["components"] = {{"live_data", c.live_data},
                       {"cleanup", c.cleanup},
                       {"overlap", c.overlap},
                       {"size_difference", c.size_difference}};
    groups.push_back(g);
  }
  j["groups"] = groups;
  return j.dump(2);
}

} // namespace trapeze
