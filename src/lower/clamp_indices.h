// Clamping data-dependent indices into their producer's domain.
#pragma once

#include "lower/loop_ir.h"
#include "trapeze/pipeline.h"

namespace trapeze::lower {

/// Rewrites every access index that reads memory (a look-up by pixel value,
/// a histogram bin; see ir::reads_memory) to min(max(int64(index), lo), hi)
/// with [lo, hi] the producer's domain in that dimension, as expr.h requires.
/// Affine indices are left alone: check_arguments proves them in bounds.
Stmt clamp_data_dependent_indices(const Stmt& s, const Pipeline& p);

} // namespace trapeze::lower
