// Classification of stages by their access pattern.
#pragma once

#include "analysis/dependence.h"

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace trapeze::analysis {

/// The kinds of stage. A stage can be several at once (flags).
enum class StageClass : std::uint8_t {
  PointWise,     ///< every producer is read at the consumer's own point (aligned dimensions
                 ///< with scale 1 and offset 0; constant indices such as a channel allowed)
  Stencil,       ///< a scale-1 dimension with a nonzero offset, or several taps in one dimension
  UpSampling,    ///< a dimension with scale < 1 (x/2)
  DownSampling,  ///< a dimension with scale > 1 (2*x)
  Reduction,     ///< the definition is a reduction
  DataDependent, ///< some access index reads memory (a look-up)
  Irregular,     ///< some index is non-affine, combines variables, or mixes scales
};
/// "point-wise", "stencil", "up-sampling", "down-sampling", "reduction",
/// "data-dependent", "irregular".
const char* stage_class_name(StageClass c);

/// The classes of one stage.
struct StageClassification {
  std::uint32_t flags = 0; ///< bit (1 << StageClass) for each class that applies
  /// The most telling class, for one-word summaries: reduction, data-dependent,
  /// irregular, up-sampling, down-sampling, stencil, point-wise (first that applies).
  StageClass primary = StageClass::PointWise;
  /// One line per reason, e.g. "img dimension 1: x + {-1..1}" (deterministic order).
  std::vector<std::string> reasons;

  bool has(StageClass c) const { return (flags >> static_cast<unsigned>(c)) & 1u; }
  /// All classes that apply, most telling (the primary) first.
  std::vector<StageClass> classes() const;
  /// All classes, primary first: "down-sampling, stencil".
  std::string str() const;
};

/// Classifies `stage` from the edges into it (edges of other consumers are ignored),
/// e.g. the result of consumer_dependences(stage) or dependences(pipeline).
StageClassification classify_stage(const ir::Function& stage,
                                   std::span<const EdgeDependence> edges);

} // namespace trapeze::analysis
