// The naive schedule: every stage a loop nest over its full domain into a full buffer.
#pragma once

#include "lower/loop_ir.h"
#include "trapeze/pipeline.h"

namespace trapeze::lower {

/// lower_schedule(p, Schedule::naive(p)) (lower_tiled.h): lowers `p` stage by
/// stage (lower_stage, stage_nest.h), producers first. Inputs and outputs are the
/// caller's buffers; every other stage gets a heap buffer over its domain.
/// A stage with cases is split per dimension at the boundaries of the case
/// boxes (analysis::case_regions), so each piece is a clean loop nest with one
/// expression and no per-point box test. A reduction is an initialization
/// nest followed by a serial nest over its reduction domain. The outermost
/// loop of a nest is parallel, the innermost (contiguous) one vectorized;
/// update loops of reductions stay serial.
Stmt lower_naive(const Pipeline& p);

} // namespace trapeze::lower
