// The pool of intermediate buffers (see buffer_pool.h).
#include "runtime/buffer_pool.h"

#include "trapeze/error.h"

#include <cstdlib>

namespace trapeze::runtime {

BufferPool::~BufferPool() {
  for (const auto& [size, block] : free_)
    std::free(block);
  // Blocks still in use belong to a run that outlived its pipeline: a bug in
  // the caller, but freeing them here would turn it into a use after free.
}

void* BufferPool::allocate(std::size_t bytes) {
  const std::size_t size = bytes == 0 ? 64 : (bytes + 63) / 64 * 64;
  std::lock_guard<std::mutex> lock(mutex_);
  void* block = nullptr;
  std::size_t block_size = size;
  // Reuse the smallest free block that fits, unless it would waste more than
  // half of itself.
  if (auto it = free_.lower_bound(size); it != free_.end() && it->first <= 2 * size) {
    block = it->second;
    block_size = it->first;
    free_bytes_ -= block_size;
    free_.erase(it);
  } else {
    block = std::aligned_alloc(64, size);
    if (!block) return nullptr; // generated code reports the failure
  }
  in_use_.emplace(block, block_size);
  in_use_bytes_ += block_size;
  handed_out_since_idle_.insert(block);
  return block;
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
