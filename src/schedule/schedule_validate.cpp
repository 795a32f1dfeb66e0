// Schedule::validate: does a schedule fit its pipeline? Every check names the
// group (by index and stages) or the stage, and says how to fix it.
#include "analysis/alignment.h"
#include "trapeze/error.h"
#include "trapeze/schedule.h"

#include <algorithm>
#include <cstddef>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <vector>

namespace trapeze {

namespace {

std::string join(const std::vector<std::string>& parts, const std::string& separator = ", ") {
  std::string s;
  for (const std::string& part : parts)
    s += (s.empty() ? "" : separator) + part;
  return s;
}

std::string join_numbers(const std::vector<std::int64_t>& numbers) {
  std::vector<std::string> parts;
  for (std::int64_t n : numbers)
    parts.push_back(std::to_string(n));
  return "[" + join(parts) + "]";
}

// "group 1 [blurx, blury]": how messages name a group.
std::string describe_group(const Schedule& s, std::size_t g) {
  return "group " + std::to_string(g) + " [" + join(s.groups[g].stages) + "]";
}

std::string stage_names(const Pipeline& p) {
  std::vector<std::string> names;
  for (const auto& f : p.stages())
    names.push_back(f->name());
  return join(names);
}

class Validator {
public:
  Validator(const Pipeline& p, const Schedule& s) : p_(p), s_(s) {}

  void run() {
    assign_groups();
    check_storage_names();
    for (std::size_t g = 0; g < s_.groups.size(); ++g)
      check_fusable(g);
    check_group_cycles();
    for (std::size_t g = 0; g < s_.groups.size(); ++g)
      check_tiles(g, space_dimensions(g));
    for (std::size_t g = 0; g < s_.groups.size(); ++g) {
      check_vector_bytes(g);
      check_prefetch(g);
    }
    check_storage();
  }

private:
  // Every stage in exactly one group, every name a stage of the pipeline.
  void assign_groups() {
    for (std::size_t g = 0; g < s_.groups.size(); ++g) {
      const GroupSchedule& group = s_.groups[g];
      if (group.stages.empty())
        throw Error("schedule: group " + std::to_string(g) +
                    " has no stages; remove it or list the stages it computes");
      for (const std::string& name : group.stages) {
        if (!has_stage(name))
          throw Error("schedule: " + describe_group(s_, g) + " names an unknown stage '" + name +
                      "'; the stages of pipeline '" + p_.name() + "' are: " + stage_names(p_));
        if (auto it = group_of_.find(name); it != group_of_.end()) {
          if (it->second == g)
            throw Error("schedule: " + describe_group(s_, g) + " lists " +
                        p_.stage(name)->describe() + " twice; list each stage once");
          throw Error("schedule: " + p_.stage(name)->describe() + " is in two groups, " +
                      describe_group(s_, it->second) + " and " + describe_group(s_, g) +
                      "; every stage must be in exactly one group: remove it from one of them");
        }
        group_of_[name] = g;
      }
    }
    for (const auto& f : p_.stages())
      if (!group_of_.count(f->name()))
        throw Error("schedule: " + f->describe() +
                    " is in no group; add it to a group (or a group of its own)");
  }

  void check_storage_names() const {
    for (const auto& [name, storage] : s_.storage)
      if (!has_stage(name))
        throw Error("schedule: storage names an unknown stage '" + name + "' (" +
                    storage_name(storage) + "); the stages of pipeline '" + p_.name() +
                    "' are: " + stage_names(p_));
  }

  // The groups run one after another, so the graph of groups (an edge from the
  // group of every producer to the group of its consumer) must be acyclic.
  void check_group_cycles() const {
    const std::size_t n = s_.groups.size();
    // For each pair of groups, the first stage edge that connects them (for messages).
    std::map<std::pair<std::size_t, std::size_t>, std::pair<std::string, std::string>> edges;
    for (const auto& consumer : p_.stages())
      for (const auto& producer : p_.producer_stages(*consumer)) {
        const std::size_t from = group_of_.at(producer->name()),
                          to = group_of_.at(consumer->name());
        if (from != to)
          edges.emplace(std::pair{from, to}, std::pair{producer->name(), consumer->name()});
      }
    std::vector<std::vector<std::size_t>> successors(n);
    for (const auto& [key, edge] : edges)
      successors[key.first].push_back(key.second);

    // Depth-first search; a back edge closes a cycle, which the stack spells out.
    // Iterative: a naive schedule of a chain of 100,000 stages has as many groups.
    std::vector<int> state(n, 0); // 0 unvisited, 1 on the stack, 2 done
    std::vector<std::size_t> stack;
    std::vector<std::size_t> next_successor; // per group on the stack: the next to follow
    const auto report = [&](std::size_t to) {
      std::vector<std::size_t> cycle(std::find(stack.begin(), stack.end(), to), stack.end());
      std::vector<std::string> groups, reads;
      for (std::size_t i = 0; i < cycle.size(); ++i) {
        const std::size_t a = cycle[i], b = i + 1 < cycle.size() ? cycle[i + 1] : to;
        groups.push_back(describe_group(s_, a));
        const auto& [producer, consumer] = edges.at({a, b});
        reads.push_back("'" + consumer + "' (group " + std::to_string(b) + ") reads '" + producer +
                        "' (group " + std::to_string(a) + ")");
      }
      throw Error("schedule: the groups " + join(groups, " and ") +
                  " form a cycle, so no order runs them one after another: " + join(reads, ", ") +
                  "; merge them into one group or move the stages so that each group only "
                  "reads groups computed before it");
    };
    const auto enter = [&](std::size_t g) {
      state[g] = 1;
      stack.push_back(g);
      next_successor.push_back(0);
    };
    for (std::size_t start = 0; start < n; ++start) {
      if (state[start] != 0) continue;
      enter(start);
      while (!stack.empty()) {
        const std::size_t g = stack.back();
        if (next_successor.back() == successors[g].size()) {
          stack.pop_back();
          next_successor.pop_back();
          state[g] = 2;
          continue;
        }
        const std::size_t next = successors[g][next_successor.back()++];
        if (state[next] == 1) report(next);
        if (state[next] == 0) enter(next);
      }
    }
  }

  std::vector<const ir::Function*> group_stages(std::size_t g) const {
    std::vector<const ir::Function*> stages;
    for (const std::string& name : s_.groups[g].stages)
      stages.push_back(p_.stage(name).get());
    return stages;
  }

  // Whether `f` reads, directly or through stages inlined into it, a stage
  // of group g that is not inlined.
  bool reads_computed_stage_of(const ir::Function& f, std::size_t g) const {
    for (const auto& producer : p_.producer_stages(f)) {
      if (group_of_.at(producer->name()) != g) continue;
      const auto it = s_.storage.find(producer->name());
      if (it == s_.storage.end() || it->second != Storage::Inlined) return true;
      if (reads_computed_stage_of(*producer, g)) return true;
    }
    return false;
  }

  // A fused group: connected; a reduction in it reads only stages of earlier
  // groups (a tile computes the part of it that the tile reads, from them),
  // or stages inlined into it that do.
  void check_fusable(std::size_t g) const {
    const std::vector<const ir::Function*> stages = group_stages(g);
    for (const ir::Function* f : stages) {
      if (!f->definition().is_reduction() || !reads_computed_stage_of(*f, g)) continue;
      for (const auto& producer : p_.producer_stages(*f))
        if (group_of_.at(producer->name()) == g)
          throw Error("schedule: " + describe_group(s_, g) + " fuses the reduction " +
                      f->describe() + " with its producer '" + producer->name() +
                      "'; a reduction in a fused group must read only stages of earlier groups "
                      "(each tile computes the part of it that the tile needs): put '" +
                      producer->name() + "' in an earlier group");
    }
    if (stages.size() > 1) check_connected(g, stages);
  }

  // The dimensions of the group's common space (their names): a single
  // stage's own, or those of the alignment of the fused stages (which fails
  // if a dependence cannot be made constant).
  std::vector<std::string> space_dimensions(std::size_t g) const {
    std::vector<const ir::Function*> stages;
    for (const std::string& name : s_.aligned_stages(p_, g))
      stages.push_back(p_.stage(name).get());
    if (stages.size() == 1 && s_.groups[g].tile_sizes.empty()) return stages.front()->vars();
    const analysis::GroupAlignment alignment = analysis::align_and_scale(p_, stages);
    if (!alignment.ok)
      throw Error("schedule: the dependences of " + describe_group(s_, g) +
                  " cannot be made constant: " + alignment.reason +
                  "; split the group so that these stages are in different groups");
    return alignment.common_dims;
  }

  // The stages of a fused group must be connected by producer-consumer edges
  // inside the group: otherwise fusing them shares nothing.
  void check_connected(std::size_t g, const std::vector<const ir::Function*>& stages) const {
    std::vector<std::size_t> root(stages.size());
    std::iota(root.begin(), root.end(), 0);
    const auto find = [&](std::size_t i) {
      while (root[i] != i)
        i = root[i] = root[root[i]];
      return i;
    };
    std::map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < stages.size(); ++i)
      index[stages[i]->name()] = i;
    for (std::size_t i = 0; i < stages.size(); ++i)
      for (const auto& producer : p_.producer_stages(*stages[i]))
        if (auto it = index.find(producer->name()); it != index.end())
          root[find(i)] = find(it->second);
    // Components in the order of their first stage in the group's list.
    std::map<std::size_t, std::vector<std::string>> components;
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < stages.size(); ++i) {
      const std::size_t r = find(i);
      if (!components.count(r)) order.push_back(r);
      components[r].push_back(stages[i]->name());
    }
    if (order.size() == 1) return;
    std::vector<std::string> parts;
    for (std::size_t r : order)
      parts.push_back("{" + join(components[r]) + "}");
    throw Error("schedule: " + describe_group(s_, g) +
                " is not connected: no producer-consumer edge inside the group joins " +
                join(parts, " and ") + "; put each of these parts in a group of its own");
  }

  // vector_bytes names stages of its own group, a group whose nests are
  // functions of their own (the width is a function attribute).
  void check_vector_bytes(std::size_t g) const {
    const GroupSchedule& group = s_.groups[g];
    const std::string where = "schedule: " + describe_group(s_, g);
    for (const auto& [stage, bytes] : group.vector_bytes) {
      if (std::find(group.stages.begin(), group.stages.end(), stage) == group.stages.end())
        throw Error(where + " gives vector_bytes for '" + stage +
                    "', which is not one of its stages");
      if (bytes != 16 && bytes != 32 && bytes != 64)
        throw Error(where + " gives vector_bytes " + std::to_string(bytes) + " for '" + stage +
                    "'; expected 16, 32 or 64");
      if (group.stages.size() == 1 && group.tile_sizes.empty())
        throw Error(where + " gives vector_bytes for '" + stage +
                    "', but a lone untiled stage runs as one parallel loop, not a nest of its "
                    "own; give the group tile_sizes, or remove vector_bytes");
    }
  }

  // prefetch names live-ins of a tiled group: inputs or stages of other
  // groups that its stages read (in memory: a stage another group reads is
  // stored in full), each 1 to max_prefetch_rows rows ahead.
  void check_prefetch(std::size_t g) const {
    const GroupSchedule& group = s_.groups[g];
    if (group.prefetch.empty()) return;
    const std::string where = "schedule: " + describe_group(s_, g);
    if (group.tile_sizes.empty())
      throw Error(where + " prefetches live-ins, but an untiled group streams whole rows, which "
                          "the hardware's prefetchers follow; give the group tile_sizes, or "
                          "remove prefetch");
    std::set<std::string> live_ins;
    for (const ir::Function* f : group_stages(g)) {
      for (const auto& producer : p_.producer_stages(*f))
        if (group_of_.at(producer->name()) != g) live_ins.insert(producer->name());
      for (const auto& input : p_.producer_inputs(*f))
        live_ins.insert(input->name());
    }
    for (const auto& [name, rows] : group.prefetch) {
      if (!live_ins.count(name))
        throw Error(where + " prefetches '" + name +
                    "', which is not one of its live-ins (an input or a stage of another group "
                    "that it reads): " +
                    (live_ins.empty()
                         ? std::string("it reads none")
                         : "its live-ins are " + join({live_ins.begin(), live_ins.end()})));
      if (rows < 1 || rows > max_prefetch_rows)
        throw Error(where + " prefetches '" + name + "' " + std::to_string(rows) +
                    " rows ahead; expected 1 to " + std::to_string(max_prefetch_rows));
    }
  }

  void check_tiles(std::size_t g, const std::vector<std::string>& space) const {
    const std::size_t dims = space.size();
    const GroupSchedule& group = s_.groups[g];
    const std::string where = "schedule: " + describe_group(s_, g);
    for (std::size_t d = 0; d < group.tile_sizes.size(); ++d)
      if (group.tile_sizes[d] <= 0)
        throw Error(where + " has tile size " + std::to_string(group.tile_sizes[d]) +
                    " in dimension " + std::to_string(d) + " of " + join_numbers(group.tile_sizes) +
                    "; tile sizes must be positive (leave tile_sizes empty for an untiled group)");
    if (!group.tile_sizes.empty() && group.tile_sizes.size() != dims)
      throw Error(where + " has " + std::to_string(group.tile_sizes.size()) + " tile sizes " +
                  join_numbers(group.tile_sizes) + " but its aligned space has " +
                  std::to_string(dims) + " dimensions (" + join(space) +
                  "); give one tile size per dimension, outermost first");
    if (!group.inner_tile_sizes.empty()) {
      if (group.tile_sizes.empty())
        throw Error(where + " has inner tile sizes " + join_numbers(group.inner_tile_sizes) +
                    " but is untiled; give tile_sizes too, or remove inner_tile_sizes");
      if (group.inner_tile_sizes.size() != group.tile_sizes.size())
        throw Error(where + " has " + std::to_string(group.inner_tile_sizes.size()) +
                    " inner tile sizes " + join_numbers(group.inner_tile_sizes) + " but " +
                    std::to_string(group.tile_sizes.size()) + " tile sizes " +
                    join_numbers(group.tile_sizes) + "; give one inner tile size per dimension");
      for (std::size_t d = 0; d < dims; ++d)
        if (group.inner_tile_sizes[d] <= 0 || group.inner_tile_sizes[d] > group.tile_sizes[d])
          throw Error(where + " has inner tile size " + std::to_string(group.inner_tile_sizes[d]) +
                      " in dimension " + std::to_string(d) + " but tile size " +
                      std::to_string(group.tile_sizes[d]) +
                      "; an inner tile must be positive and no larger than the tile");
    }
    // An untiled group's parallel loops are its own loops; one is always allowed
    // (the naive schedule's, even for a stage without dimensions).
    const std::size_t limit =
        group.tile_sizes.empty() ? std::max<std::size_t>(dims, 1) : group.tile_sizes.size();
    if (group.parallel_tile_dims < 0 || static_cast<std::size_t>(group.parallel_tile_dims) > limit)
      throw Error(where + " has parallel_tile_dims " + std::to_string(group.parallel_tile_dims) +
                  "; it must be between 0 and " + std::to_string(limit) +
                  " (the number of tile dimensions)");
  }

  void check_storage() const {
    for (const auto& [name, storage] : s_.storage) {
      if (storage == Storage::Full) continue;
      const ir::FunctionPtr& f = p_.stage(name);
      const std::size_t g = group_of_.at(name);
      if (storage == Storage::Inlined && f->definition().is_reduction())
        throw Error("schedule: " + f->describe() +
                    " is a reduction and cannot be inlined; store it \"full\"");
      std::string live_out;
      if (p_.is_output(*f)) {
        live_out = "it is an output of the pipeline";
      } else {
        for (const auto& consumer : p_.consumers(*f))
          if (group_of_.at(consumer->name()) != g) {
            live_out = "'" + consumer->name() + "' in " +
                       describe_group(s_, group_of_.at(consumer->name())) + " reads it";
            break;
          }
      }
      if (live_out.empty()) continue;
      throw Error("schedule: " + f->describe() + " in " + describe_group(s_, g) +
                  " is a live-out (" + live_out + "), so it cannot be " +
                  (storage == Storage::Inlined ? "inlined" : "in a scratchpad") +
                  ": its values are needed outside its group; store it \"full\" (or leave its "
                  "storage to the default)");
    }
  }

  bool has_stage(const std::string& name) const { return p_.has_stage(name); }

  const Pipeline& p_;
  const Schedule& s_;
  std::map<std::string, std::size_t> group_of_;
};

} // namespace

void Schedule::validate(const Pipeline& p) const { Validator(p, *this).run(); }

} // namespace trapeze
