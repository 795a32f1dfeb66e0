// Schedules: the naive schedule, storage defaults, validation of good
// schedules, and the JSON round trip.
#include "app.h"
#include "trapeze/schedule.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace trapeze {
namespace {

using testing::HasSubstr;

// Structural equality, field by field (the header defines no operator==).
void expect_same(const Schedule& expected, const Schedule& actual) {
  ASSERT_EQ(expected.groups.size(), actual.groups.size());
  for (std::size_t g = 0; g < expected.groups.size(); ++g) {
    SCOPED_TRACE("group " + std::to_string(g));
    const GroupSchedule &a = expected.groups[g], &b = actual.groups[g];
    EXPECT_EQ(a.stages, b.stages);
    EXPECT_EQ(a.tile_sizes, b.tile_sizes);
    EXPECT_EQ(a.shape, b.shape);
    EXPECT_EQ(a.inner_tile_sizes, b.inner_tile_sizes);
    EXPECT_EQ(a.parallel_tile_dims, b.parallel_tile_dims);
    EXPECT_EQ(a.parallel_schedule, b.parallel_schedule);
    EXPECT_EQ(a.vectorize, b.vectorize);
    EXPECT_EQ(a.vector_bytes, b.vector_bytes);
    EXPECT_EQ(a.prefetch, b.prefetch);
    EXPECT_EQ(a.intra_tile_fusion, b.intra_tile_fusion);
    EXPECT_EQ(a.reassociate_float_sums, b.reassociate_float_sums);
    EXPECT_EQ(a.reasons, b.reasons);
  }
  EXPECT_EQ(expected.storage, actual.storage);
}

void expect_round_trip(const Schedule& s) {
  const std::string text = s.to_json();
  const Schedule back = Schedule::from_json(text);
  expect_same(s, back);
  EXPECT_EQ(back.to_json(), text);
}

Pipeline unsharp() { return apps::find_app("unsharp").build(); }

// unsharp fused into one group with 8x512 tiles (the docs/schedule.md example).
Schedule unsharp_fused() {
  Schedule s;
  GroupSchedule g;
  g.stages = {"img_constant_exterior", "blurx", "blury", "sharpen", "mask"};
  g.tile_sizes = {1, 8, 512};
  g.reasons = {"fuse the whole pipeline: every dependence is a small constant"};
  s.groups.push_back(g);
  return s;
}

// Two groups with every field set to something other than its default.
Schedule unsharp_two_groups() {
  Schedule s;
  GroupSchedule a;
  a.stages = {"img_constant_exterior", "blurx", "blury"};
  a.tile_sizes = {3, 32, 256};
  a.shape = TileShape::PolyMage;
  a.inner_tile_sizes = {1, 8, 64};
  a.parallel_tile_dims = 2;
  a.vectorize = false;
  a.intra_tile_fusion = false;
  a.reasons = {"blurs together", "a \"quoted\" reason with a\nnewline, a tab\t and ümlauts"};
  GroupSchedule b;
  b.stages = {"sharpen", "mask"};
  b.tile_sizes = {1, 16, 128};
  b.shape = TileShape::Rectangle;
  b.parallel_tile_dims = 0;
  s.groups = {a, b};
  s.storage = {
      {"blurx", Storage::Scratchpad}, {"sharpen", Storage::Inlined}, {"blury", Storage::Full}};
  return s;
}

TEST(Schedule, NamesParseBack) {
  for (TileShape t : {TileShape::Scalene, TileShape::PolyMage, TileShape::Rectangle})
    EXPECT_EQ(parse_tile_shape(tile_shape_name(t)), t);
  for (Storage s : {Storage::Full, Storage::Scratchpad, Storage::Inlined})
    EXPECT_EQ(parse_storage(storage_name(s)), s);
  EXPECT_FALSE(parse_tile_shape("trapezoid"));
  EXPECT_FALSE(parse_storage("inlined"));
}

TEST(Schedule, NaiveValidatesAndRoundTripsForEveryApp) {
  for (const apps::App& app : apps::all_apps()) {
    SCOPED_TRACE(app.name);
    const Pipeline p = app.build();
    const Schedule s = Schedule::naive(p);
    ASSERT_EQ(s.groups.size(), p.stages().size());
    EXPECT_NO_THROW(s.validate(p));
    for (const auto& stage : p.stages())
      EXPECT_EQ(s.storage_of(p, stage->name()), Storage::Full) << stage->name();
    expect_round_trip(s);
  }
}

TEST(Schedule, HandMadeSchedulesValidateAndRoundTrip) {
  const Pipeline p = unsharp();
  for (const Schedule& s : {unsharp_fused(), unsharp_two_groups()}) {
    EXPECT_NO_THROW(s.validate(p));
    expect_round_trip(s);
  }
}

TEST(Schedule, EmptyScheduleRoundTrips) { expect_round_trip(Schedule{}); }

TEST(Schedule, StorageDefaultsFollowLiveOuts) {
  const Pipeline p = unsharp();
  const Schedule two = unsharp_two_groups();
  EXPECT_EQ(two.storage_of(p, "blurx"), Storage::Scratchpad); // given
  EXPECT_EQ(two.storage_of(p, "sharpen"), Storage::Inlined);  // given
  Schedule defaults = two;
  defaults.storage.clear();
  EXPECT_EQ(defaults.storage_of(p, "blurx"), Storage::Scratchpad); // inside its group
  EXPECT_EQ(defaults.storage_of(p, "blury"), Storage::Full);       // read by the other group
  EXPECT_EQ(defaults.storage_of(p, "sharpen"), Storage::Scratchpad);
  EXPECT_EQ(defaults.storage_of(p, "mask"), Storage::Full); // the output
}

TEST(Schedule, MissingOptionalFieldsTakeTheDefaults) {
  const Schedule s = Schedule::from_json(R"({"groups": [{"stages": ["blurx", "blury"]}]})");
  ASSERT_EQ(s.groups.size(), 1u);
  const GroupSchedule& g = s.groups[0];
  const GroupSchedule defaults;
  EXPECT_EQ(g.stages, (std::vector<std::string>{"blurx", "blury"}));
  EXPECT_TRUE(g.tile_sizes.empty());
  EXPECT_EQ(g.shape, defaults.shape);
  EXPECT_TRUE(g.inner_tile_sizes.empty());
  EXPECT_EQ(g.parallel_tile_dims, defaults.parallel_tile_dims);
  EXPECT_EQ(g.vectorize, defaults.vectorize);
  EXPECT_EQ(g.intra_tile_fusion, defaults.intra_tile_fusion);
  EXPECT_TRUE(g.reasons.empty());
  EXPECT_TRUE(s.storage.empty());
}

TEST(Schedule, JsonReadsAsDocumented) {
  const std::string text = unsharp_fused().to_json();
  EXPECT_THAT(text, HasSubstr("\"version\": 1"));
  EXPECT_THAT(
      text,
      HasSubstr(
          "\"stages\": [\"img_constant_exterior\", \"blurx\", \"blury\", \"sharpen\", \"mask\"]"));
  EXPECT_THAT(text, HasSubstr("\"tile_sizes\": [1, 8, 512]"));
  EXPECT_THAT(text, HasSubstr("\"shape\": \"scalene\""));
  EXPECT_THAT(text, HasSubstr("\"parallel_tile_dims\": 1"));
  EXPECT_THAT(text, HasSubstr("\"vectorize\": true"));
  EXPECT_THAT(unsharp_two_groups().to_json(), HasSubstr("\"sharpen\": \"inline\""));
  // The documented example parses and fits unsharp.
  const Schedule doc = Schedule::from_json(R"({
    "version": 1,
    "groups": [{"stages": ["img_constant_exterior", "blurx", "blury", "sharpen", "mask"], "tile_sizes": [1, 8, 512],
                "shape": "scalene", "parallel_tile_dims": 1, "vectorize": true}],
    "storage": {"img_constant_exterior": "inline", "blurx": "scratchpad", "blury": "scratchpad",
                "sharpen": "inline"}
  })");
  EXPECT_NO_THROW(doc.validate(unsharp()));
}

TEST(Schedule, LoadsAFile) {
  const std::filesystem::path path = std::filesystem::temp_directory_path() /
                                     ("trapeze_schedule_" + std::to_string(::getpid()) + ".json");
  {
    std::ofstream out(path);
    out << unsharp_two_groups().to_json();
  }
  const Schedule s = Schedule::load(path.string());
  std::filesystem::remove(path);
  expect_same(unsharp_two_groups(), s);
}

TEST(Schedule, FusedGroupsOfEveryShapeValidate) {
  // blur fused, and harris's gradient chain with its products fused.
  const Pipeline blur = apps::find_app("blur").build();
  Schedule b;
  b.groups.push_back({{"blurx", "blury"},
                      {8, 256},
                      TileShape::Rectangle,
                      {4, 64},
                      2,
                      ParallelSchedule::Static,
                      true,
                      {},
                      {},
                      true,
                      false,
                      {}});
  EXPECT_NO_THROW(b.validate(blur));
  expect_round_trip(b); // the parallel schedule given
  b.groups[0].parallel_schedule = ParallelSchedule::Chunked;
  expect_round_trip(b);
  b.groups[0].reassociate_float_sums = true;
  expect_round_trip(b);
  b.groups[0].vector_bytes = {{"blury", 32}, {"blurx", 16}};
  EXPECT_NO_THROW(b.validate(blur));
  expect_round_trip(b);
  b.groups[0].prefetch = {{"img", 2}};
  EXPECT_NO_THROW(b.validate(blur));
  expect_round_trip(b);

  const Pipeline harris = apps::find_app("harris").build();
  Schedule fused;
  std::vector<std::string> all;
  for (const auto& stage : harris.stages())
    all.push_back(stage->name());
  fused.groups.push_back({all,
                          {32, 256},
                          TileShape::PolyMage,
                          {},
                          1,
                          std::nullopt,
                          true,
                          {},
                          {},
                          true,
                          false,
                          {"all of it"}});
  EXPECT_NO_THROW(fused.validate(harris));
  expect_round_trip(fused);
}

} // namespace
} // namespace trapeze
