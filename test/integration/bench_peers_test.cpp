// `trapeze bench` with the Halide and OpenCV peers, run as a user runs it:
// every row's result agrees with trapeze's, each peer has rows for exactly the
// apps it covers in this build (peer_apps) and says why for the others, and
// the table's columns line up whatever the variant names.
#include "peers.h"

#include "trapeze/error.h"

#include "support/cli_runner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace trapeze {
namespace {

using testing::HasSubstr;
namespace fs = std::filesystem;

const std::vector<std::string> all_bench_apps = {
    "blur",        "unsharp",       "harris",      "bilateral_grid",
    "camera_pipe", "pyramid_blend", "interpolate", "local_laplacian"};
const std::vector<std::string> halide_rows = {"halide manual", "halide mullapudi2016",
                                              "halide adams2019"};
const std::vector<std::string> opencv_rows = {"opencv"};

using testing_support::read_file;

struct BenchRun {
  int exit_code = -1;
  std::string table, err;
  nlohmann::json json;
};

// trapeze's rows: naive (the reference every row is checked against) and
// dp (the default); each other scheduler's full-flag JIT compiles of all
// eight apps would double the test's time (137 s on 2 cores), and the
// schedules suite and the label `slow` already run them against the
// interpreter.
BenchRun run_bench_with_peers(const fs::path& dir) {
  std::string apps;
  for (const std::string& a : all_bench_apps)
    apps += a + " ";
  const fs::path json = dir / "bench.json";
  const testing_support::CliResult cli = testing_support::run_cli(
      TRAPEZE_CLI_PATH,
      "bench " + apps + "--schedulers naive,dp --peers halide,opencv --small --reps 2 --json " +
          json.string(),
      dir);
  BenchRun r;
  r.exit_code = cli.exit_code;
  r.table = cli.out;
  r.err = cli.err;
  if (fs::exists(json)) r.json = nlohmann::json::parse(read_file(json));
  return r;
}

// Per app, the variant names of its rows and its skipped lines.
struct AppRows {
  std::set<std::string> variants;
  std::vector<std::string> skipped;
};

std::map<std::string, AppRows> rows_by_app(const nlohmann::json& j) {
  std::map<std::string, AppRows> rows;
  for (const auto& app : j.at("apps")) {
    AppRows& r = rows[app.at("app").get<std::string>()];
    for (const auto& v : app.at("variants"))
      r.variants.insert(v.at("name").get<std::string>());
    r.skipped = app.at("skipped").get<std::vector<std::string>>();
  }
  return rows;
}

// `peer` has the rows `names` for exactly the apps in `covered`, and every
// other app has a skipped line that starts with "<peer>: ". Halide's
// schedules are made for the default size: at --small a Halide row may instead
// be skipped, saying so (`size_skips_allowed`).
void expect_peer_rows(const std::map<std::string, AppRows>& rows, const std::string& peer,
                      const std::vector<std::string>& covered,
                      const std::vector<std::string>& names, bool size_skips_allowed) {
  const auto has_skip = [](const AppRows& r, const std::string& prefix, const std::string& why) {
    return std::any_of(r.skipped.begin(), r.skipped.end(), [&](const std::string& s) {
      return s.rfind(prefix, 0) == 0 && s.find(why) != std::string::npos;
    });
  };
  for (const auto& [app, r] : rows) {
    SCOPED_TRACE(peer + " rows of " + app);
    const bool covers = std::find(covered.begin(), covered.end(), app) != covered.end();
    for (const std::string& name : names) {
      if (covers && ((size_skips_allowed &&
                      has_skip(r, name + ": ", "its schedule is made for the default size")) ||
                     has_skip(r, name + ": ", "known crash")))
        EXPECT_EQ(r.variants.count(name), 0u) << name;
      else
        EXPECT_EQ(r.variants.count(name), covers ? 1u : 0u) << name;
    }
    EXPECT_EQ(has_skip(r, peer + ": ", ""), !covers);
  }
}

// The first column is as wide as the longest variant name: in each app table
// every row's median ends where the header's "median ms" does (and the row
// ends with its check), and in the geometric-mean table every row's first
// ratio ("1.00x") ends where the header's "vs fastest" does.
void expect_aligned_columns(const std::string& table, const nlohmann::json& j) {
  std::istringstream lines(table);
  std::string line;
  std::size_t median_end = std::string::npos, ratio_end = std::string::npos;
  std::map<std::string, std::string> checks; // of the current app table
  int rows_seen = 0, mean_rows_seen = 0;
  while (std::getline(lines, line)) {
    for (const auto& app : j.at("apps")) {
      if (line.rfind(app.at("app").get<std::string>() + "  (", 0) != 0) continue;
      checks.clear();
      for (const auto& v : app.at("variants"))
        checks[v.at("name").get<std::string>()] = v.at("check").get<std::string>();
    }
    if (line.rfind("  variant ", 0) == 0 && line.find("median ms") != std::string::npos) {
      median_end = line.find("median ms") + std::string("median ms").size();
      continue;
    }
    if (line.rfind("  variant ", 0) == 0 && line.find("speedup over naive") != std::string::npos) {
      checks.clear(); // the app tables are over
      ratio_end = line.find("vs fastest") + std::string("vs fastest").size();
      continue;
    }
    for (const auto& [name, check] : checks) {
      if (line.rfind("  " + name + " ", 0) != 0 || median_end == std::string::npos) continue;
      ASSERT_GT(line.size(), median_end) << line;
      EXPECT_TRUE(std::isdigit(static_cast<unsigned char>(line[median_end - 1]))) << line;
      EXPECT_EQ(line[median_end], ' ') << line;
      EXPECT_EQ(line.substr(line.size() - check.size() - 1), " " + check) << line;
      ++rows_seen;
    }
    if (ratio_end != std::string::npos && line.rfind("  ", 0) == 0) {
      EXPECT_GE(line.size(), ratio_end) << line;
      if (line.size() >= ratio_end) {
        EXPECT_EQ(line[ratio_end - 1], 'x') << line;
      }
      ++mean_rows_seen;
    }
  }
  EXPECT_GT(rows_seen, 0) << table;
  EXPECT_GT(mean_rows_seen, 0) << table;
}

TEST(BenchPeers, EveryAppWithBothPeersAgreesWithTrapeze) {
  const fs::path dir =
      fs::temp_directory_path() / ("trapeze_bench_peers_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const BenchRun r = run_bench_with_peers(dir);
  fs::remove_all(dir);

  ASSERT_EQ(r.exit_code, 0) << r.table << r.err;
  ASSERT_EQ(r.json.at("apps").size(), all_bench_apps.size());
  for (const auto& app : r.json.at("apps"))
    for (const auto& v : app.at("variants")) {
      const std::string check = v.at("check").get<std::string>();
      EXPECT_TRUE(check == "reference" || check == "ok")
          << app.at("app") << ", " << v.at("name") << ": " << check;
    }

  // At --small the autoscheduled Halide rows of camera_pipe and interpolate
  // compute Halide's fixed size; the table and the JSON say so.
  for (const auto& app : r.json.at("apps")) {
    const std::string name = app.at("app").get<std::string>();
    const auto notes = app.at("notes").get<std::vector<std::string>>();
    const auto peers = bench::peer_apps("halide");
    const bool padded = (name == "camera_pipe" || name == "interpolate") &&
                        std::find(peers.begin(), peers.end(), name) != peers.end();
    SCOPED_TRACE(name);
    EXPECT_EQ(notes.size(), padded ? 2u : 0u);
    for (const std::string& note : notes) {
      EXPECT_THAT(note, testing::StartsWith("halide "));
      EXPECT_THAT(note, HasSubstr(": timed at Halide's fixed size: computes [3]["));
      EXPECT_THAT(r.table, HasSubstr("  note: " + note + "\n"));
    }
  }

  const auto rows = rows_by_app(r.json);
  expect_peer_rows(rows, "halide", bench::peer_apps("halide"), halide_rows, true);
  expect_peer_rows(rows, "opencv", bench::peer_apps("opencv"), opencv_rows, false);
  expect_aligned_columns(r.table, r.json);
}

TEST(BenchPeers, FixedSizeNoteNamesWhatIsComputedAndWhatIsKept) {
  const std::vector<std::int64_t> fixed = {3, 2560, 1536};
  EXPECT_EQ(bench::fixed_size_note({3, 64, 80}, fixed),
            "timed at Halide's fixed size: computes [3][2560][1536] (its tiles fit no smaller "
            "output) and keeps the [3][64][80] asked for");
  // One extent below the fixed size is enough; the larger ones are kept.
  EXPECT_EQ(bench::fixed_size_note({3, 4000, 100}, fixed),
            "timed at Halide's fixed size: computes [3][4000][1536] (its tiles fit no smaller "
            "output) and keeps the [3][4000][100] asked for");
  EXPECT_EQ(bench::fixed_size_note(fixed, fixed), "");
  EXPECT_EQ(bench::fixed_size_note({3, 4000, 2000}, fixed), "");
}

TEST(BenchPeers, NotesArePrintedUnderTheirAppsTableAndInTheJson) {
  bench::BenchReport report;
  bench::AppResult app;
  app.app = "interpolate";
  app.floor_ms = 1;
  bench::VariantResult row;
  row.name = "halide adams2019";
  row.median_ms = row.min_ms = 2;
  row.check = "ok";
  app.variants.push_back(row);
  app.notes.push_back("halide adams2019: timed at Halide's fixed size");
  report.apps.push_back(app);
  EXPECT_THAT(bench::format_table(report),
              HasSubstr("\n  note: halide adams2019: timed at Halide's fixed size\n"));
  const auto j = nlohmann::json::parse(bench::format_json(report));
  EXPECT_EQ(j.at("apps").at(0).at("notes"),
            nlohmann::json::array({"halide adams2019: timed at Halide's fixed size"}));
}

// Each variant against the fastest (by median) repetition by repetition: the
// median of the ratios of times that ran moments apart, and how many
// repetitions it won, in the table, the JSON and the CSV.
TEST(BenchPeers, VariantsAreComparedWithTheFastestRepetitionByRepetition) {
  bench::BenchReport report;
  bench::AppResult app;
  app.app = "blur";
  app.floor_ms = 1;
  const auto row = [](const std::string& name, std::vector<double> times) {
    bench::VariantResult v;
    v.name = name;
    v.times_ms = std::move(times);
    std::vector<double> sorted = v.times_ms;
    std::sort(sorted.begin(), sorted.end());
    v.median_ms = sorted[sorted.size() / 2];
    v.min_ms = sorted.front();
    v.check = "ok";
    return v;
  };
  // b is slower by its median (12 against 10, 1.20x) but faster in the
  // repetition where the machine was slow for both: paired, 1.10x, 1 of 3 won.
  app.variants = {row("trapeze a", {10, 20, 10}), row("trapeze b", {11, 18, 12})};
  report.apps.push_back(app);
  const std::string table = bench::format_table(report);
  EXPECT_THAT(table, testing::ContainsRegex("trapeze a .* 1\\.00x +- +"));
  EXPECT_THAT(table, testing::ContainsRegex("trapeze b .* 1\\.20x +1\\.10x 1/3 +"));
  const auto j = nlohmann::json::parse(bench::format_json(report));
  const auto& b = j.at("apps").at(0).at("variants").at(1);
  EXPECT_DOUBLE_EQ(b.at("paired_vs_fastest").get<double>(), 1.1);
  EXPECT_EQ(b.at("reps_faster_than_fastest"), 1);
  EXPECT_EQ(j.at("apps").at(0).at("variants").at(0).at("paired_vs_fastest"), 1.0);
  EXPECT_THAT(bench::format_csv(report), HasSubstr("blur,trapeze b,12.0000,11.0000,1.2000,"));
  EXPECT_THAT(bench::format_csv(report), HasSubstr(",\"ok\",1.1000\n"));
}

TEST(BenchPeers, PeerAppsAreThoseThisBuildHas) {
#ifdef TRAPEZE_TEST_HAVE_OPENCV
  EXPECT_EQ(bench::peer_apps("opencv"), (std::vector<std::string>{"blur", "harris", "unsharp"}));
#else
  EXPECT_TRUE(bench::peer_apps("opencv").empty());
#endif
#ifdef TRAPEZE_TEST_HAVE_HALIDE
  // Every image app of the suite (the multigrid cycles have no Halide version).
  EXPECT_EQ(
      bench::peer_apps("halide"),
      (std::vector<std::string>{"bilateral_grid", "blur", "camera_pipe", "harris", "interpolate",
                                "local_laplacian", "pyramid_blend", "unsharp"}));
#else
  EXPECT_TRUE(bench::peer_apps("halide").empty());
#endif
  try {
    bench::peer_apps("matlab");
    ADD_FAILURE() << "an unknown peer was accepted";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown peer 'matlab' (known: halide, opencv)"));
  }
}

} // namespace
} // namespace trapeze
