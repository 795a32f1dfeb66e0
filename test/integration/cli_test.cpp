// The trapeze command line, run as a user runs it: exit codes, output, files.
#include "support/cli_runner.h"
#include "trapeze/image_io.h"
#include "trapeze/runtime.h"
#include "trapeze/text_form.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>

namespace trapeze {
namespace {

using testing::HasSubstr;
namespace fs = std::filesystem;

using testing_support::CliResult;
using testing_support::read_file;

class Cli : public testing::Test {
protected:
  void SetUp() override {
    dir_ =
        fs::temp_directory_path() / ("trapeze_cli_" + std::to_string(::getpid()) + "_" +
                                     testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  CliResult run(const std::string& args) const {
    return testing_support::run_cli(TRAPEZE_CLI_PATH, args, dir_);
  }

  fs::path dir_;
};

TEST_F(Cli, ListsTheApps) {
  const CliResult r = run("list");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const char* app : {"blur", "unsharp", "harris"})
    EXPECT_THAT(r.out, HasSubstr(app));
}

TEST_F(Cli, EveryCommandHasHelp) {
  for (const char* cmd : {"", "list", "run", "emit", "explain", "schedule"}) {
    const CliResult r = run(std::string(cmd) + " --help");
    EXPECT_EQ(r.exit_code, 0) << cmd;
    EXPECT_THAT(r.out, HasSubstr("Usage")) << cmd;
  }
  EXPECT_THAT(run("run --help").out, HasSubstr("--check"));
}

TEST_F(Cli, BadArgumentsGiveOneLineAndExitCode2) {
  for (const char* args :
       {"", "frobnicate", "run", "run blur --reps 0", "run blur --threads x", "emit blur",
        "explain blur --nope", "run blur --scheduler fancy", "schedule blur --schedule s.json",
        "run nosuch", "bench nosuch", "bench blur --peers tvm", "run blur --param Q=1",
        "run blur --param R=1.5", "run blur --param R=99999999999999999999",
        "run blur --param R=8 --param R=9", "explain blur --param R", "run blur --param =3"}) {
    const CliResult r = run(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
  }
}

TEST_F(Cli, UnknownPipelineIsAUsageError) {
  const CliResult r = run("run nosuch");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("'nosuch' is neither an app (blur, unsharp, harris, "));
}

TEST_F(Cli, RunPrintsTimesAndChecksAsJson) {
  const CliResult r =
      run("run unsharp --param R=40 --param C=52 --param weight=2.5 --reps 3 --threads 2 "
          "--check --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["pipeline"], "unsharp");
  EXPECT_EQ(j["check"], "passed");
  EXPECT_EQ(j["reps"], 3);
  EXPECT_EQ(j["threads"], 2);
  EXPECT_EQ(j["params"]["R"], 40);
  EXPECT_EQ(j["params"]["weight"], 2.5);
  EXPECT_EQ(j["times_ms"].size(), 3u);
  EXPECT_LE(j["min_ms"].get<double>(), j["median_ms"].get<double>());
}

TEST_F(Cli, RunsOnAPngAndWritesOne) {
  SyntheticSpec spec;
  spec.type = ScalarType::UInt8;
  spec.extents = {3, 30, 45};
  spec.lo = 0;
  spec.hi = 255;
  write_png(synthetic_image(spec), (dir_ / "in.png").string());
  const CliResult r = run("run unsharp --input " + (dir_ / "in.png").string() + " --output " +
                          (dir_ / "out.png").string() + " --reps 1 --check");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("C=45 R=30"));
  EXPECT_THAT(r.out, HasSubstr("check against the interpreter: passed"));
  const Buffer out = read_png((dir_ / "out.png").string());
  EXPECT_EQ(out.extents(), (std::vector<std::int64_t>{3, 30, 45}));
}

// A pipeline file on a named PNG: R and C come from the image's size, and the
// outputs written (8-bit PNG, float .npy) are the interpreter's.
TEST_F(Cli, RunsAFileOnNamedImagesInferringTheSizes) {
  const std::string text = "pipeline box\n"
                           "param R: int64\nparam C: int64\n"
                           "input img: float32[3][R + 2][C + 2]\n"
                           "stage out(c, x, y): float32 on [0, 2] x [1, R] x [1, C]\n"
                           "  = (img(c, x - 1, y) + img(c, x, y) + img(c, x + 1, y + 1)) / 3.0f\n"
                           "output out\n";
  std::ofstream(dir_ / "box.tz") << text;
  SyntheticSpec spec;
  spec.type = ScalarType::UInt8;
  spec.extents = {3, 32, 42};
  spec.hi = 255;
  const Buffer image = synthetic_image(spec);
  write_image(image, (dir_ / "x.png").string());
  const CliResult r =
      run("run " + (dir_ / "box.tz").string() + " --input img=" + (dir_ / "x.png").string() +
          " --output out=" + (dir_ / "y.png").string() +
          " --output out=" + (dir_ / "y.npy").string() + " --reps 1 --check");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("C=40 R=30"));
  EXPECT_THAT(r.out, HasSubstr("check against the interpreter: passed"));

  const Pipeline p = parse_pipeline(text);
  const BufferMap expected = interpret(p, {{"R", 30}, {"C", 40}}, {{"img", to_float(image)}});
  const Buffer& out = expected.at("out");
  EXPECT_FALSE(compare_buffers(out, read_image((dir_ / "y.npy").string()), 0));
  EXPECT_FALSE(compare_buffers(from_float(out), read_image((dir_ / "y.png").string()), 0));
}

TEST_F(Cli, TextFormRoundTripsThroughRunAndExplain) {
  const CliResult ir = run("explain harris --ir");
  ASSERT_EQ(ir.exit_code, 0) << ir.err;
  const fs::path file = dir_ / "harris.tz";
  std::ofstream(file) << ir.out;
  const CliResult again = run("explain " + file.string() + " --ir");
  EXPECT_EQ(again.out, ir.out);
  const CliResult r = run("run " + file.string() + " --param R=20 --param C=30 --reps 1 --check");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("passed"));
}

TEST_F(Cli, MalformedFileNamesLineAndColumn) {
  const fs::path file = dir_ / "bad.tz";
  std::ofstream(file) << "pipeline bad\nparam N: int64\nstage f(x): float32 on [0, N] x\n";
  const CliResult r = run("explain " + file.string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr(file.string() + ":3:"));
}

TEST_F(Cli, ExplainPrintsTextAndJson) {
  const CliResult text = run("explain unsharp --param R=64 --param C=80");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  for (const char* part : {"blurx", "blury", "sharpen", "mask", "stencil",
                           "boundary  constant_exterior(img, 0.0f)  (margins inferred: [0, 2, 2])"})
    EXPECT_THAT(text.out, HasSubstr(part));
  const CliResult json = run("explain unsharp --json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["stages"].size(), 5u); // the zero border, then the spec's four
}

TEST_F(Cli, SchedulePrintsTheChosenScheduleAsJson) {
  const CliResult r = run("schedule unsharp --scheduler naive");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["version"], 1);
  ASSERT_EQ(j["groups"].size(), 5u);
  EXPECT_EQ(j["groups"][1]["stages"], nlohmann::json::array({"blurx"}));
  EXPECT_EQ(j["groups"][0]["tile_sizes"], nlohmann::json::array());
  // dp by default: the five stages fused, tiled, with its reasons.
  const CliResult dp = run("schedule unsharp");
  ASSERT_EQ(dp.exit_code, 0) << dp.err;
  const auto d = nlohmann::json::parse(dp.out);
  ASSERT_EQ(d["groups"].size(), 1u);
  EXPECT_EQ(d["groups"][0]["tile_sizes"].size(), 3u);
  EXPECT_THAT(d["groups"][0]["reasons"][0].get<std::string>(), HasSubstr("dp: cost"));
  EXPECT_EQ(run("schedule unsharp --scheduler dp").out, dp.out);
}

TEST_F(Cli, RunAndExplainTakeAScheduleFile) {
  const fs::path file = dir_ / "s.json";
  std::ofstream(file) << run("schedule blur --scheduler naive").out;
  const CliResult r = run("run blur --schedule " + file.string() +
                          " --param R=20 --param C=30 --reps 1 --check --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schedule"], file.string());
  EXPECT_EQ(j["check"], "passed");

  const CliResult text = run("explain blur --schedule " + file.string());
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_THAT(text.out, HasSubstr("schedule (" + file.string() + "): 2 groups"));
  EXPECT_THAT(text.out, HasSubstr("  group 1: blury\n    tiles      none (untiled)"));
  EXPECT_THAT(text.out, HasSubstr("    storage    blurx full\n"));
  EXPECT_THAT(text.out, HasSubstr("    why        naive schedule"));
  const CliResult json = run("explain blur --scheduler naive --json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["stages"].size(), 2u);
  EXPECT_EQ(doc["schedule"]["source"], "naive");
  EXPECT_EQ(doc["schedule"]["groups"].size(), 2u);
  EXPECT_EQ(doc["schedule"]["effective_storage"]["blurx"], "full");
  // Without a schedule option, explain prints the analysis alone.
  EXPECT_FALSE(nlohmann::json::parse(run("explain blur --json").out).contains("schedule"));
  EXPECT_THAT(run("explain blur").out, testing::Not(HasSubstr("schedule (")));
}

TEST_F(Cli, AWholeMachineFileSchedulesWithoutLookingAtThisMachine) {
  // A file with every field (what `trapeze machine --json` writes) is the
  // machine: nothing of this one is measured, and the same file gives the
  // same schedule anywhere (trapeze_add_pipeline's MACHINE). A file that
  // leaves out the row runs takes this machine's, measured once.
  const fs::path cache = dir_ / "cache";
  const std::string env = "TRAPEZE_CACHE_DIR='" + cache.string() + "'";
  const fs::path whole = dir_ / "whole.json", partial = dir_ / "partial.json";
  std::ofstream(whole) << R"({"cores": 4, "l1_bytes": 49152, "l2_bytes": 1310720,
    "l3_bytes": 12582912, "cache_line_bytes": 64, "vector_bytes": 32, "ops_per_byte": 3.0,
    "run_bandwidth": [{"bytes": 512, "read": 0.5, "write": 0.6},
                      {"bytes": 65536, "read": 1.0, "write": 1.0}], "vector_gathers": false,
    "l2_window_share": 0.7})";
  std::ofstream(partial) << R"({"cores": 4})";
  const CliResult m = testing_support::run_cli(
      TRAPEZE_CLI_PATH, "machine --json --machine " + whole.string(), dir_, env);
  ASSERT_EQ(m.exit_code, 0) << m.err;
  const auto j = nlohmann::json::parse(m.out);
  EXPECT_EQ(j["l2_bytes"], 1310720);
  ASSERT_EQ(j["run_bandwidth"].size(), 2u);
  EXPECT_EQ(j["run_bandwidth"][0]["write"], 0.6);
  EXPECT_EQ(j["vector_gathers"], false);
  EXPECT_EQ(j["l2_window_share"], 0.7);
  EXPECT_EQ(j["source"], whole.string());
  const CliResult s = testing_support::run_cli(
      TRAPEZE_CLI_PATH, "schedule unsharp --machine " + whole.string(), dir_, env);
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_FALSE(fs::exists(cache / "machine")) << "measured this machine's row runs";

  const CliResult p = testing_support::run_cli(
      TRAPEZE_CLI_PATH, "machine --json --machine " + partial.string(), dir_, env);
  ASSERT_EQ(p.exit_code, 0) << p.err;
  EXPECT_EQ(nlohmann::json::parse(p.out)["cores"], 4);
  EXPECT_THAT(nlohmann::json::parse(p.out)["source"].get<std::string>(),
              HasSubstr(" + what this machine measured"));
  EXPECT_TRUE(fs::exists(cache / "machine"));
}

TEST_F(Cli, ExplainShowsATiledSchedule) {
  const fs::path file = dir_ / "fused.json";
  std::ofstream(file) << R"({"groups": [{"stages": ["img_constant_exterior", "blurx", "blury",
    "sharpen", "mask"], "tile_sizes": [1, 8, 512], "shape": "polymage",
    "inner_tile_sizes": [1, 4, 64], "parallel_tile_dims": 2, "vectorize": false,
    "vector_bytes": {"mask": 32}, "prefetch": {"img": 2},
    "reasons": ["all in one"]}], "storage": {"img_constant_exterior": "inline",
    "sharpen": "inline"}})";
  const CliResult r = run("explain unsharp --schedule " + file.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out,
              HasSubstr("  group 0: img_constant_exterior, blurx, blury, sharpen, mask\n"
                        "    tiles      [1, 8, 512] (polymage)\n"
                        "    inner      [1, 4, 64]\n"
                        "    parallel   2 outermost tile dimension(s), dynamic schedule (default)\n"
                        "    vectorize  no\n"
                        "    vectors    at most mask 32 bytes\n"
                        "    prefetch   img 2 rows ahead\n"
                        "    intra-tile loops fused where they can be (paper 001 §5.3)\n"
                        "    storage    img_constant_exterior inline, blurx scratchpad, blury "
                        "scratchpad, sharpen inline, mask full\n"
                        "    why        all in one\n"));
}

TEST_F(Cli, ExplainListsTheNestsIntraTileFusionFuses) {
  CliResult r = run("explain harris --scheduler manual");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("    one nest per tile (intra-tile fusion): Ix, Iy\n"
                               "    one nest per tile (intra-tile fusion): Ixx, Ixy, Iyy\n"));
  r = run("explain harris --scheduler manual --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["schedule"]["footprints"][0]["fused_nests"],
            nlohmann::json::parse(R"([["Ix", "Iy"], ["Ixx", "Ixy", "Iyy"]])"));
}

TEST_F(Cli, ExplainPrintsTheLoopIrAfterAPass) {
  CliResult r = run("explain blur --lowered --scheduler manual --after bound_regions");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("// --- loop IR after bound_regions ---"));
  EXPECT_THAT(r.out, HasSubstr("produce blury over [blury_x_lo, blury_x_hi]"));
  r = run("explain blur --lowered --scheduler naive");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("// --- loop IR after validate ---"));
  EXPECT_THAT(r.out, HasSubstr("parallel for x in [1, R] chunked:"));
  // dp by default: one fused group whose nests are functions of their own
  // (blurx in a per-thread scratchpad: its division weighs more than its
  // loads, docs/autoschedule.md, rule 5).
  r = run("explain blur --lowered");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("fused, tiles"));
  EXPECT_THAT(r.out, Not(HasSubstr("inlined: blurx")));
  EXPECT_THAT(r.out, HasSubstr("outlined blurx:"));
  // (in 32-byte vectors where the machine's are 64: a nest that streams)
  EXPECT_THAT(r.out, testing::ContainsRegex("outlined blury( \\(vectors of 32 bytes\\))?:"));
  r = run("explain blur --lowered --after fusion");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("tile_loops"));
  EXPECT_EQ(run("explain blur --after stage_loops").exit_code, 2); // --after needs --lowered
}

TEST_F(Cli, InvalidScheduleFilesAreErrors) {
  const fs::path file = dir_ / "bad.json";
  std::ofstream(file) << R"({"groups": [{"stages": ["blurx"], "tile_size": [8, 8]}]})";
  CliResult r = run("run blur --schedule " + file.string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr(file.string() + ": groups[0]: unknown field \"tile_size\""));

  std::ofstream(file) << R"({"groups": [{"stages": ["blurx"]}]})";
  r = run("explain blur --schedule " + file.string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err,
              HasSubstr("the schedule in '" + file.string() + "' does not fit pipeline 'blur'"));
  EXPECT_THAT(r.err, HasSubstr("'blury'"));
  EXPECT_THAT(r.err, HasSubstr("is in no group"));
}

TEST_F(Cli, ScheduleAndSchedulerExcludeEachOther) {
  const fs::path file = dir_ / "s.json";
  std::ofstream(file) << run("schedule blur").out;
  const CliResult r = run("run blur --schedule " + file.string() + " --scheduler naive");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(r.err, HasSubstr("excludes"));
}

TEST_F(Cli, AutotuneShowsItsProgressAndResumes) {
  const std::string cmd = "schedule blur --scheduler autotune --param R=20 --param C=30 "
                          "--autotune-sizes 4,8 --autotune-thresholds 0.4 --autotune-results " +
                          (dir_ / "tune.jsonl").string();
  CliResult r = run(cmd);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("[autotune] 4/4 ["));
  EXPECT_THAT(r.err, HasSubstr("[autotune] done: 4 of 4 candidates"));
  EXPECT_THAT(r.out, HasSubstr("\"reasons\": [\n        \"greedy: cost"));
  r = run(cmd);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.err, HasSubstr("(0 measured now, 4 from"));
}

TEST_F(Cli, ManualSchedulerNeedsAnApp) {
  // (Every app has a hand-written schedule; a pipeline text file has none.)
  CliResult r;
  const CliResult ir = run("explain blur --ir");
  const fs::path file = dir_ / "blur.tz";
  std::ofstream(file) << ir.out;
  r = run("schedule " + file.string() + " --scheduler manual");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--scheduler manual needs an app"));
  r = run("schedule " + file.string() + " --scheduler naive");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"stages\": [\"blurx\"]"));
  r = run("schedule " + file.string()); // dp works on a pipeline file too
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("\"stages\": [\"blurx\", \"blury\"]"));
}

TEST_F(Cli, EmitWritesHeaderAndSource) {
  const CliResult r = run("emit blur --out " + (dir_ / "gen").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir_ / "gen" / "blur.h"));
  EXPECT_THAT(read_file(dir_ / "gen" / "blur.cpp"), HasSubstr("trapeze_blur("));
  // Under the hand-written schedule: whole-row tiles, blurx inlined.
  const CliResult m = run("emit blur --scheduler manual --out " + (dir_ / "manual").string());
  ASSERT_EQ(m.exit_code, 0) << m.err;
  const std::string source = read_file(dir_ / "manual" / "blur.cpp");
  EXPECT_THAT(source, HasSubstr("tiles [32, 8192]"));
  EXPECT_THAT(source, HasSubstr("inlined: blurx"));
}

// The interpreter and the generated code agree on every operation
// (docs/dsl.md), so the test breaks the compiled code on purpose: a compiler
// flag that makes sqrtf another function.
TEST_F(Cli, FailedCheckNamesTheFirstDifferingElement) {
  const fs::path file = dir_ / "roots.tz";
  std::ofstream(file) << "pipeline roots\n"
                         "param N: int64 = 64\n"
                         "input img: float32[N]\n"
                         "stage root(x): float32 on [0, N - 1]\n"
                         "  = sqrt(img(x) + 2.0f)\n"
                         "output root\n";
  const CliResult r = testing_support::run_cli(
      TRAPEZE_CLI_PATH, "run " + file.string() + " --reps 1 --check", dir_,
      "TRAPEZE_CXXFLAGS='-Dsqrtf=expf' TRAPEZE_CACHE_DIR='" + (dir_ / "cache").string() + "'");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("check failed: output 'root' differs from the interpreter at "
                               "element [0]"));
  EXPECT_THAT(r.out, HasSubstr("check against the interpreter: failed"));
}

// A float-to-int cast saturates, NaN to 0, in the interpreter and the
// generated code alike; they used to differ (x86 gives INT_MIN).
TEST_F(Cli, FloatToIntCastsSaturateInTheCompiledCode) {
  const fs::path file = dir_ / "overflow.tz";
  std::ofstream(file) << "pipeline overflow\n"
                         "param N: int64 = 64\n"
                         "input img: float32[N]\n"
                         "stage big(x): int32 on [0, N - 1]\n"
                         "  = int32(img(x) * 1e10f) + int32(sqrt(img(x) - 2.0f))\n"
                         "output big\n";
  const CliResult r = run("run " + file.string() + " --reps 1 --check");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("check against the interpreter: passed"));
}

TEST_F(Cli, BenchSmokeRunOnOneSmallApp) {
  const fs::path json = dir_ / "bench.json", csv = dir_ / "bench.csv";
  const CliResult r = run("bench blur --small --reps 2 --threads 2 --json " + json.string() +
                          " --csv " + csv.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("trapeze naive"));
  EXPECT_THAT(r.out, HasSubstr("memory floor"));
  EXPECT_THAT(r.out, HasSubstr("geometric mean"));
  const auto j = nlohmann::json::parse(read_file(json));
  ASSERT_EQ(j["apps"].size(), 1u);
  EXPECT_EQ(j["apps"][0]["app"], "blur");
  EXPECT_GT(j["copy_bandwidth_gbs"].get<double>(), 0.0);
  EXPECT_GT(j["apps"][0]["floor_bytes"].get<std::int64_t>(), 0);
  EXPECT_EQ(j["apps"][0]["variants"][0]["times_ms"].size(), 2u);
  EXPECT_EQ(j["apps"][0]["variants"][0]["check"], "reference");
  EXPECT_THAT(read_file(csv), HasSubstr("blur,trapeze naive,"));
  EXPECT_EQ(j["load"], 0);
  EXPECT_EQ(run("bench blur --small --reps 2 --schedulers fancy").exit_code, 2); // a bad argument
}

// A schedule file, saved and edited, timed against the scheduler it came
// from: its own row, checked; without a naive row the speedups are a dash.
TEST_F(Cli, BenchTimesAScheduleFileBesideTheSchedulers) {
  const CliResult saved = run("schedule blur --scheduler greedy");
  ASSERT_EQ(saved.exit_code, 0) << saved.err;
  auto edited = nlohmann::json::parse(saved.out);
  edited["groups"][0]["tile_sizes"] = nlohmann::json::array({16, 64});
  const fs::path file = dir_ / "edited.json", json = dir_ / "ab.json";
  std::ofstream(file) << edited.dump();
  const CliResult r = run("bench blur --small --reps 2 --schedulers dp --schedule " +
                          file.string() + " --json " + json.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("trapeze " + file.string()));
  const auto j = nlohmann::json::parse(read_file(json));
  const auto& variants = j["apps"][0]["variants"];
  ASSERT_EQ(variants.size(), 2u);
  EXPECT_EQ(variants[0]["name"], "trapeze dp");
  EXPECT_EQ(variants[1]["name"], "trapeze " + file.string());
  EXPECT_EQ(variants[1]["check"], "ok");
  EXPECT_EQ(variants[1]["times_ms"].size(), 2u);
  EXPECT_TRUE(j["geometric_mean"]["trapeze dp"]["speedup_over_naive"].is_null());
  // Its ratio to the fastest row, whichever that was in two short repetitions.
  EXPECT_THAT(r.out, testing::ContainsRegex("trapeze dp +[0-9]+\\.[0-9]+x +- +1"));

  // A schedule is one pipeline's: two apps, or a file of another app, fail clearly.
  const CliResult two = run("bench blur harris --small --reps 1 --schedule " + file.string());
  EXPECT_EQ(two.exit_code, 1);
  EXPECT_THAT(two.err, HasSubstr("a schedule file is made for one pipeline; name the one app to "
                                 "time it on (2 selected)"));
  const CliResult other = run("bench harris --small --reps 1 --schedule " + file.string());
  EXPECT_EQ(other.exit_code, 1);
  EXPECT_THAT(other.err, HasSubstr("blurx"));
}

TEST_F(Cli, BenchUnderLoadSaysSo) {
  const fs::path json = dir_ / "loaded.json";
  const CliResult r =
      run("bench blur --small --reps 1 --threads 2 --load 1 --json " + json.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("under load: 1 busy background thread while every variant ran"));
  EXPECT_EQ(nlohmann::json::parse(read_file(json))["load"], 1);
  EXPECT_EQ(run("bench blur --small --reps 1 --load -1").exit_code, 2); // bad argument
}

} // namespace
} // namespace trapeze
