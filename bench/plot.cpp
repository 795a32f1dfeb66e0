// The speedup chart: a grouped bar chart drawn by gnuplot.
#include "harness.h"

#include <fmt/core.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

namespace trapeze::bench {

void plot_speedups(const BenchReport& r, const std::string& png_path) {
  // The variants in order of first appearance: the columns of the data file.
  std::vector<std::string> names;
  for (const AppResult& a : r.apps)
    for (const VariantResult& v : a.variants)
      if (std::find(names.begin(), names.end(), v.name) == names.end()) names.push_back(v.name);
  if (names.empty()) throw Error("nothing to plot: no variant ran");

  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("trapeze_plot_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::filesystem::path data = dir / "speedups.dat", script = dir / "plot.gp";
  // The y range: every ratio, and at least 0.5x to 2x, so that a run where
  // nothing differs does not blow 0.99x up to half the height.
  double lowest = 0.5, highest = 2;
  {
    std::ofstream out(data);
    out << "app";
    for (const std::string& n : names)
      out << "\t\"" << n << "\"";
    out << "\n";
    for (const AppResult& a : r.apps) {
      double naive = 0;
      for (const VariantResult& v : a.variants)
        if (v.name == "trapeze naive") naive = v.median_ms;
      out << a.app;
      for (const std::string& n : names) {
        double speedup = -1; // a variant that did not run draws no bar (NaN below)
        for (const VariantResult& v : a.variants)
          if (v.name == n && naive > 0 && v.median_ms > 0) speedup = naive / v.median_ms;
        if (speedup > 0) {
          out << "\t" << speedup;
          lowest = std::min(lowest, speedup / 1.25);
          highest = std::max(highest, speedup * 1.25);
        } else {
          out << "\tNaN";
        }
      }
      out << "\n";
    }
  }
  {
    std::ofstream out(script);
    out << "set terminal pngcairo noenhanced size 1200,600 font 'sans,11'\n"
        << "set output '" << png_path << "'\n"
        << fmt::format("set title 'Speedup over the naive schedule ({} threads, median of {} runs, "
                       "{})'\n",
                       r.options.threads, r.options.reps, r.date)
        << "set ylabel 'speedup over trapeze naive (higher is better; log scale)'\n"
        << "set style data histograms\nset style histogram clustered gap 1\n"
        << "set style fill solid 0.8 border -1\nset boxwidth 0.9\n"
        // Ratios on a log scale: 2x faster and 2x slower are as far from 1.
        << "set logscale y 2\nset datafile missing 'NaN'\n"
        << "set arrow from graph 0, first 1 to graph 1, first 1 nohead dashtype 2\n"
        << fmt::format("set yrange [{}:{}]\n", lowest, highest)
        << "set grid ytics\nset key outside right top\nset xtics rotate by -30\n"
        << "plot '" << data.string() << "' using 2:xtic(1) title columnheader(2)";
    for (std::size_t i = 1; i < names.size(); ++i)
      out << ", '' using " << i + 2 << " title columnheader(" << i + 2 << ")";
    out << "\n";
  }
  const std::string cmd = "gnuplot '" + script.string() + "' 2>&1";
  const int status = std::system(cmd.c_str());
  std::filesystem::remove_all(dir);
  if (status != 0)
    throw Error("gnuplot failed to draw " + png_path +
                " (is gnuplot installed? scripts/setup.sh installs it)");
}

} // namespace trapeze::bench
