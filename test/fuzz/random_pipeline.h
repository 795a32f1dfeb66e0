// Random pipelines for the differential fuzzer (docs/fuzzing.md).
//
// A seed gives a DAG of 2-12 stages over 1-3 input images, 2-D (x, y) or 3-D
// (c, x, y): point-wise maps, stencils with random asymmetric offsets,
// down-sampling (f(2x + k)) and up-sampling (f(x / 2 + k)) along x, y or both,
// data-dependent look-ups (an index computed from a value), stages defined by
// cases over boxes, reductions (a histogram, a row sum), 1-D look-up tables,
// several outputs, float32 mostly and some integer and float64 stages.
//
// Domains are derived so that every affine access is in bounds: a stage's
// domain is the intersection of what each of its accesses allows in its
// producer's domain (optionally shrunk further, or padded where cases guard
// the accesses). The x and y extents are affine in the parameters N and M
// (a stage sampled k times along x has about (4 >> k) * N points), whose
// values (the pipeline's defaults) are the smallest that keep every domain
// non-empty plus a random margin.
#pragma once

#include "trapeze/runtime.h"

#include <cstdint>
#include <set>
#include <string>
#include <utility>

namespace trapeze::fuzz {

/// A random pipeline and what the schedule generator needs to know about it.
struct RandomPipeline {
  std::uint64_t seed = 0;
  Pipeline pipeline;
  /// The parameter values it runs at (also the pipeline's defaults).
  ParamValues params;
  /// (producer, consumer) stage pairs linked by a data-dependent access:
  /// such an edge has no constant distance and cannot be fused.
  std::set<std::pair<std::string, std::string>> data_dependent_edges;
};

/// The pipeline of a seed (the same on every machine).
RandomPipeline random_pipeline(std::uint64_t seed);

/// Deterministic inputs for `p` at the bound parameters: float images in
/// [-1, 1), scaled by a power of ten from 1e-6 to 1e6 for the whole image or
/// per value (two images in three), uint8 and int16 images over a small range, int32 images over
/// the whole of int32 with INT_MIN, INT_MAX, -1, 0 and 1 for 30% of the values.
BufferMap random_inputs(const Pipeline& p, const ParamValues& bound, std::uint64_t seed);

} // namespace trapeze::fuzz
