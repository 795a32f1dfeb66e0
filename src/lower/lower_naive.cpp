// The naive schedule, lowered like any other schedule.
#include "lower/lower_naive.h"

#include "lower/lower_tiled.h"
#include "trapeze/schedule.h"

namespace trapeze::lower {

Stmt lower_naive(const Pipeline& p) { return lower_schedule(p, Schedule::naive(p)); }

} // namespace trapeze::lower
