// Fused, overlapped-tiled schedules compiled through the JIT match the
// reference interpreter: both tile shapes, tile sizes that do not divide the
// image, tiles larger than the image, 1-wide tiles, scratchpads and inlined
// point-wise stages, several groups, at small and odd sizes. Each schedule is
// compiled once and run at every size.
#include "app.h"
#include "trapeze/runtime.h"

#include <gtest/gtest.h>

namespace trapeze {
namespace {

struct TilingCase {
  std::string app;
  std::string label; // test name suffix
  std::function<Schedule(const Pipeline&)> schedule;
};

void PrintTo(const TilingCase& c, std::ostream* os) { *os << c.app << " " << c.label; }

std::string case_name(const testing::TestParamInfo<TilingCase>& info) {
  return info.param.app + "_" + info.param.label;
}

// The app's manual schedule with the one group's tiles and shape replaced.
std::function<Schedule(const Pipeline&)> variant(Schedule (*manual)(const Pipeline&),
                                                 std::vector<std::int64_t> sizes, TileShape shape,
                                                 std::map<std::string, Storage> storage = {},
                                                 int parallel = 1) {
  return [=](const Pipeline& p) {
    Schedule s = manual(p);
    s.groups[0].tile_sizes = sizes;
    s.groups[0].shape = shape;
    s.groups[0].parallel_tile_dims = parallel;
    for (const auto& [stage, where] : storage)
      s.storage[stage] = where;
    return s;
  };
}

// harris in two tiled groups: the gradients and their products, then the rest.
Schedule harris_two_groups(const Pipeline& p) {
  Schedule s = apps::make_manual_schedule_harris(p);
  GroupSchedule second = s.groups[0];
  s.groups[0].stages = {"Ix", "Iy", "Ixx", "Iyy", "Ixy"};
  s.groups[0].tile_sizes = {9, 14};
  second.stages = {"Sxx", "Syy", "Sxy", "det", "trace", "harris"};
  second.tile_sizes = {5, 1000};
  second.shape = TileShape::PolyMage;
  s.groups = {second, s.groups[0]}; // listed out of order on purpose
  return s;
}

std::vector<TilingCase> all_cases() {
  const auto scalene = TileShape::Scalene, polymage = TileShape::PolyMage;
  const auto scratch = Storage::Scratchpad, full = Storage::Full, inlined = Storage::Inlined;
  const auto blur = &apps::make_manual_schedule_blur;
  const auto unsharp = &apps::make_manual_schedule_unsharp;
  const auto harris = &apps::make_manual_schedule_harris;
  return {
      {"blur", "manual", blur},
      {"blur", "scalene_7x13", variant(blur, {7, 13}, scalene)},
      {"blur", "polymage_7x13", variant(blur, {7, 13}, polymage, {}, 2)},
      {"blur", "scalene_1x1", variant(blur, {1, 1}, scalene)},
      {"blur", "polymage_huge_full", variant(blur, {1000, 1000}, polymage, {{"blurx", full}})},
      {"blur", "untiled_group", variant(blur, {}, scalene)},
      {"blur", "scalene_inlined_blurx", variant(blur, {4, 9}, scalene, {{"blurx", inlined}})},
      {"unsharp", "manual", unsharp},
      {"unsharp", "scalene_scratchpad_2x5x11",
       variant(unsharp, {2, 5, 11}, scalene, {{"sharpen", scratch}}, 3)},
      {"unsharp", "polymage_inlined_1x3x7", variant(unsharp, {1, 3, 7}, polymage)},
      {"unsharp", "polymage_scratchpad_huge",
       variant(unsharp, {3, 1000, 1000}, polymage, {{"sharpen", scratch}}, 0)},
      {"unsharp", "scalene_inlined_1_wide", variant(unsharp, {1, 1, 1}, scalene)},
      {"harris", "manual", harris},
      {"harris", "polymage_6x10", variant(harris, {6, 10}, polymage)},
      {"harris", "scalene_1x5", variant(harris, {1, 5}, scalene, {}, 2)},
      {"harris", "scalene_huge", variant(harris, {500, 500}, scalene, {{"Ixx", full}})},
      {"harris", "two_groups", harris_two_groups},
  };
}

class TiledScheduleMatchesInterpreter : public testing::TestWithParam<TilingCase> {};

TEST_P(TiledScheduleMatchesInterpreter, AtSmallAndOddSizes) {
  const apps::App& app = apps::find_app(GetParam().app);
  const Pipeline p = app.build();
  const CompiledPipeline compiled = compile(p, GetParam().schedule(p));
  std::vector<ParamValues> sizes = {app.small_size, app.size_for_image(37, 61),
                                    app.size_for_image(8, 9)};
  int threads = 1;
  for (const ParamValues& size : sizes) {
    const ParamValues bound = p.bind(size);
    const BufferMap inputs = app.make_inputs(p, bound);
    const BufferMap expected = interpret(p, bound, inputs);
    const BufferMap actual = compiled.run(bound, inputs, threads);
    threads = 3 - threads; // alternate 1 and 2 threads
    for (const auto& out : p.outputs()) {
      const auto mismatch =
          compare_buffers(expected.at(out->name()), actual.at(out->name()), app.tolerance);
      EXPECT_FALSE(mismatch.has_value()) << GetParam().label << " output " << out->name() << ": "
                                         << (mismatch ? mismatch->str() : "") << "\n"
                                         << compiled.source();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Apps, TiledScheduleMatchesInterpreter, testing::ValuesIn(all_cases()),
                         case_name);

} // namespace
} // namespace trapeze
