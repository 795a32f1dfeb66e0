// Through the command line, at the app's small size, against the
// interpreter: every app's hand-written schedule with every group's tile
// shape replaced (`trapeze schedule APP --scheduler manual`, edit, `trapeze
// run APP --schedule FILE --check`), and every app under the automatic
// schedulers (`trapeze run APP --scheduler S --check`).
//
// JIT compiles of the large apps' fused code take 10-60 s each, so the suite
// (label integration) runs each app with one shape (and one of the greedy
// schedulers), taken in turn, compiled at -O1; the whole matrix, every app x
// every shape and every automatic scheduler at the JIT's default flags, is
// the label `slow` (ctest -L slow), which scripts/test.sh leaves out.
#include "app.h"
#include "support/cli_runner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace trapeze {
namespace {

namespace fs = std::filesystem;

/// The tile shapes.
const std::vector<std::string> kTileShapes = {"scalene", "polymage", "rectangle"};

struct Case {
  std::string app, shape;
  std::string flags; ///< TRAPEZE_CXXFLAGS for the JIT; empty: its defaults
};
// gtest names a failing case by this, not by its bytes.
void PrintTo(const Case& c, std::ostream* os) { *os << c.app << " " << c.shape; }

#ifdef TRAPEZE_EVERY_SHAPE
std::vector<Case> test_cases() {
  std::vector<Case> cases;
  for (const apps::App& app : apps::all_apps())
    for (const std::string& shape : kTileShapes)
      cases.push_back({app.name, shape, ""});
  return cases;
}
#else
std::vector<Case> test_cases() {
  std::vector<Case> cases;
  std::size_t turn = 0;
  for (const apps::App& app : apps::all_apps())
    cases.push_back(
        {app.name, kTileShapes[turn++ % kTileShapes.size()], "-O1 -fopenmp -ffp-contract=off"});
  return cases;
}
#endif

using testing_support::CliResult;

CliResult run_cli(const std::string& args, const fs::path& dir, const std::string& flags = "") {
  return testing_support::run_cli(TRAPEZE_CLI_PATH, args, dir,
                                  flags.empty() ? "" : "TRAPEZE_CXXFLAGS='" + flags + "'");
}

// "--param R=66 --param C=82": the app's small size.
std::string small_size_arguments(const apps::App& app) {
  std::string args;
  for (const auto& [name, value] : app.small_size)
    args += " --param " + name + "=" +
            (value.is_float ? std::to_string(value.f) : std::to_string(value.i));
  return args;
}

class ManualScheduleShapes : public testing::TestWithParam<Case> {
protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("trapeze_schedules_" + std::to_string(::getpid()) + "_" +
                                        GetParam().app + "_" + GetParam().shape);
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_P(ManualScheduleShapes, RunsAndMatchesTheInterpreter) {
  const Case& c = GetParam();
  const CliResult printed = run_cli("schedule " + c.app + " --scheduler manual", dir_);
  ASSERT_EQ(printed.exit_code, 0) << printed.err;
  nlohmann::ordered_json schedule = nlohmann::ordered_json::parse(printed.out);
  ASSERT_FALSE(schedule["groups"].empty());
  int fused = 0;
  for (auto& group : schedule["groups"]) {
    group["shape"] = c.shape;
    fused += group["stages"].size() > 1 ? 1 : 0;
  }
  EXPECT_GT(fused, 0) << c.app << ": the manual schedule fuses nothing";
  const fs::path file = dir_ / "schedule.json";
  std::ofstream(file) << schedule.dump(2);

  const CliResult run =
      run_cli("run " + c.app + " --schedule " + file.string() + " --check --reps 1" +
                  small_size_arguments(apps::find_app(c.app)),
              dir_, c.flags);
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_THAT(run.out, testing::HasSubstr("check against the interpreter: passed")) << run.err;
}

INSTANTIATE_TEST_SUITE_P(AllApps, ManualScheduleShapes, testing::ValuesIn(test_cases()),
                         [](const testing::TestParamInfo<Case>& param) {
                           return param.param.app + "_" + param.param.shape;
                         });

// Every app under the automatic schedulers (Case::shape holds the scheduler),
// made for and run at its small size: the greedy baselines here (dp is every
// app's default, correctness_apps), all three in the whole matrix.
#ifdef TRAPEZE_EVERY_SHAPE
std::vector<Case> scheduler_cases() {
  std::vector<Case> cases;
  for (const apps::App& app : apps::all_apps())
    for (const char* scheduler : {"dp", "greedy", "halide-greedy"})
      cases.push_back({app.name, scheduler, ""});
  return cases;
}
#else
std::vector<Case> scheduler_cases() {
  std::vector<Case> cases;
  std::size_t turn = 0;
  for (const apps::App& app : apps::all_apps())
    if (!app.test_sizes.empty()) // the image apps; multigrid's compiles are the slow label's
      cases.push_back(
          {app.name, turn++ % 2 ? "halide-greedy" : "greedy", "-O1 -fopenmp -ffp-contract=off"});
  return cases;
}
#endif

class AutomaticSchedulers : public ManualScheduleShapes {};

TEST_P(AutomaticSchedulers, RunAndMatchTheInterpreter) {
  const Case& c = GetParam();
  const CliResult run = run_cli("run " + c.app + " --scheduler " + c.shape + " --check --reps 1" +
                                    small_size_arguments(apps::find_app(c.app)),
                                dir_, c.flags);
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_THAT(run.out, testing::HasSubstr("check against the interpreter: passed")) << run.err;
  EXPECT_THAT(run.out, testing::HasSubstr(c.shape + " schedule"));
}

INSTANTIATE_TEST_SUITE_P(AllApps, AutomaticSchedulers, testing::ValuesIn(scheduler_cases()),
                         [](const testing::TestParamInfo<Case>& param) {
                           std::string name = param.param.app + "_" + param.param.shape;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

} // namespace
} // namespace trapeze
