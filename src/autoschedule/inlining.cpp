// Alg. 3 of paper 001: which stages of a group are inlined.
#include "autoschedule/inlining.h"

#include <algorithm>

namespace trapeze::autoschedule {

namespace {

// The edge from `producer` into `consumer`, or nullptr.
const analysis::EdgeDependence* edge_between(const PipelineModel& model, int producer,
                                             int consumer) {
  const ir::Function* f = model.stage(producer).function.get();
  for (std::size_t e : model.stage(consumer).in_edges)
    if (model.edges()[e].producer_stage == f) return &model.edges()[e];
  return nullptr;
}

// Every access reads one point of the producer per consumer point, and
// different consumer points read different producer points: per dimension a
// single constant, or an integer scale >= 1 with a single offset, and every
// dimension of the consumer indexes the producer (a consumer over (c, x, y)
// reading a stage over (x, y) reads each of its points three times).
bool reads_one_point_each(const analysis::EdgeDependence& edge) {
  std::vector<bool> indexes(static_cast<std::size_t>(edge.consumer->dimensions()), false);
  for (const analysis::DimDependence& d : edge.dims) {
    if (d.parametric || d.min_offset != d.max_offset) return false;
    if (d.kind == analysis::DimDependenceKind::Constant) continue;
    if (d.kind != analysis::DimDependenceKind::Aligned || d.consumer_dim < 0) return false;
    if (!d.scale.is_integer() || d.scale.num < 1 || !d.min_offset.is_integer()) return false;
    indexes[static_cast<std::size_t>(d.consumer_dim)] = true;
  }
  return std::all_of(indexes.begin(), indexes.end(), [](bool b) { return b; });
}

// How a consumer reads a producer, as inlining composes reads: at its own
// point (scale 1, offset 0 in every dimension), at one other point per point,
// or at several.
enum class Reads { Own, One, Many };

Reads reads_of(const analysis::EdgeDependence* edge) {
  if (!edge || !reads_one_point_each(*edge)) return Reads::Many;
  for (const analysis::DimDependence& d : edge->dims)
    if (d.kind != analysis::DimDependenceKind::Aligned || d.scale != analysis::Rational(1) ||
        d.min_offset != analysis::Rational(0))
      return Reads::One;
  return Reads::Own;
}

// c reads p through m: a read of a read.
Reads compose(Reads outer, Reads inner) {
  if (outer == Reads::Many || inner == Reads::Many) return Reads::Many;
  return outer == Reads::Own ? inner : inner == Reads::Own ? outer : Reads::One;
}

// c reads p both directly and through an inlined stage: still one point only
// if both read c's own point.
Reads both(Reads a, Reads b) {
  return a == Reads::Own && b == Reads::Own ? Reads::Own : Reads::Many;
}

// Two such edges read disjoint points of the producer: some dimension holds
// different constants, or the same scale s >= 2 with offsets in different
// residues modulo s (the phases of an interleaved image).
bool disjoint(const analysis::EdgeDependence& a, const analysis::EdgeDependence& b) {
  for (std::size_t k = 0; k < a.dims.size() && k < b.dims.size(); ++k) {
    const analysis::DimDependence &x = a.dims[k], &y = b.dims[k];
    if (x.kind == analysis::DimDependenceKind::Constant &&
        y.kind == analysis::DimDependenceKind::Constant && x.min_offset != y.min_offset)
      return true;
    if (x.kind == analysis::DimDependenceKind::Aligned &&
        y.kind == analysis::DimDependenceKind::Aligned && x.scale == y.scale && x.scale.num >= 2) {
      const std::int64_t s = x.scale.num;
      const auto residue = [s](std::int64_t v) { return ((v % s) + s) % s; };
      if (residue(x.min_offset.num) != residue(y.min_offset.num)) return true;
    }
  }
  return false;
}

// Runs Alg. 3 on the group; per member the rule that inlined it, or "".
std::vector<std::string> inline_rules(const PipelineModel& model, const std::vector<int>& members,
                                      const std::vector<bool>& live_out) {
  const std::size_t n = members.size();
  std::vector<std::string> rule(n);
  const auto position = [&](int stage) {
    return static_cast<std::size_t>(std::find(members.begin(), members.end(), stage) -
                                    members.begin());
  };
  // The group's graph as inlining reshapes it, as n x n matrices (producer
  // row, consumer column; this runs for every candidate group): which member
  // consumes which, whether it reads the producer at one point per point of
  // its own, and whether each member is still point-wise (a point-wise stage
  // that a stencil was inlined into computes that stencil).
  std::vector<char> consumes(n * n, 0);
  std::vector<Reads> read(n * n, Reads::Many);
  const auto at = [n](std::size_t producer, std::size_t consumer) {
    return producer * n + consumer;
  };
  std::vector<bool> pointwise(n);
  for (std::size_t m = 0; m < n; ++m) {
    pointwise[m] = model.stage(members[m]).pointwise;
    for (int c : model.stage(members[m]).consumers)
      if (std::size_t column = position(c); column < n) {
        consumes[at(m, column)] = 1;
        read[at(m, column)] = reads_of(edge_between(model, members[m], c));
      }
  }
  const std::vector<char> original = consumes;
  const auto consumers_of = [&](std::size_t m) {
    std::vector<std::size_t> out;
    for (std::size_t c = 0; c < n; ++c)
      if (consumes[at(m, c)]) out.push_back(c);
    return out;
  };
  bool work_to_do = true;
  while (work_to_do) {
    work_to_do = false;
    for (std::size_t m = 0; m < n; ++m) {
      if (!rule[m].empty() || live_out[m] || model.stage(members[m]).reduction) continue;
      const std::vector<std::size_t> consumers = consumers_of(m);
      if (consumers.empty()) continue;
      // Nothing goes into a look-up's loop: it stays scalar (a gather), and
      // the inlined arithmetic with it.
      if (std::any_of(consumers.begin(), consumers.end(),
                      [&](std::size_t c) { return model.stage(members[c]).data_dependent; }))
        continue;
      std::string why;
      if (pointwise[m]) {
        why = "point-wise";
      } else if (consumers.size() == 1 && read[at(m, consumers.front())] != Reads::Many) {
        why = "its one consumer reads one point of it per point";
      } else if (consumers.size() > 1 &&
                 std::equal(consumes.begin() + static_cast<std::ptrdiff_t>(at(m, 0)),
                            consumes.begin() + static_cast<std::ptrdiff_t>(at(m, n)),
                            original.begin() + static_cast<std::ptrdiff_t>(at(m, 0)))) {
        std::vector<const analysis::EdgeDependence*> reads;
        for (std::size_t c : consumers)
          reads.push_back(edge_between(model, members[m], members[c]));
        bool ok = std::all_of(reads.begin(), reads.end(),
                              [](const auto* e) { return e && reads_one_point_each(*e); });
        for (std::size_t i = 0; ok && i < reads.size(); ++i)
          for (std::size_t j = i + 1; ok && j < reads.size(); ++j)
            ok = disjoint(*reads[i], *reads[j]);
        if (ok) why = "its consumers read disjoint points of it";
      }
      if (why.empty() && model.stage(members[m]).relabels)
        why = "it computes nothing (each value one read, as a boundary condition)";
      if (why.empty()) continue;
      rule[m] = why;
      work_to_do = true;
      // Its consumers now read its producers through it.
      for (std::size_t p = 0; p < n; ++p) {
        if (!consumes[at(p, m)]) continue;
        consumes[at(p, m)] = 0;
        for (std::size_t c : consumers) {
          const Reads through = compose(read[at(p, m)], read[at(m, c)]);
          read[at(p, c)] = consumes[at(p, c)] ? both(read[at(p, c)], through) : through;
          consumes[at(p, c)] = 1;
        }
      }
      for (std::size_t c : consumers)
        pointwise[c] = pointwise[c] && pointwise[m];
    }
  }
  return rule;
}

} // namespace

std::vector<bool> choose_inlined(const PipelineModel& model, const std::vector<int>& members,
                                 const std::vector<bool>& live_out) {
  const std::vector<std::string> rules = inline_rules(model, members, live_out);
  std::vector<bool> inlined(rules.size());
  for (std::size_t m = 0; m < rules.size(); ++m)
    inlined[m] = !rules[m].empty();
  return inlined;
}

std::string inlining_rule(const PipelineModel& model, const std::vector<int>& members,
                          const std::vector<bool>& live_out, int stage) {
  const std::vector<std::string> rules = inline_rules(model, members, live_out);
  for (std::size_t m = 0; m < members.size(); ++m)
    if (members[m] == stage) return rules[m];
  return {};
}

} // namespace trapeze::autoschedule
