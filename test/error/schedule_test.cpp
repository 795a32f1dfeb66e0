// Invalid schedules and malformed schedule JSON: every message names the group
// or stage (or the JSON path) and says what is wrong.
#include "app.h"
#include "error_matchers.h"
#include "trapeze/dsl.h"
#include "trapeze/runtime.h"
#include "trapeze/schedule.h"

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace trapeze {
namespace {

Pipeline unsharp() { return apps::find_app("unsharp").build(); }

GroupSchedule group(std::vector<std::string> stages, std::vector<std::int64_t> tiles = {}) {
  GroupSchedule g;
  g.stages = std::move(stages);
  g.tile_sizes = std::move(tiles);
  return g;
}

// unsharp's input border (a boundary condition).
const char* const border = "img_constant_exterior";

// unsharp as one fused group with (1, 8, 512) tiles.
Schedule fused() {
  Schedule s;
  s.groups = {group({border, "blurx", "blury", "sharpen", "mask"}, {1, 8, 512})};
  return s;
}

// ---- inlining
// ------------------------------------------------------------------------------------

// Eleven 3x3 stencils inlined into one another: the last one's definition
// holds some 30,000 distinct values, whose compile would take minutes. The
// schedule is refused before, naming the stages.
TEST(ScheduleErrors, InliningPastTheSizeOfACompilableNest) {
  Param R("R");
  Var x("x"), y("y");
  constexpr int kDepth = 11;
  Image img("img", ScalarType::Float32, {R + 2 * kDepth, R + 2 * kDepth});
  std::vector<Func> chain;
  std::vector<std::string> names;
  for (int k = 1; k <= kDepth; ++k) {
    Func next("s" + std::to_string(k), ScalarType::Float32, {x, y},
              {{k, R + 2 * kDepth - 1 - k}, {k, R + 2 * kDepth - 1 - k}});
    Expr sum = 0.0f;
    for (int dx = -1; dx <= 1; ++dx)
      for (int dy = -1; dy <= 1; ++dy) {
        const Expr tap = chain.empty() ? img(x + dx, y + dy) : chain.back()(x + dx, y + dy);
        sum = sum + tap * (0.1f + 0.01f * static_cast<float>(3 * dx + dy + 4));
      }
    next.define(sum);
    names.push_back(next.name());
    chain.push_back(next);
  }
  const Pipeline p({chain.back()}, "deep_chain");
  Schedule s;
  s.groups = {group(std::vector<std::string>(names.rbegin(), names.rend()))};
  for (int k = 0; k + 1 < kDepth; ++k)
    s.storage[names[static_cast<std::size_t>(k)]] = Storage::Inlined;
  EXPECT_TRAPEZE_ERROR(compile(p, s), "the schedule inlines s10, s9, s8", "s2, s1",
                       "into stage 's11'", "distinct values (at most 25000",
                       "storage \"scratchpad\" or \"full\"");
}

// ---- groups -------------------------------------------------------------------------------------

TEST(ScheduleErrors, UnknownStage) {
  Schedule s = Schedule::naive(unsharp());
  s.groups[1].stages = {"blurry"};
  EXPECT_TRAPEZE_ERROR(
      s.validate(unsharp()), "group 1 [blurry] names an unknown stage 'blurry'",
      "the stages of pipeline 'unsharp' are: img_constant_exterior, blurx, blury, sharpen, mask");
}

TEST(ScheduleErrors, StageInTwoGroups) {
  Schedule s;
  s.groups = {group({border}), group({"blurx", "blury"}), group({"blury", "sharpen", "mask"})};
  EXPECT_TRAPEZE_ERROR(s.validate(unsharp()), "'blury'", "is in two groups",
                       "group 1 [blurx, blury] and group 2 [blury, sharpen, mask]",
                       "remove it from one of them");
}

TEST(ScheduleErrors, StageTwiceInOneGroup) {
  Schedule s;
  s.groups = {group({border, "blurx", "blury", "blurx", "sharpen", "mask"})};
  EXPECT_TRAPEZE_ERROR(s.validate(unsharp()), "lists 'blurx'", "twice");
}

TEST(ScheduleErrors, StageInNoGroup) {
  Schedule s;
  s.groups = {group({border, "blurx", "blury"}), group({"mask"})};
  EXPECT_TRAPEZE_ERROR(s.validate(unsharp()), "'sharpen'", "is in no group", "add it to a group");
}

TEST(ScheduleErrors, EmptyGroup) {
  Schedule s = Schedule::naive(unsharp());
  s.groups.push_back(group({}));
  EXPECT_TRAPEZE_ERROR(s.validate(unsharp()), "group 5 has no stages");
}

TEST(ScheduleErrors, GroupNotConnected) {
  const Pipeline p = apps::find_app("harris").build();
  Schedule s;
  for (const auto& stage : p.stages())
    if (stage->name() != "Ix" && stage->name() != "Iy") s.groups.push_back(group({stage->name()}));
  s.groups.push_back(group({"Ix", "Iy"}));
  EXPECT_TRAPEZE_ERROR(s.validate(p), "[Ix, Iy] is not connected", "{Ix} and {Iy}",
                       "put each of these parts in a group of its own");
}

TEST(ScheduleErrors, CycleBetweenGroups) {
  // sharpen reads blury (group 0) and mask (group 0) reads sharpen (group 1).
  Schedule s;
  s.groups = {group({border, "blurx", "blury", "mask"}), group({"sharpen"})};
  EXPECT_TRAPEZE_ERROR(
      s.validate(unsharp()),
      "the groups group 0 [img_constant_exterior, blurx, blury, mask] and group 1 [sharpen] form "
      "a cycle",
      "'sharpen' (group 1) reads 'blury' (group 0)", "'mask' (group 0) reads 'sharpen' (group 1)",
      "merge them into one group");
}

TEST(ScheduleErrors, ReductionInAFusedGroup) {
  Param N("N");
  Var x("x"), b("b");
  Image img("img", ScalarType::UInt8, {N});
  RVar r("r", {0, N - 1});
  Func hist("hist", ScalarType::Int32, {b}, {{0, 255}});
  hist.define_reduction(0, {r}, {sum_into({cast<int>(img(r))}, 1)});
  Func cdf("cdf", ScalarType::Int32, {x}, {{0, 255}});
  cdf.define(hist(x) * 2);
  const Pipeline p({cdf}, "h");
  Schedule s;
  s.groups = {group({"hist", "cdf"})};
  EXPECT_NO_THROW(s.validate(p)); // hist reads only an input
  Func twice("twice", ScalarType::UInt8, {x}, {{0, N - 1}});
  twice.define(cast<std::uint8_t>(img(x) * 2));
  Func hist2("hist2", ScalarType::Int32, {b}, {{0, 255}});
  hist2.define_reduction(0, {r}, {sum_into({cast<int>(twice(r))}, 1)});
  const Pipeline p2({hist2}, "h2");
  Schedule fused;
  fused.groups = {group({"twice", "hist2"})};
  EXPECT_TRAPEZE_ERROR(fused.validate(p2), "group 0 [twice, hist2] fuses the reduction 'hist2'",
                       "with its producer 'twice'", "put 'twice' in an earlier group");
  // Inlined, `twice` is part of hist2's updates: it has no place in the
  // group's space, and the reduction reads only the input through it.
  fused.storage["twice"] = Storage::Inlined;
  EXPECT_NO_THROW(fused.validate(p2));
  EXPECT_EQ(fused.aligned_stages(p2, 0), std::vector<std::string>{"hist2"});

  Schedule inlined = Schedule::naive(p);
  inlined.storage["hist"] = Storage::Inlined;
  EXPECT_TRAPEZE_ERROR(inlined.validate(p), "'hist'", "is a reduction and cannot be inlined");

  Schedule tiled = Schedule::naive(p);
  tiled.groups[0].tile_sizes = {4};
  EXPECT_NO_THROW(tiled.validate(p)); // each tile computes its bins
}

TEST(ScheduleErrors, DependencesThatCannotBeMadeConstant) {
  Param N("N");
  Var x("x"), y("y");
  Image img("img", ScalarType::Float32, {N, N});
  Func f("f", ScalarType::Float32, {x, y}, {{0, N - 1}, {0, N - 1}});
  f.define(img(x, y) * 2.0f);
  Func g("g", ScalarType::Float32, {x, y}, {{0, N / 2 - 1}, {0, N / 2 - 1}});
  g.define(f(x + y, y)); // x + y: no constant distance in any alignment
  const Pipeline p({g}, "skew");
  Schedule s;
  s.groups = {group({"f", "g"})};
  EXPECT_TRAPEZE_ERROR(s.validate(p), "the dependences of group 0 [f, g] cannot be made constant",
                       "multi-variable", "split the group");
}

// ---- tiles --------------------------------------------------------------------------------------

TEST(ScheduleErrors, TileSizeZeroOrNegative) {
  Schedule s = fused();
  s.groups[0].tile_sizes = {1, 0, 512};
  EXPECT_TRAPEZE_ERROR(s.validate(unsharp()),
                       "group 0 [img_constant_exterior, blurx, blury, sharpen, mask]",
                       "tile size 0 in dimension 1 of [1, 0, 512]", "must be positive");
  s.groups[0].tile_sizes = {1, 8, -4};
  EXPECT_TRAPEZE_ERROR(s.validate(unsharp()), "tile size -4 in dimension 2");
}

TEST(ScheduleErrors, WrongNumberOfTileSizes) {
  Schedule s = fused();
  s.groups[0].tile_sizes = {8, 512};
  EXPECT_TRAPEZE_ERROR(s.validate(unsharp()), "has 2 tile sizes [8, 512]",
                       "its aligned space has 3 dimensions (c, x, y)",
                       "one tile size per dimension");
  Schedule naive = Schedule::naive(unsharp());
  naive.groups[1].tile_sizes = {1, 2, 3, 4};
  EXPECT_TRAPEZE_ERROR(naive.validate(unsharp()), "group 1 [blurx] has 4 tile sizes");
}

TEST(ScheduleErrors, InnerTiles) {
  Schedule s = fused();
  s.groups[0].inner_tile_sizes = {1, 8};
  EXPECT_TRAPEZE_ERROR(s.validate(unsharp()), "has 2 inner tile sizes [1, 8] but 3 tile sizes");
  s.groups[0].inner_tile_sizes = {1, 16, 64};
  EXPECT_TRAPEZE_ERROR(s.validate(unsharp()), "inner tile size 16 in dimension 1 but tile size 8",
                       "no larger than the tile");
  Schedule untiled = Schedule::naive(unsharp());
  untiled.groups[3].inner_tile_sizes = {1, 4, 4};
  EXPECT_TRAPEZE_ERROR(untiled.validate(unsharp()), "group 3 [sharpen] has inner tile sizes",
                       "but is untiled");
}

TEST(ScheduleErrors, VectorBytes) {
  Schedule s = fused();
  s.groups[0].vector_bytes = {{"mask", 32}};
  EXPECT_NO_THROW(s.validate(unsharp()));
  s.groups[0].vector_bytes = {{"mask", 24}};
  EXPECT_TRAPEZE_ERROR(s.validate(unsharp()), "gives vector_bytes 24", "expected 16, 32 or 64");
  Schedule untiled = Schedule::naive(unsharp());
  untiled.groups[3].vector_bytes = {{"mask", 32}};
  EXPECT_TRAPEZE_ERROR(untiled.validate(unsharp()),
                       "group 3 [sharpen] gives vector_bytes for 'mask'", "not one of its stages");
  untiled.groups[3].vector_bytes = {{"sharpen", 32}};
  EXPECT_TRAPEZE_ERROR(untiled.validate(unsharp()), "group 3 [sharpen] gives vector_bytes",
                       "a lone untiled stage");
}

TEST(ScheduleErrors, Prefetch) {
  Schedule s = fused();
  s.groups[0].prefetch = {{"img", 1}};
  EXPECT_NO_THROW(s.validate(unsharp()));
  s.groups[0].prefetch = {{"blury", 1}};
  EXPECT_TRAPEZE_ERROR(s.validate(unsharp()),
                       "prefetches 'blury', which is not one of its live-ins",
                       "its live-ins are img");
  s.groups[0].prefetch = {{"img", 0}};
  EXPECT_TRAPEZE_ERROR(s.validate(unsharp()), "prefetches 'img' 0 rows ahead", "expected 1 to 8");
  s.groups[0].prefetch = {{"img", 9}};
  EXPECT_TRAPEZE_ERROR(s.validate(unsharp()), "prefetches 'img' 9 rows ahead");
  // The naive schedule's groups are untiled; blury's live-in is blurx.
  Schedule untiled = Schedule::naive(unsharp());
  untiled.groups[2].prefetch = {{"blurx", 1}};
  EXPECT_TRAPEZE_ERROR(untiled.validate(unsharp()), "[blury] prefetches live-ins",
                       "an untiled group streams whole rows");
  EXPECT_TRAPEZE_ERROR(
      Schedule::from_json(R"({"groups": [{"stages": ["a"], "prefetch": {"img": 9}}]})"),
      "groups[0].prefetch.img: expected an integer from 1 to 8, got 9");
  EXPECT_TRAPEZE_ERROR(
      Schedule::from_json(R"({"groups": [{"stages": ["a"], "prefetch": ["img"]}]})"),
      "groups[0].prefetch: expected an object of live-in names and rows ahead");
}

TEST(ScheduleErrors, ParallelTileDimsOutOfRange) {
  Schedule s = fused();
  s.groups[0].parallel_tile_dims = 4;
  EXPECT_TRAPEZE_ERROR(s.validate(unsharp()), "has parallel_tile_dims 4",
                       "must be between 0 and 3");
  s.groups[0].parallel_tile_dims = -1;
  EXPECT_TRAPEZE_ERROR(s.validate(unsharp()), "has parallel_tile_dims -1");
}

// ---- storage ------------------------------------------------------------------------------------

TEST(ScheduleErrors, InlinedOutput) {
  Schedule s = fused();
  s.storage["mask"] = Storage::Inlined;
  EXPECT_TRAPEZE_ERROR(s.validate(unsharp()), "'mask'", "is a live-out",
                       "it is an output of the pipeline", "cannot be inlined", "store it \"full\"");
}

TEST(ScheduleErrors, InlinedStageReadByAnotherGroup) {
  Schedule s;
  s.groups = {group({border, "blurx", "blury"}), group({"sharpen", "mask"})};
  s.storage["blury"] = Storage::Inlined;
  EXPECT_TRAPEZE_ERROR(s.validate(unsharp()), "'blury'",
                       "in group 0 [img_constant_exterior, blurx, blury] is a live-out",
                       "'sharpen' in group 1 [sharpen, mask] reads it", "cannot be inlined");
}

TEST(ScheduleErrors, ScratchpadLiveOut) {
  Schedule s = Schedule::naive(unsharp());
  s.storage["blurx"] = Storage::Scratchpad;
  EXPECT_TRAPEZE_ERROR(s.validate(unsharp()), "'blurx'", "is a live-out",
                       "cannot be in a scratchpad");
}

TEST(ScheduleErrors, StorageOfAnUnknownStage) {
  Schedule s = fused();
  s.storage["blurz"] = Storage::Scratchpad;
  EXPECT_TRAPEZE_ERROR(s.validate(unsharp()), "storage names an unknown stage 'blurz'",
                       "img_constant_exterior, blurx, blury, sharpen, mask");
}

TEST(ScheduleErrors, CompileValidatesFirst) {
  Schedule s = fused();
  s.groups[0].tile_sizes = {1, 0, 512};
  EXPECT_TRAPEZE_ERROR(compile(unsharp(), s), "tile size 0 in dimension 1");
}

// ---- JSON ---------------------------------------------------------------------------------------

TEST(ScheduleJsonErrors, NotJson) {
  EXPECT_TRAPEZE_ERROR(Schedule::from_json("{\"groups\": [}"), "schedule JSON: not valid JSON");
}

TEST(ScheduleJsonErrors, WrongTypes) {
  EXPECT_TRAPEZE_ERROR(
      Schedule::from_json(
          R"({"groups": [{"stages": ["a"]}, {"stages": ["b"], "tile_sizes": ["8", 512]}]})"),
      "schedule JSON: groups[1].tile_sizes[0]: expected a positive integer (at most 1073741824), "
      "got \"8\"");
  EXPECT_TRAPEZE_ERROR(
      Schedule::from_json(R"({"groups": [{"stages": ["a"], "tile_sizes": [8, 0]}]})"),
      "groups[0].tile_sizes[1]: expected a positive integer (at most 1073741824), got 0");
  EXPECT_TRAPEZE_ERROR(
      Schedule::from_json(R"({"groups": [{"stages": ["a"], "inner_tile_sizes": [2.5]}]})"),
      "groups[0].inner_tile_sizes[0]: expected a positive integer (at most 1073741824), got 2.5");
  EXPECT_TRAPEZE_ERROR(Schedule::from_json(R"({"groups": [{"stages": ["a"], "vectorize": 1}]})"),
                       "groups[0].vectorize: expected true or false, got 1");
  EXPECT_TRAPEZE_ERROR(
      Schedule::from_json(R"({"groups": [{"stages": ["a"], "vector_bytes": {"a": 48}}]})"),
      "groups[0].vector_bytes.a: expected 16, 32 or 64, got 48");
  EXPECT_TRAPEZE_ERROR(
      Schedule::from_json(R"({"groups": [{"stages": ["a"], "vector_bytes": [32]}]})"),
      "groups[0].vector_bytes: expected an object");
  EXPECT_TRAPEZE_ERROR(
      Schedule::from_json(R"({"groups": [{"stages": ["a"], "shape": "trapezoid"}]})"),
      "groups[0].shape: expected \"scalene\", \"polymage\" or \"rectangle\", got \"trapezoid\"");
  EXPECT_TRAPEZE_ERROR(
      Schedule::from_json(R"({"groups": [{"stages": ["a"], "parallel_schedule": "guided"}]})"),
      "groups[0].parallel_schedule: expected \"static\", \"dynamic\" or \"chunked\", got "
      "\"guided\"");
  EXPECT_TRAPEZE_ERROR(
      Schedule::from_json(R"({"groups": [{"stages": ["a"], "parallel_tile_dims": -1}]})"),
      "groups[0].parallel_tile_dims: expected an integer from 0 to 64, got -1");
  EXPECT_TRAPEZE_ERROR(
      Schedule::from_json(R"({"groups": [{"stages": ["a"], "parallel_tile_dims": 99}]})"),
      "groups[0].parallel_tile_dims: expected an integer from 0 to 64, got 99");
  EXPECT_TRAPEZE_ERROR(
      Schedule::from_json(
          R"({"groups": [{"stages": ["a"], "tile_sizes": [18446744073709551615]}]})"),
      "groups[0].tile_sizes[0]: expected a positive integer (at most 1073741824), got "
      "18446744073709551615");
  EXPECT_TRAPEZE_ERROR(Schedule::from_json(R"({"groups": [{"stages": "a"}]})"),
                       "groups[0].stages: expected an array of stage names, got \"a\"");
  EXPECT_TRAPEZE_ERROR(Schedule::from_json(R"({"groups": [{"stages": ["a", 3]}]})"),
                       "groups[0].stages[1]: expected a stage name, got 3");
  EXPECT_TRAPEZE_ERROR(Schedule::from_json(R"({"groups": {"stages": ["a"]}})"),
                       "schedule JSON: groups: expected an array of groups");
  EXPECT_TRAPEZE_ERROR(Schedule::from_json(R"({"groups": [], "storage": {"a": "register"}})"),
                       "storage.a: expected \"full\", \"scratchpad\" or \"inline\", got "
                       "\"register\"");
  EXPECT_TRAPEZE_ERROR(Schedule::from_json(R"({"version": 2, "groups": []})"),
                       "schedule JSON: version: expected 1, got 2");
  EXPECT_TRAPEZE_ERROR(Schedule::from_json("[1, 2]"), "schedule JSON: expected an object");
}

TEST(ScheduleJsonErrors, DuplicateKeys) {
  EXPECT_TRAPEZE_ERROR(Schedule::from_json(R"({"groups": [], "groups": []})"),
                       "schedule JSON: the key \"groups\" appears twice in the top-level object");
  EXPECT_TRAPEZE_ERROR(
      Schedule::from_json(
          R"({"groups": [{"stages": ["a"]}, {"stages": ["b"], "vectorize": true, "vectorize": false}]})"),
      "the key \"vectorize\" appears twice in the object at groups[1]");
  EXPECT_TRAPEZE_ERROR(
      Schedule::from_json(R"({"groups": [], "storage": {"a": "full", "a": "inline"}})"),
      "the key \"a\" appears twice in the object at storage");
  // The same key in two objects is fine.
  EXPECT_NO_THROW(Schedule::from_json(R"({"groups": [{"stages": ["a"]}, {"stages": ["b"]}]})"));
}

TEST(ScheduleJsonErrors, DeepNesting) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_TRAPEZE_ERROR(Schedule::from_json(deep), "schedule JSON: ", "nests deeper than 16 levels");
  EXPECT_TRAPEZE_ERROR(
      Schedule::from_json(
          R"({"groups": [{"stages": ["a"], "tile_sizes": [[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]}]})"),
      "groups[0].tile_sizes[0][0]", "nests deeper than 16 levels");
}

TEST(ScheduleJsonErrors, UnknownField) {
  EXPECT_TRAPEZE_ERROR(
      Schedule::from_json(R"({"groups": [{"stages": ["a"], "tile_size": [8, 8]}]})"),
      "schedule JSON: groups[0]: unknown field \"tile_size\"", "tile_sizes");
  EXPECT_TRAPEZE_ERROR(Schedule::from_json(R"({"groups": [], "storag": {}})"),
                       "schedule JSON: unknown field \"storag\"",
                       "(the fields are: groups, storage, version)");
}

TEST(ScheduleJsonErrors, MissingFields) {
  EXPECT_TRAPEZE_ERROR(
      Schedule::from_json(R"({"groups": [{"stages": ["a"]}, {"shape": "scalene"}]})"),
      "schedule JSON: groups[1]: missing field \"stages\"");
  EXPECT_TRAPEZE_ERROR(Schedule::from_json(R"({"groups": [{"stages": []}]})"),
                       "groups[0].stages: expected a non-empty array of stage names, got []");
  EXPECT_TRAPEZE_ERROR(Schedule::from_json(R"({"storage": {}})"),
                       "schedule JSON: missing field \"groups\"");
}

TEST(ScheduleJsonErrors, FileErrorsNameTheFile) {
  EXPECT_TRAPEZE_ERROR(Schedule::load("/nonexistent/schedule.json"),
                       "cannot read schedule file '/nonexistent/schedule.json'");
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() /
      ("trapeze_bad_schedule_" + std::to_string(::getpid()) + ".json");
  {
    std::ofstream out(path);
    out << R"({"groups": [{"stages": ["a"], "tile_sizes": [8, "8"]}]})";
  }
  EXPECT_TRAPEZE_ERROR(Schedule::load(path.string()),
                       path.string() + ": groups[0].tile_sizes[1]: expected a positive integer "
                                       "(at most 1073741824), got \"8\"");
  std::filesystem::remove(path);
}

} // namespace
} // namespace trapeze
