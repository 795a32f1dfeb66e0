// Memory for generated code's intermediate buffers, kept between runs.
//
// Without it every run of a compiled pipeline allocates its full intermediate
// buffers afresh; for the sizes of the benchmark suite (tens to hundreds of
// MB) the C library maps new pages each time, and the first touch of every
// page faults. A pipeline run over and over (a video, a benchmark) would pay
// that on every frame: the pool keeps released blocks and hands them out
// again, as Halide's and PolyMage's runtimes let a caller do.
#pragma once

#include "codegen/abi.h"

#include <cstddef>
#include <map>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

namespace trapeze::runtime {

/// A thread-safe pool of 64-byte aligned blocks. allocate() returns the
/// smallest free block that holds `bytes` and is at most twice as large, or
/// a new one; release() keeps the block for reuse. Its user marks each run
/// (a call of a pipeline) with a Run; when the last run in progress ends, the
/// free blocks that were not handed out since the last such moment are
/// returned to the system: a block survives as long as every run uses it.
/// The runs are explicit because a run may free all it holds and allocate
/// again (Halide allocates per parallel iteration), which must not return
/// blocks midway. (Capping the free bytes at the peak in use, as a first
/// version did, evicts a run's largest buffer whenever its scratchpads of
/// different sizes do not fit each other, so that buffer's pages fault again
/// on every run.)
class BufferPool {
public:
  BufferPool() = default;
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  /// One run of the pool's user, from construction to destruction.
  class Run {
  public:
    explicit Run(BufferPool& pool) : pool_(pool) { pool_.begin_run(); }
    ~Run() { pool_.end_run(); }
    Run(const Run&) = delete;
    Run& operator=(const Run&) = delete;

  private:
    BufferPool& pool_;
  };

  void* allocate(std::size_t bytes);
  void release(void* memory);
  /// Returns every free block to the system.
  void release_free();

  /// The allocator generated code calls (codegen/abi.h), bound to this pool.
  const codegen::Allocator* allocator() const { return &allocator_; }

  /// Bytes in blocks handed out and not released, and in free blocks kept.
  std::size_t bytes_in_use() const;
  std::size_t bytes_retained() const;

private:
  void begin_run();
  void end_run();
  void return_unused_locked();
  static void touch_every_page(void* block, std::size_t size);

  mutable std::mutex mutex_;
  std::multimap<std::size_t, void*> free_;          // by size
  std::unordered_map<void*, std::size_t> in_use_;   // block -> size
  std::unordered_set<void*> handed_out_since_idle_; // since no run was in progress
  std::size_t in_use_bytes_ = 0, free_bytes_ = 0;
  int runs_in_progress_ = 0;
  codegen::Allocator allocator_{
      [](void* pool, std::size_t bytes) { return static_cast<BufferPool*>(pool)->allocate(bytes); },
      [](void* pool, void* memory) { static_cast<BufferPool*>(pool)->release(memory); }, this};
};

} // namespace trapeze::runtime
