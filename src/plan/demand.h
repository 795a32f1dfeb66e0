// Which points of each stage the pipeline needs: bounds inference.
//
// A stage's domain is what it defines; its readers may need less of it. A
// multigrid restriction is defined over the fine level's extent but read
// only on the coarse level's interior (the spec: "only the coarse interior is
// written"): computing all of it writes seven zeros for every value read in
// 3-D, and its group tiles a space twice the fine grid's in each dimension.
// Every schedule computes a stage over its demanded box instead, as Halide's
// bounds inference does; its buffer keeps the domain's extents.
#pragma once

#include "analysis/bounds_prover.h"
#include "trapeze/pipeline.h"

#include <map>
#include <string>
#include <vector>

namespace trapeze::plan {

/// Per stage, per dimension: the part of its domain that something reads. An
/// output, a reduction (its updates may address any point) and a stage read
/// through an index the analysis cannot bound (data-dependent, non-affine,
/// or of a reduction's variables) in that dimension: the whole domain. Else
/// the hull, over every read of the stage, of the points the read's index
/// takes where its reader is computed: a case's value over the case's box
/// within the reader's demanded box, anything else over the whole demanded
/// box. An affine index is monotone in each variable, so its extremes lie at
/// the box's corners. The bounds are int64 expressions of the parameters,
/// within the domain (an empty box where nothing is read).
std::map<std::string, std::vector<Interval>> demanded_boxes(const Pipeline& p,
                                                            const analysis::BoundsProver& prover);

} // namespace trapeze::plan
