// The pool of intermediate buffers (see buffer_pool.h).
#include "runtime/buffer_pool.h"

#include "trapeze/error.h"

#include <cstdint>
#include <cstdlib>

#include <unistd.h>

namespace trapeze::runtime {

BufferPool::~BufferPool() {
  for (const auto& [size, block] : free_)
    std::free(block);
  // Blocks still in use belong to a run that outlived its pipeline: a bug in
  // the caller, but freeing them here would turn it into a use after free.
}

void* BufferPool::allocate(std::size_t bytes) {
  const std::size_t size = bytes == 0 ? 64 : (bytes + 63) / 64 * 64;
  void* block = nullptr;
  bool made = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    std::size_t block_size = size;
    // Reuse the smallest free block that fits, unless it would waste more
    // than half of itself.
    if (auto it = free_.lower_bound(size); it != free_.end() && it->first <= 2 * size) {
      block = it->second;
      block_size = it->first;
      free_bytes_ -= block_size;
      free_.erase(it);
    } else {
      block = std::aligned_alloc(64, size);
      if (!block) return nullptr; // generated code reports the failure
      made = true;
    }
    in_use_.emplace(block, block_size);
    in_use_bytes_ += block_size;
    handed_out_since_idle_.insert(block);
  }
  if (made) touch_every_page(block, size); // outside the lock: other threads allocate meanwhile
  return block;
}

// A new block's pages are touched once, when it is made. Its first user may
// write only part of it (a smaller buffer reusing it within a run), and a
// later run may hand it to a larger one: without this, that later run, the
// second of a pipeline, faults on the pages the first left untouched
// (27,685 faults, a 2-D V-cycle's second run 2-3x slower than its third).
// Touched here, every page faults in the run that makes the block, and no
// later run that reuses it faults.
void BufferPool::touch_every_page(void* block, std::size_t size) {
  static const std::size_t page = [] {
    const long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? static_cast<std::size_t>(p) : std::size_t{4096};
  }();
  auto* const bytes = static_cast<volatile unsigned char*>(block);
  bytes[0] = 0; // the page the block starts in; then each page that starts in it
  const std::size_t first = (page - reinterpret_cast<std::uintptr_t>(block) % page) % page;
  for (std::size_t offset = first; offset < size; offset += page)
    bytes[offset] = 0;
}

void BufferPool::release(void* memory) {
  if (!memory) return;
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = in_use_.find(memory);
  TRAPEZE_ASSERT(it != in_use_.end(), "BufferPool::release of a block it did not hand out");
  const std::size_t size = it->second;
  in_use_.erase(it);
  in_use_bytes_ -= size;
  free_.emplace(size, memory);
  free_bytes_ += size;
}

void BufferPool::begin_run() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++runs_in_progress_;
}

void BufferPool::end_run() {
  std::lock_guard<std::mutex> lock(mutex_);
  TRAPEZE_ASSERT(runs_in_progress_ > 0, "BufferPool: a run ended that did not begin");
  if (--runs_in_progress_ == 0) return_unused_locked();
}

void BufferPool::return_unused_locked() {
  for (auto it = free_.begin(); it != free_.end();) {
    if (handed_out_since_idle_.count(it->second)) {
      ++it;
      continue;
    }
    free_bytes_ -= it->first;
    std::free(it->second);
    it = free_.erase(it);
  }
  handed_out_since_idle_.clear();
}

void BufferPool::release_free() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& [size, block] : free_)
    std::free(block);
  free_.clear();
  free_bytes_ = 0;
}

std::size_t BufferPool::bytes_in_use() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return in_use_bytes_;
}

std::size_t BufferPool::bytes_retained() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return free_bytes_;
}

} // namespace trapeze::runtime
