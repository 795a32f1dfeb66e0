// `trapeze bench [APP...]`: every selected variant of every app, side by side.
#include "commands.h"
#include "harness.h"

#include <fmt/core.h>

#include <fstream>

namespace trapeze::cli {

namespace {

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) throw Error("cannot write '" + path + "'");
}

} // namespace

void add_bench_command(CLI::App& root, int& exit_code) {
  CLI::App* cmd = root.add_subcommand(
      "bench", "Time trapeze's schedules (and peers) side by side on the apps, checked");
  struct Options {
    bench::BenchOptions bench;
    std::string json, csv, plot;
  };
  auto o = std::make_shared<Options>();
  o->bench.schedulers = {"naive", "manual", "dp", "greedy", "halide-greedy"};
  std::vector<std::string> app_names;
  for (const apps::App& a : apps::all_apps())
    app_names.push_back(a.name);
  cmd->add_option("apps", o->bench.apps, "Apps to run (default: all; see 'trapeze list')")
      ->check(CLI::IsMember(app_names));
  cmd->add_option("--schedulers", o->bench.schedulers,
                  "trapeze schedules: naive, manual, dp, greedy, halide-greedy, autotune (not by "
                  "default: it builds and times 147 schedules an app)")
      ->delimiter(',')
      ->capture_default_str()
      ->check(CLI::IsMember({"naive", "manual", "dp", "greedy", "halide-greedy", "autotune"}));
  cmd->add_option("--schedule", o->bench.schedule_files,
                  "A schedule JSON file of the one app named (see docs/schedule.md), timed after "
                  "the schedulers as 'trapeze FILE' (repeatable)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--peers", o->bench.peers, "Peers: halide, opencv")
      ->delimiter(',')
      ->check(CLI::IsMember({"halide", "opencv"}));
  cmd->add_option("--threads", o->bench.threads, "Threads for every variant")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--reps", o->bench.reps, "Timed runs of each variant, interleaved")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--load", o->bench.load,
                  "Busy background threads while timing (a loaded machine; 0: quiet)")
      ->check(CLI::Range(0, 1024))
      ->capture_default_str();
  cmd->add_flag("--small", o->bench.small, "Use the apps' small test sizes (a quick smoke run)");
  cmd->add_option("--json", o->json, "Also write the results as JSON (docs/bench.md)");
  cmd->add_option("--csv", o->csv, "Also write the results as CSV");
  cmd->add_option("--plot", o->plot, "Also draw the speedups over naive as a PNG (gnuplot)");
  cmd->callback([o, &exit_code] {
    const bench::BenchReport report = bench::run_bench(o->bench);
    fmt::print("{}", bench::format_table(report));
    if (!o->json.empty()) write_file(o->json, bench::format_json(report));
    if (!o->csv.empty()) write_file(o->csv, bench::format_csv(report));
    if (!o->plot.empty()) bench::plot_speedups(report, o->plot);
    // A variant that computes something else is a failure, not a row to publish.
    exit_code = 0;
    for (const bench::AppResult& a : report.apps)
      for (const bench::VariantResult& v : a.variants)
        if (v.check != "ok" && v.check != "reference") exit_code = 1;
  });
}

} // namespace trapeze::cli
