// Measures MachineModel::vector_gathers: whether this CPU's vector gather
// instructions load the lanes of a vector from computed addresses faster than
// one scalar load a lane does.
//
// GCC tunes the choice per CPU family (-march=native, -mtune), and on the
// Zen 3 guests it emits gathers that run slower than scalar loads: the
// bilateral grid's slicing and the local Laplacian's look-ups ran 10-15%
// faster without them (docs/performance.md). Microcode that mitigates a
// gather's side channel (Intel's GDS) slows them further on some machines.
// So it is measured, as the row runs are.
#pragma once

namespace trapeze::autoschedule {

/// False where eight lanes loaded by scalar loads ran at least 10% faster
/// than by one 8-lane gather (AVX2), in the best of five interleaved passes
/// over an L2-sized table; true otherwise, and on CPUs without AVX2 (no
/// gathers to avoid). Takes about 20 ms.
bool measure_vector_gathers();

} // namespace trapeze::autoschedule
