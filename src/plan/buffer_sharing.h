// Which of a tile's buffers share one memory: those of one type whose
// lifetimes in the tile are apart (PolyMage's storage optimization, paper
// 001 §7.4). Lowering lays the buffers out by this rule
// (lower/share_scratchpads.cpp), and dp counts them by it
// (autoschedule/group_facts.cpp), so that the cost model sees the memory the
// generated code will use.
#pragma once

#include "trapeze/type.h"

#include <cstddef>
#include <vector>

namespace trapeze::plan {

/// A buffer's lifetime in a tile: the first and the last step that use it.
struct BufferLifetime {
  ScalarType type;
  std::size_t first = 0, last = 0;
};

/// Per lifetime, the memory it is in (0, 1, ..., numbered as first used).
/// `lives` come in the order of their first steps; each goes into the first
/// memory of its type whose buffers are all dead before its first step, or
/// into a new one. A buffer is written whole by its first step before it is
/// read (a tile computes its buffers anew), so its old contents do not matter.
std::vector<int> share_memories(const std::vector<BufferLifetime>& lives);

} // namespace trapeze::plan
