// Measures MachineModel::l2_window_share: how fast a vertical stencil runs
// when the rows it reads again from one output row to the next (its window)
// are too long for the L1 and come back from the L2, against the same
// stencil over short rows whose window stays in the L1.
//
// A strip of whole image rows streams one run a row and has no column halo,
// and on the AMD Zen guests it ran as fast as short tiles or faster. On an
// Intel Emerald Rapids guest, unsharp's strips of 4256-float rows (a window
// of five input rows, 85 KB, in a 48 KiB L1) ran 1.5x slower than the same
// strips cut into rows of 1024 (docs/performance.md). So it is measured, as
// the row runs are.
#pragma once

#include <cstdint>

namespace trapeze::autoschedule {

/// The time of a five-row stencil over short rows (a window of an eighth of
/// `l1_bytes`) over its time over long rows (a window of twice `l1_bytes`),
/// its rows in the L2 (`l2_bytes`) either way: the best of nine interleaved
/// passes each, rounded to 0.05, in (0, 1]. Takes about 50 ms.
double measure_l2_window_share(std::int64_t l1_bytes, std::int64_t l2_bytes);

} // namespace trapeze::autoschedule
