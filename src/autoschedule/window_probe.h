// Measures MachineModel::l2_window_share: how fast a vertical stencil runs
// in strips of whole rows, whose rows it reads again from one output row to
// the next (its window) are too long for the L1 and come back from the L2,
// against the same strips with their rows cut short, whose window stays in
// the L1 but whose image streams in short runs.
//
// Which of the two is faster is the machine's, and neither capacity nor a
// probe of one effect alone tells it. On an Intel Emerald Rapids guest,
// unsharp's strips of 4256-float rows (a window of five input rows, 85 KB, in
// a 48 KiB L1) ran 1.5x slower than the same strips cut into rows of 1024; on
// a Zen 3 guest (32 KiB L1), blur's and unsharp's whole rows ran 0.88 of the
// time of their rows cut, although a stencil over rows already in the L2 ran
// 1.4-2x slower there in whole rows than in short ones: its short runs from
// memory cost more (docs/performance.md). So the probe streams an image from
// memory, as the apps do, and times both.
#pragma once

#include <cstdint>

namespace trapeze::autoschedule {

/// The time of a five-row stencil over an image streamed from memory, on
/// `threads` threads, in strips of 16 rows cut into rows of 512 floats (a
/// window of 10 KB), over its time in the same strips of whole rows (a window
/// of twice `l1_bytes`): the best of seven interleaved passes each, rounded
/// to 0.05 and at most 1 (whole rows no slower). The image and its output
/// take twice `l3_bytes` each, within 32-128 MiB. Takes about 0.2 s.
double measure_l2_window_share(int threads, std::int64_t l1_bytes, std::int64_t l3_bytes);

} // namespace trapeze::autoschedule
