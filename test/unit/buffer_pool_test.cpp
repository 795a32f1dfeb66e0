// The pool of intermediate buffers: reuse, alignment, trimming, concurrency,
// and that a compiled pipeline's runs draw their intermediates from it.
#include "runtime/buffer_pool.h"
#include "support/sample_pipelines.h"
#include "trapeze/runtime.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

namespace trapeze::runtime {
namespace {

TEST(BufferPool, ReusesAReleasedBlockOfTheSameSize) {
  BufferPool pool;
  void* a = pool.allocate(1000);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a) % 64, 0u);
  pool.release(a);
  EXPECT_EQ(pool.bytes_in_use(), 0u);
  EXPECT_EQ(pool.bytes_retained(), 1024u); // rounded up to 64 bytes
  void* b = pool.allocate(1000);
  EXPECT_EQ(a, b);
  EXPECT_EQ(pool.bytes_retained(), 0u);
  pool.release(b);
}

TEST(BufferPool, ANewBlockHasEveryPageInMemory) {
  // A later run may hand the block to a larger buffer than its first user
  // wrote: none of its pages may fault then (mincore: resident).
  BufferPool pool;
  const std::size_t bytes = 8 * 1024 * 1024 + 100;
  void* block = pool.allocate(bytes);
  ASSERT_NE(block, nullptr);
  const long page = sysconf(_SC_PAGESIZE);
  ASSERT_GT(page, 0);
  const auto start = reinterpret_cast<std::uintptr_t>(block) / static_cast<std::uintptr_t>(page) *
                     static_cast<std::uintptr_t>(page);
  const std::size_t length = reinterpret_cast<std::uintptr_t>(block) + bytes - start;
  const std::size_t pages =
      (length + static_cast<std::size_t>(page) - 1) / static_cast<std::size_t>(page);
  std::vector<unsigned char> resident(pages);
  ASSERT_EQ(mincore(reinterpret_cast<void*>(start), length, resident.data()), 0);
  for (std::size_t p = 0; p < pages; ++p)
    ASSERT_TRUE(resident[p] & 1) << "page " << p << " of " << pages << " not in memory";
  pool.release(block);
}

TEST(BufferPool, ReusesALargerBlockOnlyUpToTwiceTheRequest) {
  BufferPool pool;
  void* big = pool.allocate(4096);
  pool.release(big);
  void* half = pool.allocate(2048); // 4096 <= 2 * 2048: reused
  EXPECT_EQ(half, big);
  pool.release(half);
  void* small = pool.allocate(1000); // 4096 > 2 * 1024: a new block
  EXPECT_NE(small, big);
  pool.release(small);
}

// One run of a fused pipeline: a full buffer held throughout, and two
// parallel regions whose per-thread scratchpads do not fit each other.
std::vector<void*> run_with_two_scratchpad_sizes(BufferPool& pool) {
  const BufferPool::Run run(pool);
  std::vector<void*> handed_out;
  void* full = pool.allocate(256 << 10);
  handed_out.push_back(full);
  for (std::size_t scratch : {std::size_t{16} << 10, std::size_t{40} << 10}) {
    void* a = pool.allocate(scratch);
    void* b = pool.allocate(scratch);
    handed_out.push_back(a);
    handed_out.push_back(b);
    pool.release(a);
    pool.release(b);
  }
  pool.release(full);
  return handed_out;
}

TEST(BufferPool, KeepsEveryBlockThatEachRunUses) {
  BufferPool pool;
  const std::vector<void*> first = run_with_two_scratchpad_sizes(pool);
  const std::size_t retained = pool.bytes_retained();
  EXPECT_EQ(retained, std::size_t{(256 + 2 * 16 + 2 * 40) << 10});
  // The second run gets the very same blocks: nothing is mapped (and faulted
  // in) again, least of all the large buffer.
  const std::vector<void*> second = run_with_two_scratchpad_sizes(pool);
  EXPECT_EQ(second, first);
  EXPECT_EQ(pool.bytes_retained(), retained);
}

TEST(BufferPool, ReturnsTheBlocksThatAWholeRunDidNotUse) {
  BufferPool pool;
  {
    const BufferPool::Run run(pool);
    pool.release(pool.allocate(64 << 10));
  } // the run used the 64 KiB block, so it stays
  EXPECT_EQ(pool.bytes_retained(), std::size_t{64} << 10);
  // A run of 16 KiB blocks cannot use the 64 KiB one (more than twice the
  // request); when it ends, the 64 KiB block is returned.
  {
    const BufferPool::Run run(pool);
    std::vector<void*> blocks;
    for (int i = 0; i < 3; ++i)
      blocks.push_back(pool.allocate(16 << 10));
    for (void* p : blocks)
      pool.release(p);
    EXPECT_EQ(pool.bytes_retained(), std::size_t{(64 + 3 * 16) << 10}); // not while it is on
  }
  EXPECT_EQ(pool.bytes_retained(), std::size_t{48} << 10);
}

TEST(BufferPool, ARunThatFreesAllItHoldsKeepsItsBlocks) {
  // Halide allocates per parallel iteration: between two iterations nothing
  // is in use, which is not the end of the run.
  BufferPool pool;
  const BufferPool::Run run(pool);
  void* first = pool.allocate(256 << 10);
  pool.release(first);
  void* small = pool.allocate(1 << 10);
  pool.release(small);
  void* again = pool.allocate(256 << 10);
  EXPECT_EQ(again, first);
  pool.release(again);
}

TEST(BufferPool, OverlappingRunsReturnBlocksOnlyWhenTheLastEnds) {
  BufferPool pool;
  auto outer = std::make_unique<BufferPool::Run>(pool);
  {
    const BufferPool::Run inner(pool);
    pool.release(pool.allocate(32 << 10));
  }
  {
    const BufferPool::Run inner(pool);
    pool.release(pool.allocate(1 << 10)); // cannot use the 32 KiB block
  }                                       // `outer` is still on: nothing is returned
  EXPECT_EQ(pool.bytes_retained(), std::size_t{33} << 10);
  outer.reset(); // both blocks were used since the pool was last without runs
  EXPECT_EQ(pool.bytes_retained(), std::size_t{33} << 10);
}

TEST(BufferPool, IsSafeUnderConcurrentUse) {
  BufferPool pool;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&pool, t] {
      for (int i = 0; i < 2000; ++i) {
        void* p = pool.allocate(static_cast<std::size_t>(64 * (1 + (i + t) % 7)));
        static_cast<unsigned char*>(p)[0] = 1;
        pool.release(p);
      }
    });
  for (auto& th : threads)
    th.join();
  EXPECT_EQ(pool.bytes_in_use(), 0u);
}

TEST(BufferPool, ACompiledPipelineKeepsItsIntermediatesBetweenRuns) {
  // blur's naive schedule keeps blurx in a full buffer: (R + 2) x (C + 2) floats.
  const Pipeline p = testing_support::sample_blur();
  const CompiledPipeline compiled = compile(p, Schedule::naive(p));
  const ParamValues bound = p.bind({{"R", std::int64_t{40}}, {"C", std::int64_t{50}}});
  BufferMap inputs;
  inputs.emplace("img", Buffer(ScalarType::Float32, {42, 52}));
  BufferMap outputs = allocate_outputs(p, bound);
  EXPECT_EQ(compiled.retained_memory_bytes(), 0u);
  compiled.run(bound, inputs, outputs, 2);
  const std::size_t retained = compiled.retained_memory_bytes();
  EXPECT_GE(retained, std::size_t{40 * 52 * 4});
  compiled.run(bound, inputs, outputs, 2);
  EXPECT_EQ(compiled.retained_memory_bytes(), retained); // reused: nothing new kept
  compiled.release_retained_memory();
  EXPECT_EQ(compiled.retained_memory_bytes(), 0u);
  compiled.run(bound, inputs, outputs, 2); // and runs again after releasing
  EXPECT_EQ(compiled.retained_memory_bytes(), retained);
}

} // namespace
} // namespace trapeze::runtime
