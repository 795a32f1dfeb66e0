// The lowering driver. Every pass has the same shape: run it, time it, print
// the loop IR after it if asked. The list below is the order; each line says
// why a pass comes where it does.
#include "lower/lower.h"

#include "lower/large_stack.h"
#include "lower/passes.h"
#include "trapeze/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <iostream>

namespace trapeze::lower {

namespace {

using GroupPass = void (*)(GroupState&, LoweringState&);
using ModulePass = Stmt (*)(const Stmt&, const LoweringState&);

struct Pass {
  const char* name;
  GroupPass group = nullptr;   // runs on every group
  ModulePass module = nullptr; // runs on the whole statement
};

// The passes in order.
const std::vector<Pass>& passes() {
  static const std::vector<Pass> list = {
      // The skeleton first: every later group pass fills in a part of it.
      {"tile_loops", tile_loops},
      // Needs the tile's bounds; gives every Produce its box.
      {"bound_regions", bound_regions},
      // Narrows the boxes bound_regions gave to bands.
      {"inner_tiles", inner_tiles},
      // Needs the whole tile's boxes (the buffers' origins) and the buffers'
      // names before any Store to them exists.
      {"scratchpads", scratchpads},
      {"copy_out", copy_out},
      // Before inline_stages: an index is data-dependent as written in the
      // definition, and inlining may leave it a constant.
      {"clamp_indices", clamp_indices},
      // Rewrites definitions while they are still structured by case.
      {"inline_stages", inline_stages},
      // Needs the final boxes and the inlined values.
      {"partition_cases", partition_cases},
      // After partition_cases: parity tests are what its pieces leave.
      {"partition_parity", partition_parity},
      {"stage_loops", stage_loops},
      // Compares loop nests, so it runs once they exist.
      {"intra_tile_fusion", intra_tile_fusion},
      // Needs each nest's final loops (the fused ones one nest), inside the
      // functions outline_nests makes of them.
      {"prefetch_rows", prefetch_rows},
      // The nests are final: each one a function of its own.
      {"outline_nests", outline_nests},
      // The groups are complete: the buffers around them.
      {"full_buffers", nullptr, full_buffers},
      // Needs every buffer placed; a code generator prints the per-thread ones.
      {"hoist_scratchpads", nullptr, hoist_scratchpads},
      // Needs the per-thread buffers and the iterations' final statements.
      {"share_scratchpads", nullptr, share_scratchpads},
      // Last: what code generators rely on.
      {"validate", nullptr, validate},
  };
  return list;
}

Stmt groups_statement(const LoweringState& state) {
  std::vector<Stmt> groups;
  for (const GroupState& g : state.groups)
    groups.push_back(g.assemble());
  return Block::make(std::move(groups));
}

} // namespace

const std::vector<std::string>& pass_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const Pass& p : passes())
      out.push_back(p.name);
    return out;
  }();
  return names;
}

Module lower(const Pipeline& p, const Schedule& schedule, const LowerOptions& options) {
  return lower(plan::make_plan(p, schedule), options);
}

namespace {

Module run_passes(const plan::Plan& plan, const LowerOptions& options) {
  const std::vector<std::string>& names = pass_names();
  if (!options.print_after.empty() && options.print_after != "all" &&
      std::find(names.begin(), names.end(), options.print_after) == names.end())
    throw Error(fmt::format("--after {} names no lowering pass; use one of {}, or all",
                            options.print_after, fmt::join(names, ", ")));
  std::ostream& log = options.log ? *options.log : std::cerr;
  LoweringState state(plan);
  Module module{plan.pipeline, Stmt(), {}, {}, {}};
  Stmt body; // the whole statement, once the module passes run
  for (const Pass& pass : passes()) {
    const auto start = std::chrono::steady_clock::now();
    if (pass.group) {
      for (GroupState& g : state.groups)
        pass.group(g, state);
    } else {
      body = pass.module(body.defined() ? body : groups_statement(state), state);
    }
    const std::chrono::duration<double, std::milli> took = std::chrono::steady_clock::now() - start;
    module.passes.push_back({pass.name, took.count()});
    if (options.print_timing) log << fmt::format("pass {}: {:.3f} ms\n", pass.name, took.count());
    if (options.print_after == "all" || options.print_after == pass.name)
      log << "// --- loop IR after " << pass.name << " ---\n"
          << to_string(body.defined() ? body : groups_statement(state));
  }
  module.body = body;
  module.fused_sets.assign(plan.schedule.groups.size(), {});
  for (const GroupState& g : state.groups) {
    module.fused_sets[g.plan.index] = g.fused_sets;
    module.reassociated_sums.insert(g.reassociated_sums.begin(), g.reassociated_sums.end());
  }
  return module;
}

} // namespace

// On a large stack: the passes recurse as deep as the statement nests (large_stack.h).
Module lower(const plan::Plan& plan, const LowerOptions& options) {
  return on_large_stack([&] { return run_passes(plan, options); });
}

} // namespace trapeze::lower
