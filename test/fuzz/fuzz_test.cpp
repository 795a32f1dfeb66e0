// The differential fuzzer: random pipelines (random_pipeline.h) under random
// valid schedules (random_schedule.h), compiled by the JIT and compared with
// the reference interpreter, output by output (floats within a relative
// tolerance of 1e-4, integers exactly). Every pipeline's text form must also
// round-trip, since the reproducers rely on it. See docs/fuzzing.md.
//
// The suite runs a fixed range of seeds split over several test cases (ctest
// runs them in parallel). Environment variables change the range:
//   TRAPEZE_FUZZ_SEED=S         only seed S (to reproduce a failure)
//   TRAPEZE_FUZZ_SEEDS=N        N seeds (a long run), starting at
//   TRAPEZE_FUZZ_FIRST_SEED=S   the first seed (default 1)
//   TRAPEZE_FUZZ_PRINT=1        print every pipeline and schedule, failing or not
// e.g. TRAPEZE_FUZZ_SEEDS=5000 ./build/test/fuzz/fuzz_pipelines
// A failure prints the seed, the pipeline's text form, the schedule's JSON
// and the command that reruns just that seed.
#include "fuzz/random_pipeline.h"
#include "fuzz/random_schedule.h"
#include "trapeze/text_form.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <sstream>

namespace trapeze::fuzz {
namespace {

constexpr int kChunks = 8;            // test cases the seed range is split into
constexpr std::uint64_t kSeeds = 240; // seeds of the default suite
constexpr double kFloatTolerance = 1e-4;

std::optional<std::uint64_t> env_number(const char* name) {
  const char* value = std::getenv(name);
  if (!value || !*value) return std::nullopt;
  return std::strtoull(value, nullptr, 10);
}

// The seeds of chunk `chunk`: every kChunks-th seed of the range.
std::vector<std::uint64_t> seeds_of(int chunk) {
  if (const auto one = env_number("TRAPEZE_FUZZ_SEED"))
    return chunk == 0 ? std::vector<std::uint64_t>{*one} : std::vector<std::uint64_t>{};
  const std::uint64_t first = env_number("TRAPEZE_FUZZ_FIRST_SEED").value_or(1);
  const std::uint64_t count = env_number("TRAPEZE_FUZZ_SEEDS").value_or(kSeeds);
  std::vector<std::uint64_t> seeds;
  for (std::uint64_t s = static_cast<std::uint64_t>(chunk); s < count; s += kChunks)
    seeds.push_back(first + s);
  return seeds;
}

CompileOptions fuzz_compile_options() {
  CompileOptions options;
  // Cheap compiles: the generated code's speed does not matter here, and
  // without contraction float32 rounds exactly as the interpreter does.
  options.flags = "-O1 -fopenmp -ffp-contract=off";
  return options;
}

struct Tally {
  int pipelines = 0, stages = 0, groups = 0, fused = 0, rejected = 0, fell_back = 0;
  std::map<std::string, int> reasons;
};

std::string reproducer(std::uint64_t seed, const RandomPipeline& rp, const Schedule* s,
                       const std::string& what) {
  std::ostringstream out;
  out << "fuzz seed " << seed << ": " << what << "\n--- pipeline (text form) ---\n"
      << to_text(rp.pipeline) << "--- schedule ---\n"
      << (s ? s->to_json() : std::string("(none)")) << "\n--- rerun just this seed ---\n"
      << "TRAPEZE_FUZZ_SEED=" << seed
      << " ./build/test/fuzz/fuzz_pipelines --gtest_filter='*MatchInterpreter/0'\n";
  return out.str();
}

// Builds, schedules, compiles, runs and compares one seed; "" if all agree.
std::string check_seed(std::uint64_t seed, Tally& tally) {
  const RandomPipeline rp = random_pipeline(seed);
  const Pipeline& p = rp.pipeline;
  ++tally.pipelines;
  tally.stages += static_cast<int>(p.stages().size());

  const std::string text = to_text(p);
  try {
    const std::string again = to_text(parse_pipeline(text, "fuzz_" + std::to_string(seed)));
    if (again != text)
      return reproducer(seed, rp, nullptr,
                        "the text form does not round-trip; printed again:\n" + again);
  } catch (const Error& e) {
    return reproducer(seed, rp, nullptr, std::string("the text form does not parse: ") + e.what());
  }

  const ScheduleChoice choice = random_schedule(rp, seed);
  tally.rejected += choice.rejected;
  tally.fell_back += choice.fell_back ? 1 : 0;
  for (const auto& [reason, n] : choice.reasons)
    tally.reasons[reason] += n;
  const Schedule& s = choice.schedule;
  tally.groups += static_cast<int>(s.groups.size());
  for (const GroupSchedule& g : s.groups)
    tally.fused += g.stages.size() > 1 ? 1 : 0;
  try {
    if (Schedule::from_json(s.to_json()).to_json() != s.to_json())
      return reproducer(seed, rp, &s, "the schedule's JSON does not round-trip");
    const ParamValues bound = p.bind(rp.params);
    const BufferMap inputs = random_inputs(p, bound, seed);
    const BufferMap expected = interpret(p, bound, inputs);
    const CompiledPipeline compiled = compile(p, s, fuzz_compile_options());
    const BufferMap actual = compiled.run(bound, inputs, 2);
    std::string diffs;
    for (const auto& out : p.outputs()) {
      const auto mismatch =
          compare_buffers(expected.at(out->name()), actual.at(out->name()), kFloatTolerance);
      if (mismatch) diffs += "output " + out->name() + ": " + mismatch->str() + "\n";
    }
    if (!diffs.empty())
      return reproducer(seed, rp, &s, "the JIT differs from the interpreter:\n" + diffs);
    if (env_number("TRAPEZE_FUZZ_PRINT")) std::cout << reproducer(seed, rp, &s, "passes");
  } catch (const Error& e) {
    return reproducer(seed, rp, &s, std::string("threw: ") + e.what());
  }
  return "";
}

class FuzzPipelines : public testing::TestWithParam<int> {};

TEST_P(FuzzPipelines, MatchInterpreter) {
  const auto start = std::chrono::steady_clock::now();
  Tally tally;
  int failures = 0;
  for (const std::uint64_t seed : seeds_of(GetParam())) {
    const std::string failure = check_seed(seed, tally);
    if (failure.empty()) continue;
    ++failures;
    ADD_FAILURE() << failure;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "[fuzz] chunk " << GetParam() << ": " << tally.pipelines << " pipelines ("
            << tally.stages << " stages, " << tally.groups << " groups, " << tally.fused
            << " fused) in " << seconds << " s = " << (seconds > 0 ? tally.pipelines / seconds : 0)
            << " pipelines/s; " << failures << " failed; " << tally.rejected
            << " schedule draws rejected, " << tally.fell_back << " fell back to naive\n";
  for (const auto& [reason, n] : tally.reasons)
    std::cout << "[fuzz]   rejected " << n << "x: " << reason << "\n";
}

INSTANTIATE_TEST_SUITE_P(Chunk, FuzzPipelines, testing::Range(0, kChunks));

// The generator is a pure function of the seed.
TEST(FuzzGenerators, SameSeedSamePipelineAndSchedule) {
  for (std::uint64_t seed : {3u, 17u, 99u}) {
    const RandomPipeline a = random_pipeline(seed), b = random_pipeline(seed);
    EXPECT_EQ(to_text(a.pipeline), to_text(b.pipeline));
    EXPECT_EQ(random_schedule(a, seed).schedule.to_json(),
              random_schedule(b, seed).schedule.to_json());
  }
  EXPECT_NE(to_text(random_pipeline(1).pipeline), to_text(random_pipeline(2).pipeline));
}

// Most draws must be valid, or the schedule generator tests little.
TEST(FuzzGenerators, MostScheduleDrawsAreValid) {
  int draws = 0, rejected = 0;
  for (std::uint64_t seed = 1000; seed < 1100; ++seed) {
    const ScheduleChoice c = random_schedule(random_pipeline(seed), seed);
    draws += c.rejected + 1;
    rejected += c.rejected;
  }
  EXPECT_LT(rejected * 4, draws) << rejected << " of " << draws << " draws rejected";
}

} // namespace
} // namespace trapeze::fuzz
