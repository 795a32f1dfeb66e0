// share_memories: first fit of lifetimes into memories of one type.
#include "plan/buffer_sharing.h"

#include "trapeze/error.h"

#include <algorithm>

namespace trapeze::plan {

std::vector<int> share_memories(const std::vector<BufferLifetime>& lives) {
  TRAPEZE_ASSERT(std::is_sorted(lives.begin(), lives.end(),
                                [](const BufferLifetime& a, const BufferLifetime& b) {
                                  return a.first < b.first;
                                }),
                 "share_memories: lifetimes not in the order of their first steps");
  struct Memory {
    ScalarType type;
    std::size_t free_after; // the last step of its latest buffer
  };
  std::vector<Memory> memories;
  std::vector<int> memory_of;
  memory_of.reserve(lives.size());
  for (const BufferLifetime& life : lives) {
    const auto free = std::find_if(memories.begin(), memories.end(), [&](const Memory& m) {
      return m.type == life.type && m.free_after < life.first;
    });
    if (free == memories.end()) {
      memory_of.push_back(static_cast<int>(memories.size()));
      memories.push_back({life.type, life.last});
    } else {
      memory_of.push_back(static_cast<int>(free - memories.begin()));
      free->free_after = life.last;
    }
  }
  return memory_of;
}

} // namespace trapeze::plan
