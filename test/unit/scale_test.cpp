// Pipelines of 100,000 stages (issue 13): built, checked, scheduled and
// explained with no step quadratic in the number of stages and no recursion
// as deep as a chain of them. Times are not asserted (bench/scale.sh measures
// them); a quadratic step would make these tests run for minutes, and a
// recursion per stage would overflow the stack.
#include "runtime/generate_source.h"
#include "trapeze/dsl.h"
#include "trapeze/explain.h"
#include "trapeze/pipeline.h"
#include "trapeze/schedule.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <pthread.h>

#include <functional>
#include <string>
#include <vector>

namespace trapeze {
namespace {

using ::testing::HasSubstr;

// `stages` stages over [0, N - 1], stage i reading stage i - 1 (stage 0 reads
// the input, or the last stage when `cycle`): alternately a 3-point stencil
// (the border copied) and a point-wise map. Stages are declared first, then
// defined in order, as the text form's reader does.
struct LongPipeline {
  Param N{"N"};
  Var x{"x"};
  Image img{"img", ScalarType::Float32, {N}};
  std::vector<Func> stages;

  LongPipeline(int count, bool cycle) {
    stages.reserve(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i)
      stages.emplace_back("s" + std::to_string(i), ScalarType::Float32, std::vector<Var>{x},
                          std::vector<Interval>{{0, N - 1}});
    for (int i = 0; i < count; ++i) {
      const auto read = [&](Expr at) {
        if (i > 0) return stages[static_cast<std::size_t>(i - 1)](at);
        return cycle ? stages.back()(at) : img(at);
      };
      if (i % 2 == 1) {
        stages[static_cast<std::size_t>(i)].define(read(x) * 0.5f + 0.25f);
      } else {
        stages[static_cast<std::size_t>(i)].define(
            {Case(x >= 1 && x <= N - 2, (read(x - 1) + read(x) + read(x + 1)) * 0.25f)}, read(x));
      }
    }
  }
};

TEST(Scale, ChainOfAHundredThousandStagesIsBuiltAndValidated) {
  // Released in declaration order, producers first: the last stage then
  // releases the whole chain through its definition.
  LongPipeline chain(100000, false);
  const Pipeline p({chain.stages.back()}, "chain");
  ASSERT_EQ(p.stages().size(), 100000u);
  EXPECT_EQ(p.stages().front()->name(), "s0");
  EXPECT_EQ(p.stage_index(*chain.stages[1234].contents()), 1234u);
  EXPECT_EQ(p.consumers(*p.stage("s41")).front()->name(), "s42");
  Schedule::naive(p).validate(p);
}

// explain recurses over no chain: 10,000 stages are enough to show that it
// is not quadratic (before issue 13, 4,000 took 25 s) and take 0.2 s.
TEST(Scale, ChainOfTenThousandStagesIsExplained) {
  LongPipeline chain(10000, false);
  const Pipeline p({chain.stages.back()}, "chain");
  const std::string text = explain_text(p, p.bind({{"N", 64}}));
  EXPECT_THAT(text, HasSubstr("pipeline 'chain': 10000 stages, 1 input"));
  EXPECT_THAT(text, HasSubstr("group {s0, s1, s2,"));
  EXPECT_THAT(text, HasSubstr("s9998 -> s9999  [0, 0]"));
}

// Runs `work` on a thread whose stack is `bytes` long.
void run_on_stack_of(std::size_t bytes, const std::function<void()>& work) {
  pthread_attr_t attributes;
  ASSERT_EQ(pthread_attr_init(&attributes), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attributes, bytes), 0);
  pthread_t thread;
  auto run = [](void* w) -> void* {
    (*static_cast<const std::function<void()>*>(w))();
    return nullptr;
  };
  ASSERT_EQ(pthread_create(&thread, &attributes, run, const_cast<std::function<void()>*>(&work)),
            0);
  pthread_attr_destroy(&attributes);
  pthread_join(thread, nullptr);
}

// A naive schedule keeps every stage in a full buffer, and the loop IR nests
// one Allocate per buffer: lowering, printing and destroying the statement
// would recurse 5,000 levels deep, about 2.5 MB of stack. They run on a large
// stack of their own (lower/large_stack.h), and the statement is destroyed
// without recursion, so a caller with a 256 KiB stack is enough.
TEST(Scale, ChainOfFiveThousandStagesIsLoweredAndPrintedFromASmallStack) {
  LongPipeline chain(5000, false);
  const Pipeline p({chain.stages.back()}, "chain");
  std::string source;
  run_on_stack_of(256 << 10,
                  [&] { source = runtime::generate_source(p, Schedule::naive(p)).source; });
  EXPECT_THAT(source, HasSubstr("s4999"));
}

TEST(Scale, CycleOfAHundredThousandStagesIsReportedBriefly) {
  try {
    LongPipeline cycle(100000, true);
    FAIL() << "no error for a cycle";
  } catch (const Error& e) {
    const std::string message = e.what();
    EXPECT_THAT(message, HasSubstr("cycle: stage 's99999'"));
    EXPECT_THAT(message, HasSubstr("reads itself through a cycle of 100000 stages: s99999 -> "
                                   "s99998 -> s99997 -> s99996 -> s99995 -> s99994 -> s99993 -> "
                                   "s99992 -> ... and 99992 more -> s99999; a pipeline is a DAG"));
    EXPECT_LT(message.size(), 400u);
  }
}

} // namespace
} // namespace trapeze
