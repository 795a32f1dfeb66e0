// Every app, compiled through the JIT, matches the reference interpreter:
// exactly for integer outputs, within the app's tolerance for float outputs,
// at the small size and at odd sizes. 200x300 is where FMA contraction once
// flipped unsharp's threshold comparison (the JIT now compiles without it).
#include "app.h"
#include "trapeze/runtime.h"

#include <gtest/gtest.h>

namespace trapeze {
namespace {

struct SizeCase {
  std::string app;
  std::string size; // "small" or "RxC"
};

// Readable names in test listings instead of the bytes of the struct.
void PrintTo(const SizeCase& c, std::ostream* os) { *os << c.app << " at " << c.size; }

std::string case_name(const testing::TestParamInfo<SizeCase>& info) {
  return info.param.app + "_" + info.param.size;
}

std::vector<SizeCase> all_cases() {
  std::vector<SizeCase> cases;
  for (const apps::App& a : apps::all_apps()) {
    cases.push_back({a.name, "small"});
    for (const auto& [rows, cols] : a.test_sizes)
      cases.push_back({a.name, std::to_string(rows) + "x" + std::to_string(cols)});
  }
  return cases;
}

class AppMatchesInterpreter : public testing::TestWithParam<SizeCase> {};

TEST_P(AppMatchesInterpreter, AtSize) {
  const apps::App& app = apps::find_app(GetParam().app);
  const Pipeline p = app.build();
  ParamValues params = app.small_size;
  if (GetParam().size != "small") {
    const auto x = GetParam().size.find('x');
    params = app.size_for_image(std::stoll(GetParam().size.substr(0, x)),
                                std::stoll(GetParam().size.substr(x + 1)));
  }
  const ParamValues bound = p.bind(params);
  const BufferMap inputs = app.make_inputs(p, bound);
  const BufferMap expected = interpret(p, bound, inputs);
  const CompiledPipeline compiled = compile(p);
  for (int threads : {1, 2}) {
    const BufferMap actual = compiled.run(bound, inputs, threads);
    for (const auto& out : p.outputs()) {
      const auto mismatch =
          compare_buffers(expected.at(out->name()), actual.at(out->name()),
                          output_tolerance(p, *out, compiled.reassociated_sums(), app.tolerance));
      EXPECT_FALSE(mismatch.has_value())
          << app.name << " output " << out->name() << " with " << threads
          << " threads: " << (mismatch ? mismatch->str() : "");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Apps, AppMatchesInterpreter, testing::ValuesIn(all_cases()), case_name);

} // namespace
} // namespace trapeze
