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
//   TRAPEZE_FUZZ_UNCHECKED_EVERY=K  every K-th seed (default 8; 1: all) also
//                               compiled without bounds checks and compared
// e.g. TRAPEZE_FUZZ_SEEDS=5000 ./build/test/fuzz/fuzz_pipelines
// A failure prints the seed, the pipeline's text form, the schedule's JSON
// and the command that reruns just that seed. Each seed runs in a child
// process, so a crash or a hang in generated code is a failure with its
// reproducer, not the end of the run.
#include "fuzz/random_pipeline.h"
#include "fuzz/random_schedule.h"
#include "trapeze/text_form.h"

#include <gtest/gtest.h>

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <sstream>

namespace trapeze::fuzz {
namespace {

constexpr int kChunks = 8;            // test cases the seed range is split into
constexpr std::uint64_t kSeeds = 240; // seeds of the default suite
constexpr double kFloatTolerance = 1e-4;
// Every kUncheckedEvery-th seed also runs the code users run, without bounds
// checks: its gathers' 32-bit copies and base pointers exist only there.
constexpr std::uint64_t kUncheckedEvery = 8;
// A seed whose child runs longer is killed and reported as hung: generation,
// the compile at -O1 and the run take a few seconds at most.
constexpr int kSeedTimeoutSeconds = 300;

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
  // A run under UBSan replaces them (docs/fuzzing.md): generated code with
  // undefined behaviour then stops its child with a report.
  if (const char* flags = std::getenv("TRAPEZE_FUZZ_CXXFLAGS")) options.flags = flags;
  // Every access checked against its buffer: an out-of-bounds read or write
  // is a failure with its message, even where it would not change a value.
  options.bounds_check = true;
  return options;
}

struct Tally {
  int pipelines = 0, stages = 0, groups = 0, fused = 0, rejected = 0, fell_back = 0;
  std::map<std::string, int> reasons;
  std::map<std::string, int> sources; ///< schedules by where they came from
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

// One seed's pipeline and schedule, drawn in the parent (deterministic and
// cheap), so that a crashing child can still be reported with both.
struct SeedCase {
  RandomPipeline rp;
  ScheduleChoice choice;
};

SeedCase draw_case(std::uint64_t seed, Tally& tally) {
  SeedCase c{random_pipeline(seed), {}};
  c.choice = random_schedule(c.rp, seed);
  ++tally.pipelines;
  tally.stages += static_cast<int>(c.rp.pipeline.stages().size());
  tally.rejected += c.choice.rejected;
  tally.fell_back += c.choice.fell_back ? 1 : 0;
  ++tally.sources[c.choice.source];
  for (const auto& [reason, n] : c.choice.reasons)
    tally.reasons[reason] += n;
  tally.groups += static_cast<int>(c.choice.schedule.groups.size());
  for (const GroupSchedule& g : c.choice.schedule.groups)
    tally.fused += g.stages.size() > 1 ? 1 : 0;
  return c;
}

// A buffer of `type` and `extents` in a random layout over memory of its own
// (kept alive by `keep`): the dimensions in a random order in memory, rows
// padded by 0 to 2 elements, some dimensions flipped. A quarter of the seeds
// run on such buffers (inputs and outputs), drawn from a stream of their own
// so that the pipeline, schedule and input values of a seed do not change.
Buffer random_layout(ScalarType type, const std::vector<std::int64_t>& extents, FuzzRng& rng,
                     std::vector<Buffer>& keep) {
  const std::size_t dims = extents.size();
  std::vector<std::size_t> order(dims); // in memory, innermost last
  for (std::size_t d = 0; d < dims; ++d)
    order[d] = d;
  for (std::size_t d = dims; d > 1; --d)
    std::swap(order[d - 1], order[rng.index(d)]);
  std::vector<std::int64_t> strides(dims, 0);
  std::int64_t span = 1, first = 0;
  for (std::size_t k = dims; k-- > 0;) {
    const std::size_t d = order[k];
    strides[d] = span;
    span *= extents[d] + rng.uniform(0, 2);
  }
  for (std::size_t d = 0; d < dims; ++d)
    if (rng.chance(0.2)) {
      first += (extents[d] - 1) * strides[d];
      strides[d] = -strides[d];
    }
  Buffer backing(type, {span});
  keep.push_back(backing);
  auto* base = static_cast<std::byte*>(backing.raw()) + first * byte_size(type);
  return Buffer::view(type, static_cast<void*>(base), extents, strides);
}

// The seed's inputs and output buffers, dense or (a quarter of the seeds) in
// random layouts; "" or what the layouts are, for the report.
std::string lay_out(std::uint64_t seed, const Pipeline& p, const ParamValues& bound,
                    BufferMap& inputs, BufferMap& outputs, std::vector<Buffer>& keep) {
  outputs = allocate_outputs(p, bound);
  FuzzRng rng(seed ^ 0x5eed1a7005ull);
  if (!rng.chance(0.25)) return "";
  std::string what = "buffer layouts:";
  for (auto& [name, b] : inputs) {
    Buffer view = random_layout(b.type(), b.extents(), rng, keep);
    view.copy_from(b);
    b = view;
    what += " input " + name + " " + b.describe() + ";";
  }
  for (auto& [name, b] : outputs) {
    b = random_layout(b.type(), b.extents(), rng, keep);
    what += " output " + name + " " + b.describe() + ";";
  }
  return what + "\n";
}

// The pipeline's text with every boundary condition's margins left out
// ("stage b = repeat_edge(img, [1, 2])" becomes "... repeat_edge(img)"), and
// whether it has any.
std::pair<std::string, bool> without_margins(const std::string& text) {
  std::istringstream in(text);
  std::string line, out;
  bool any = false;
  while (std::getline(in, line)) {
    const std::size_t open = line.rfind(", [");
    if (line.rfind("stage ", 0) == 0 && line.find('(') > line.find(" = ") &&
        open != std::string::npos && line.size() >= 2 && line.ends_with("])")) {
      line = line.substr(0, open) + ")";
      any = true;
    }
    out += line + "\n";
  }
  return {out, any};
}

// The same pipeline with its boundaries' margins inferred: where the readers'
// indices allow inference, the interpreter computes the same outputs (a
// boundary's values do not depend on its margins; an output that is itself a
// boundary may have another shape and is not compared). "" if so, or where
// inference refuses the pipeline (a strided or data-dependent read, a
// boundary that nothing reads, a boundary of a boundary). The inferred
// margins may be wider than the drawn ones: inference takes each reader's
// whole domain, where the drawn ones fit the reads its cases make.
std::string check_inferred_margins(const Pipeline& p, const ParamValues& bound,
                                   const BufferMap& inputs, const BufferMap& expected) {
  const auto [text, any] = without_margins(to_text(p));
  if (!any) return "";
  std::optional<Pipeline> inferred;
  try {
    inferred.emplace(parse_pipeline(text, "inferred"));
  } catch (const Error& e) {
    const std::string what = e.what();
    if (what.find("cannot infer the margins") != std::string::npos ||
        what.find("whose own margins are still to be inferred") != std::string::npos)
      return "";
    return "with inferred margins, the text form does not parse: " + what;
  }
  const BufferMap again = interpret(*inferred, bound, inputs);
  for (const auto& out : p.outputs()) {
    if (out->definition().boundary) continue;
    if (const auto m = compare_buffers(expected.at(out->name()), again.at(out->name()), 0.0))
      return "with inferred margins, output " + out->name() + " differs: " + m->str();
  }
  return "";
}

// Round-trips, compiles (bounds-checked), runs and compares one seed; "" if all agree.
std::string check_case(std::uint64_t seed, const SeedCase& c) {
  const RandomPipeline& rp = c.rp;
  const Pipeline& p = rp.pipeline;
  const std::string text = to_text(p);
  try {
    const std::string again = to_text(parse_pipeline(text, "fuzz_" + std::to_string(seed)));
    if (again != text)
      return reproducer(seed, rp, nullptr,
                        "the text form does not round-trip; printed again:\n" + again);
  } catch (const Error& e) {
    return reproducer(seed, rp, nullptr, std::string("the text form does not parse: ") + e.what());
  }
  const Schedule& s = c.choice.schedule;
  try {
    if (Schedule::from_json(s.to_json()).to_json() != s.to_json())
      return reproducer(seed, rp, &s, "the schedule's JSON does not round-trip");
    const ParamValues bound = p.bind(rp.params);
    BufferMap inputs = random_inputs(p, bound, seed), actual;
    const BufferMap expected = interpret(p, bound, inputs);
    if (const std::string inferred = check_inferred_margins(p, bound, inputs, expected);
        !inferred.empty())
      return reproducer(seed, rp, &s, inferred);
    std::vector<Buffer> keep;
    const std::string layouts = lay_out(seed, p, bound, inputs, actual, keep);
    const CompiledPipeline compiled = compile(p, s, fuzz_compile_options());
    compiled.run(bound, inputs, actual, 2);
    std::string diffs;
    for (const auto& out : p.outputs()) {
      const auto mismatch =
          compare_buffers(expected.at(out->name()), actual.at(out->name()),
                          output_tolerance(p, *out, compiled.reassociated_sums(), kFloatTolerance));
      if (mismatch) diffs += "output " + out->name() + ": " + mismatch->str() + "\n";
    }
    if (!diffs.empty())
      return reproducer(seed, rp, &s, "the JIT differs from the interpreter:\n" + layouts + diffs);
    const std::uint64_t every = std::max<std::uint64_t>(
        1, env_number("TRAPEZE_FUZZ_UNCHECKED_EVERY").value_or(kUncheckedEvery));
    if (seed % every == 0) {
      CompileOptions unchecked = fuzz_compile_options();
      unchecked.bounds_check = false;
      BufferMap plain = allocate_outputs(p, bound);
      compile(p, s, unchecked).run(bound, inputs, plain, 2);
      for (const auto& out : p.outputs()) {
        const auto mismatch = compare_buffers(
            expected.at(out->name()), plain.at(out->name()),
            output_tolerance(p, *out, compiled.reassociated_sums(), kFloatTolerance));
        if (mismatch) diffs += "output " + out->name() + ": " + mismatch->str() + "\n";
      }
      if (!diffs.empty())
        return reproducer(seed, rp, &s,
                          "the JIT without bounds checks differs from the interpreter:\n" +
                              layouts + diffs);
    }
    if (env_number("TRAPEZE_FUZZ_PRINT"))
      std::cout << reproducer(seed, rp, &s, layouts.empty() ? "passes" : "passes, " + layouts);
  } catch (const Error& e) {
    return reproducer(seed, rp, &s, std::string("threw: ") + e.what());
  } catch (const std::exception& e) { // an internal error
    return reproducer(seed, rp, &s, std::string("threw an internal error: ") + e.what());
  }
  return "";
}

// Runs check_case in a child process: the child writes its verdict to a
// pipe; a child killed by a signal, or still running after the timeout, is
// a failure reported with the parent's copy of the case. The parent runs no
// OpenMP code (libgomp's pool does not survive fork).
std::string check_seed_isolated(std::uint64_t seed, const SeedCase& c) {
  std::cout.flush();
  std::cerr.flush();
  int fds[2];
  if (pipe(fds) != 0) return "fuzz seed " + std::to_string(seed) + ": pipe() failed";
  const pid_t child = fork();
  if (child < 0) return "fuzz seed " + std::to_string(seed) + ": fork() failed";
  // The child leads a process group of its own, which the compiler it starts
  // joins: a hung seed is killed with its compiler (killing the child alone
  // left cc1plus running). Set on both sides of the fork, so that the kill
  // finds the group whichever runs first.
  setpgid(child, child);
  if (child == 0) {
    // And dies with the run, should the run be stopped first.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    close(fds[0]);
    const std::string verdict = check_case(seed, c);
    std::size_t written = 0;
    while (written < verdict.size()) {
      const ssize_t n = write(fds[1], verdict.data() + written, verdict.size() - written);
      if (n <= 0) break;
      written += static_cast<std::size_t>(n);
    }
    std::cout.flush();
    _exit(written == verdict.size() ? 0 : 3);
  }
  close(fds[1]);
  std::string verdict;
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(kSeedTimeoutSeconds);
  bool hung = false;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      hung = true;
      kill(-child, SIGKILL);
      break;
    }
    pollfd pfd{fds[0], POLLIN, 0};
    const int ready = poll(&pfd, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    char chunk[4096];
    const ssize_t n = read(fds[0], chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break; // the child closed its end: it exited
    verdict.append(chunk, static_cast<std::size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (hung)
    return reproducer(seed, c.rp, &c.choice.schedule,
                      "still running after " + std::to_string(kSeedTimeoutSeconds) + " s (killed)");
  if (WIFSIGNALED(status))
    return reproducer(seed, c.rp, &c.choice.schedule,
                      "the child running it died of signal " + std::to_string(WTERMSIG(status)) +
                          " (" + strsignal(WTERMSIG(status)) + ")");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return reproducer(seed, c.rp, &c.choice.schedule,
                      "the child running it exited with status " +
                          std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1));
  return verdict;
}

class FuzzPipelines : public testing::TestWithParam<int> {};

TEST_P(FuzzPipelines, MatchInterpreter) {
  const auto start = std::chrono::steady_clock::now();
  Tally tally;
  int failures = 0;
  for (const std::uint64_t seed : seeds_of(GetParam())) {
    const std::string failure = check_seed_isolated(seed, draw_case(seed, tally));
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
  for (const auto& [source, n] : tally.sources)
    std::cout << "[fuzz]   schedules from " << source << ": " << n << "\n";
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

// The inferred-margins check must see pipelines it can infer, or it tests
// nothing: of the first seeds' pipelines with boundary conditions, many
// parse again with their margins left out.
TEST(FuzzGenerators, ManyBoundaryMarginsCanBeInferred) {
  int with_boundaries = 0, inferred = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    const auto [text, any] = without_margins(to_text(random_pipeline(seed).pipeline));
    if (!any) continue;
    ++with_boundaries;
    try {
      parse_pipeline(text, "inferred");
      ++inferred;
    } catch (const Error&) {
    }
  }
  EXPECT_GT(with_boundaries, 30);
  EXPECT_GT(inferred * 3, with_boundaries) << inferred << " of " << with_boundaries;
  std::cout << "[fuzz] margins inferred for " << inferred << " of " << with_boundaries
            << " pipelines with boundary conditions\n";
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
