// Parallel loops run as worker tasks that take iterations from a shared
// counter (codegen, print_worker_loop): whatever the parallel schedule, the
// number of threads (more than the iterations, more than the cores) and the
// callers, every output matches the interpreter bit for bit. Per-thread
// scratchpads are per worker, so a tile never sees another's values.
#include "app.h"
#include "trapeze/runtime.h"

#include <gtest/gtest.h>

#include <thread>

namespace trapeze {
namespace {

struct Variant {
  std::string app;
  bool manual; // the app's hand-written schedule (tiled groups), else naive
};

void expect_matches(const Pipeline& p, const BufferMap& expected, const BufferMap& actual,
                    const std::string& what) {
  for (const auto& out : p.outputs()) {
    const auto mismatch = compare_buffers(expected.at(out->name()), actual.at(out->name()), 0.0);
    EXPECT_FALSE(mismatch.has_value())
        << what << ", output " << out->name() << ": " << (mismatch ? mismatch->str() : "");
  }
}

// bilateral_grid's hand-written schedule tiles a reduction with its
// histogram in a per-thread scratchpad; unsharp's, a stencil group; naive
// schedules run untiled rows in collapsed loops.
TEST(WorkerLoops, MatchInterpreterUnderEveryScheduleAndThreadCount) {
  CompileOptions options;
  options.flags = "-O1 -fopenmp -ffp-contract=off"; // keep the compiles cheap
  for (const Variant& v :
       std::vector<Variant>{{"bilateral_grid", true}, {"unsharp", true}, {"camera_pipe", false}}) {
    const apps::App& app = apps::find_app(v.app);
    const Pipeline p = app.build();
    const ParamValues bound = p.bind(app.small_size);
    const BufferMap inputs = app.make_inputs(p, bound);
    const BufferMap expected = interpret(p, bound, inputs);
    for (const ParallelSchedule kind :
         {ParallelSchedule::Static, ParallelSchedule::Dynamic, ParallelSchedule::Chunked}) {
      Schedule s = v.manual ? app.manual_schedule(p) : Schedule::naive(p);
      for (GroupSchedule& g : s.groups)
        g.parallel_schedule = kind;
      const CompiledPipeline compiled = compile(p, s, options);
      for (const int threads : {1, 2, 3, 16})
        expect_matches(p, expected, compiled.run(bound, inputs, threads),
                       v.app + " " + parallel_schedule_name(kind) + " with " +
                           std::to_string(threads) + " threads");
    }
  }
}

// A server calls one compiled pipeline from several threads at once; each
// call has its own team, counters and scratchpads.
TEST(WorkerLoops, ConcurrentCallsEachMatchTheInterpreter) {
  const apps::App& app = apps::find_app("bilateral_grid");
  const Pipeline p = app.build();
  CompileOptions options;
  options.flags = "-O1 -fopenmp -ffp-contract=off";
  const CompiledPipeline compiled = compile(p, app.manual_schedule(p), options);
  const ParamValues bound = p.bind(app.small_size);
  const BufferMap inputs = app.make_inputs(p, bound);
  const BufferMap expected = interpret(p, bound, inputs);
  std::vector<BufferMap> results(4);
  std::vector<std::thread> callers;
  for (std::size_t i = 0; i < results.size(); ++i)
    callers.emplace_back([&, i] {
      for (int call = 0; call < 5; ++call)
        results[i] = compiled.run(bound, inputs, 2);
    });
  for (std::thread& t : callers)
    t.join();
  for (std::size_t i = 0; i < results.size(); ++i)
    expect_matches(p, expected, results[i], "caller " + std::to_string(i));
}

} // namespace
} // namespace trapeze
