// Measures MachineModel::run_bandwidth: how much of its memory bandwidth
// this machine keeps when a loop streams short runs of contiguous bytes far
// apart (the rows of a tile narrower than its image), reading and writing.
//
// Hardware prefetchers learn a stream from its first lines and stop at its
// end (and at page boundaries), so a tile whose rows are a few hundred bytes
// long may stream at half the bandwidth of whole rows on one machine and at
// nearly all of it on another (docs/autoschedule.md, "Row runs"): the cost
// model cannot assume either, so it is measured.
#pragma once

#include "trapeze/autoschedule.h"

#include <vector>

namespace trapeze::autoschedule {

/// Streams a buffer beyond the last-level cache (`l3_bytes`, 0: unknown) on
/// `threads` threads in tiles of the same bytes whose rows are 256 to 8192
/// bytes long, and in whole rows, several passes interleaved; the share of
/// each is its best bandwidth over the whole rows' best, rounded to 0.05.
/// Takes about half a second. Empty (every run alike) where the buffer
/// cannot be allocated.
std::vector<MachineModel::RunShare> measure_run_bandwidth(int threads, std::int64_t l3_bytes);

} // namespace trapeze::autoschedule
