// Alg. 3 of paper 001: which stages of a group are inlined.
#include "autoschedule/inlining.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace trapeze::autoschedule {

namespace {

// Rule (i)'s bound: how many times its operations a consumer may compute
// with a point-wise stage inlined and recomputed at its taps.
constexpr double max_recompute_growth = 4;

// What a floating-point division costs in operations where rules (i) and (v)
// weigh recomputing a stage against the memory its loop moves: on a Zen 5
// guest a loop of x / 3.0f over L1-resident floats ran at 0.078 ns an element
// (32-byte vectors; 0.039 with 64-byte ones), x + 3.0f at 0.037 (0.027) and a
// chain of eight adds and multiplies at 0.066 (0.035): about ten
// (docs/performance.md, "What a division costs"). The vector-width rule
// keeps the plain count its threshold was measured with.
constexpr double kDivisionOperations = 10;

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

// A stencil's read: every dimension at the consumer's own index plus
// constant offsets (no sampling, which moves the tiles' rows between scales).
bool reads_at_own_scale(const analysis::EdgeDependence* edge) {
  return edge && std::all_of(edge->dims.begin(), edge->dims.end(), [](const auto& d) {
           return d.kind == analysis::DimDependenceKind::Aligned && !d.parametric &&
                  d.scale == analysis::Rational(1);
         });
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

} // namespace

std::vector<InlineDecision> choose_inlining(const PipelineModel& model,
                                            const std::vector<int>& members,
                                            const std::vector<bool>& live_out,
                                            double ops_per_byte) {
  const std::size_t n = members.size();
  std::vector<InlineDecision> rule(n);
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
  // For rule (v): the distinct points each member reads of each (taps), its
  // operations a point as inlining grows them, and what it reads from
  // outside the group (from memory), with the bytes of an element.
  std::vector<double> taps(n * n, 0), arithmetic(n), divisions(n);
  std::vector<std::vector<std::pair<const void*, int>>> outside(n);
  for (std::size_t m = 0; m < n; ++m) {
    const StageFacts& stage = model.stage(members[m]);
    pointwise[m] = stage.pointwise;
    arithmetic[m] = stage.arithmetic;
    divisions[m] = stage.divisions;
    for (int c : stage.consumers)
      if (std::size_t column = position(c); column < n) {
        const analysis::EdgeDependence* edge = edge_between(model, members[m], c);
        consumes[at(m, column)] = 1;
        read[at(m, column)] = reads_of(edge);
        taps[at(m, column)] = edge ? model.taps(*edge) : 1;
      }
    for (std::size_t e : stage.in_edges) {
      const analysis::EdgeDependence& edge = model.edges()[e];
      if (const int p = model.producer_of(edge); p >= 0 && position(p) < n) continue;
      outside[m].emplace_back(producer_identity(edge), model.producer_bytes(edge));
    }
  }
  const std::vector<char> original = consumes;
  // What c reads from outside with m inlined into it.
  const auto outside_with = [&](std::size_t c, std::size_t m) {
    std::vector<std::pair<const void*, int>> reads = outside[c];
    for (const auto& read_from : outside[m])
      if (std::find(reads.begin(), reads.end(), read_from) == reads.end())
        reads.push_back(read_from);
    return reads;
  };
  // Rule (v) applies to m and its one consumer c: m a stencil of what the
  // group reads from memory (no member feeds it now), read by c as a
  // stencil, neither sampling, and m's arithmetic known.
  const auto stencil_on_memory = [&](std::size_t m, std::size_t c) {
    const StageFacts& stage = model.stage(members[m]);
    if (ops_per_byte <= 0 || stage.arithmetic <= 0 || stage.data_dependent || outside[m].empty() ||
        !original[at(m, c)] || !reads_at_own_scale(edge_between(model, members[m], members[c])))
      return false;
    for (std::size_t p = 0; p < n; ++p)
      if (consumes[at(p, m)]) return false;
    return std::all_of(stage.in_edges.begin(), stage.in_edges.end(),
                       [&](std::size_t e) { return reads_at_own_scale(&model.edges()[e]); });
  };
  // The bytes a point of member c moves to or from memory when it reads
  // `reads` from outside the group: those, and its own element if a live-out.
  const auto memory_bytes = [&](std::size_t c,
                                const std::vector<std::pair<const void*, int>>& reads) {
    double bytes = live_out[c] ? model.stage(members[c]).bytes : 0;
    for (const auto& read_from : reads)
      bytes += read_from.second;
    return bytes;
  };
  // Rule (v): the operations a point of consumer c computes, a byte it
  // moves to or from memory, with m inlined into it, each floating-point
  // division weighed as kDivisionOperations.
  const auto intensity_inlined = [&](std::size_t m, std::size_t c) {
    const double bytes = memory_bytes(c, outside_with(c, m));
    const double t = taps[at(m, c)];
    const double operations = arithmetic[c] - t + t * arithmetic[m] +
                              (kDivisionOperations - 1) * (divisions[c] + t * divisions[m]);
    return bytes > 0 ? operations / bytes : std::numeric_limits<double>::infinity();
  };
  // Whether member `to` reads member `from`, directly or through others.
  const auto reaches = [&](std::size_t from, std::size_t to) {
    std::vector<char> seen(n, 0);
    std::vector<std::size_t> stack = {from};
    while (!stack.empty()) {
      const std::size_t p = stack.back();
      stack.pop_back();
      for (std::size_t c = 0; c < n; ++c) {
        if (!consumes[at(p, c)] || seen[c]) continue;
        if (c == to) return true;
        seen[c] = 1;
        stack.push_back(c);
      }
    }
    return false;
  };
  // Rule (vi) applies to m and its consumers: two or more, each reading m at
  // its own point only, none a reduction, none reading another, all over one
  // demanded box, so that intra-tile fusion computes them in one nest, where
  // the compiler computes m's expression once for all of them.
  const auto one_nest_reads_own_point = [&](std::size_t m, const std::vector<std::size_t>& cs) {
    if (cs.size() < 2) return false;
    const Box& box = model.stage(members[cs.front()]).demanded;
    for (std::size_t c : cs) {
      const StageFacts& consumer = model.stage(members[c]);
      if (read[at(m, c)] != Reads::Own || consumer.reduction || consumer.demanded.lo != box.lo ||
          consumer.demanded.hi != box.hi)
        return false;
    }
    // The graph walks last, once the cheap tests have passed for all.
    for (std::size_t c : cs)
      for (std::size_t other : cs)
        if (other != c && reaches(c, other)) return false;
    return true;
  };
  const auto consumers_of = [&](std::size_t m) {
    std::vector<std::size_t> out;
    for (std::size_t c = 0; c < n; ++c)
      if (consumes[at(m, c)]) out.push_back(c);
    return out;
  };
  // Rule (i): a point-wise stage is inlined where no consumer recomputes it
  // (each reads one point of it per point), and where each consumer that
  // reads several points of it, recomputing it at each, either stays within
  // ops_per_byte operations a byte it moves to or from memory (rule (v)'s
  // roofline test; 0 turns it off) or computes at most max_recompute_growth
  // times its own operations (the measurements are in inlining.h); "" where
  // it is not inlined. A boundary condition refused here is rule (iv)'s.
  const auto pointwise_reason = [&](std::size_t m, const std::vector<std::size_t>& cs) {
    double growth = 1, intensity = 0;
    for (std::size_t c : cs) {
      const double t = taps[at(m, c)];
      if (read[at(m, c)] != Reads::Many || t <= 1 || arithmetic[c] <= 0) continue;
      const double i = intensity_inlined(m, c);
      const double g = (arithmetic[c] - t + t * arithmetic[m]) / arithmetic[c];
      if (ops_per_byte > 0 && i <= ops_per_byte) {
        intensity = std::max(intensity, i);
        continue;
      }
      if (g > max_recompute_growth) return std::string();
      growth = std::max(growth, g);
    }
    std::string why = "point-wise";
    if (growth > 1)
      why += fmt::format(", and recomputed at its consumers' taps it multiplies their operations "
                         "by {:.2g}, at most {:.2g}",
                         growth, max_recompute_growth);
    else if (intensity > 0)
      why +=
          fmt::format(", and its consumers, recomputing it at each of their taps, compute {:.3g} "
                      "operations a byte moved, within the {:.3g} a core computes while a byte "
                      "streams",
                      intensity, ops_per_byte);
    return why;
  };
  bool work_to_do = true;
  while (work_to_do) {
    work_to_do = false;
    for (std::size_t m = 0; m < n; ++m) {
      if (!rule[m].reason.empty() || live_out[m] || model.stage(members[m]).reduction) continue;
      const std::vector<std::size_t> consumers = consumers_of(m);
      if (consumers.empty()) continue;
      // Nothing goes into a look-up's loop: it stays scalar (a gather), and
      // the inlined arithmetic with it.
      if (std::any_of(consumers.begin(), consumers.end(),
                      [&](std::size_t c) { return model.stage(members[c]).data_dependent; }))
        continue;
      std::string why;
      if (pointwise[m]) {
        why = pointwise_reason(m, consumers);
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
      if (why.empty() && one_nest_reads_own_point(m, consumers))
        why = "its consumers read it at their own point, and compute over one box, in one nest "
              "that computes it once";
      if (why.empty() && model.stage(members[m]).relabels)
        why = "it computes nothing (each value one read, as a boundary condition)";
      if (why.empty() && consumers.size() == 1 && stencil_on_memory(m, consumers.front())) {
        const double intensity = intensity_inlined(m, consumers.front());
        rule[m].recomputes_stencil = intensity <= ops_per_byte;
        if (rule[m].recomputes_stencil)
          why = fmt::format("a stencil on memory that its one consumer recomputes: {:.3g} "
                            "operations a byte moved after inlining, within the {:.3g} a core "
                            "computes while a byte streams, so the loop waits on memory either "
                            "way and the scratchpad goes",
                            intensity, ops_per_byte);
      }
      if (why.empty()) continue;
      rule[m].reason = why;
      work_to_do = true;
      // Its consumers now read its producers through it.
      for (std::size_t p = 0; p < n; ++p) {
        if (!consumes[at(p, m)]) continue;
        consumes[at(p, m)] = 0;
        for (std::size_t c : consumers) {
          const Reads through = compose(read[at(p, m)], read[at(m, c)]);
          read[at(p, c)] = consumes[at(p, c)] ? both(read[at(p, c)], through) : through;
          taps[at(p, c)] =
              (consumes[at(p, c)] ? taps[at(p, c)] : 0) + taps[at(p, m)] * taps[at(m, c)];
          consumes[at(p, c)] = 1;
        }
      }
      for (std::size_t c : consumers) {
        pointwise[c] = pointwise[c] && pointwise[m];
        const double t = taps[at(m, c)];
        arithmetic[c] += t * arithmetic[m] - t;
        divisions[c] += t * divisions[m];
        outside[c] = outside_with(c, m);
      }
    }
  }
  for (std::size_t m = 0; m < n; ++m) {
    rule[m].operations = arithmetic[m];
    rule[m].memory_bytes = memory_bytes(m, outside[m]);
  }
  return rule;
}

} // namespace trapeze::autoschedule
