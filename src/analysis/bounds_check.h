// Run-time proof that no affine access of a pipeline is out of bounds.
#pragma once

#include "trapeze/pipeline.h"

namespace trapeze::analysis {

/// Checks, for the bound parameter values, that every index that does not
/// read memory lies inside its producer's domain wherever the access may be
/// evaluated: a case's value over the case's box (see case_region.h), a case
/// condition and the default value over the stage's domain, a reduction's
/// initial value over the domain and its updates (values and the reads inside
/// target indices) over the reduction domain. Data-dependent indices and
/// update targets are clamped, so they are not checked. Also checks that every
/// domain is non-empty (check_domains). Throws trapeze::Error naming
/// the consumer, the access, the region, the index range it needs, the
/// producer's domain and the offending dimension.
void check_access_bounds(const Pipeline& p, const ParamValues& bound);

} // namespace trapeze::analysis
