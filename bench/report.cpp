// The benchmark's tables, JSON and CSV.
#include "harness.h"

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>

namespace trapeze::bench {

namespace {

std::string params_text(const ParamValues& params) {
  std::string s;
  for (const auto& [name, v] : params)
    s += (s.empty() ? "" : " ") + name + "=" +
         (v.is_float ? fmt::format("{}", v.f) : std::to_string(v.i));
  return s;
}

const VariantResult* fastest_variant(const AppResult& a) {
  const VariantResult* best = nullptr;
  for (const VariantResult& v : a.variants)
    if (!best || v.median_ms < best->median_ms) best = &v;
  return best;
}

double fastest_median(const AppResult& a) {
  const VariantResult* fastest = fastest_variant(a);
  return fastest ? fastest->median_ms : 0;
}

// A variant against the fastest, repetition by repetition: the variants ran
// interleaved, so a repetition's times ran moments apart, and their ratio
// cancels the drift of a shared machine's speed that the medians keep.
struct Paired {
  double median_ratio = 1; ///< the median over repetitions of time / fastest's time
  int faster = 0;          ///< repetitions where it ran faster than the fastest
  int reps = 0;
};

Paired paired_with(const VariantResult& v, const VariantResult& fastest) {
  Paired p;
  if (fastest.times_ms.size() != v.times_ms.size() || v.times_ms.empty()) return p;
  std::vector<double> ratios;
  for (std::size_t k = 0; k < v.times_ms.size(); ++k) {
    ratios.push_back(v.times_ms[k] / fastest.times_ms[k]);
    if (v.times_ms[k] < fastest.times_ms[k]) ++p.faster;
  }
  std::sort(ratios.begin(), ratios.end());
  const std::size_t n = ratios.size();
  p.median_ratio = n % 2 ? ratios[n / 2] : (ratios[n / 2 - 1] + ratios[n / 2]) / 2;
  p.reps = static_cast<int>(n);
  return p;
}

const VariantResult* find_variant(const AppResult& a, const std::string& name) {
  for (const VariantResult& v : a.variants)
    if (v.name == name) return &v;
  return nullptr;
}

// Per variant, the geometric means over the apps it ran on.
struct GeoMean {
  double log_vs_fastest = 0, log_speedup = 0;
  int apps = 0, apps_with_naive = 0;
};

std::map<std::string, GeoMean> geometric_means(const BenchReport& r) {
  std::map<std::string, GeoMean> means;
  for (const AppResult& a : r.apps) {
    const double fastest = fastest_median(a);
    const VariantResult* naive = find_variant(a, "trapeze naive");
    for (const VariantResult& v : a.variants) {
      if (v.median_ms <= 0) continue;
      GeoMean& g = means[v.name];
      g.log_vs_fastest += std::log(v.median_ms / fastest);
      ++g.apps;
      if (naive && naive->median_ms > 0) {
        g.log_speedup += std::log(naive->median_ms / v.median_ms);
        ++g.apps_with_naive;
      }
    }
  }
  return means;
}

// The width of the tables' first column: the longest variant name, and at
// least that of the "memory floor" row, so that the columns line up.
std::size_t name_column_width(const BenchReport& r) {
  std::size_t width = std::string("memory floor").size();
  for (const AppResult& a : r.apps)
    for (const VariantResult& v : a.variants)
      width = std::max(width, v.name.size());
  return width;
}

} // namespace

std::string format_table(const BenchReport& r) {
  const std::size_t w = name_column_width(r);
  std::string out = fmt::format("trapeze bench: {} threads, {} reps (median of interleaved runs), "
                                "copy bandwidth {:.1f} GB/s, {}\n",
                                r.options.threads, r.options.reps, r.copy_bandwidth_gbs, r.date);
  if (r.options.load > 0)
    out += fmt::format("under load: {} busy background thread{} while every variant ran\n",
                       r.options.load, r.options.load == 1 ? "" : "s");
  for (const AppResult& a : r.apps) {
    const VariantResult* fastest_row = fastest_variant(a);
    const double fastest = fastest_median(a);
    out += fmt::format("\n{}  ({})\n", a.app, params_text(a.params));
    out += fmt::format("  {:<{}} {:>10} {:>10} {:>11} {:>13} {:>9}  {}\n", "variant", w,
                       "median ms", "min ms", "vs fastest", "paired", "vs floor", "check");
    for (const VariantResult& v : a.variants) {
      const Paired paired = paired_with(v, *fastest_row);
      const std::string paired_text =
          &v == fastest_row
              ? "-"
              : fmt::format("{:.2f}x {}/{}", paired.median_ratio, paired.faster, paired.reps);
      out += fmt::format("  {:<{}} {:>10.2f} {:>10.2f} {:>10.2f}x {:>13} {:>8.2f}x  {}\n", v.name,
                         w, v.median_ms, v.min_ms, v.median_ms / fastest, paired_text,
                         v.median_ms / a.floor_ms, v.check);
    }
    out += fmt::format(
        "  {:<{}} {:>10.2f} {:>10} {:>11} {:>13} {:>9}  ({:.1f} MB read + written)\n",
        "memory floor", w, a.floor_ms, "", "", "", "", static_cast<double>(a.floor_bytes) / 1e6);
    for (const std::string& s : a.notes)
      out += "  note: " + s + "\n";
    for (const std::string& s : a.skipped)
      out += "  skipped: " + s + "\n";
  }
  const auto means = geometric_means(r);
  if (!means.empty()) {
    out += fmt::format("\ngeometric mean over the apps\n  {:<{}} {:>11} {:>19}  {}\n", "variant", w,
                       "vs fastest", "speedup over naive", "apps");
    for (const auto& [name, g] : means) {
      // No naive row to divide by (`--schedulers` without naive): a dash, not 0.00x.
      const std::string speedup =
          g.apps_with_naive ? fmt::format("{:.2f}x", std::exp(g.log_speedup / g.apps_with_naive))
                            : "-";
      out += fmt::format("  {:<{}} {:>10.2f}x {:>19}  {}\n", name, w,
                         std::exp(g.log_vs_fastest / g.apps), speedup, g.apps);
    }
  }
  return out;
}

std::string format_json(const BenchReport& r) {
  nlohmann::json j;
  j["date"] = r.date;
  j["threads"] = r.options.threads;
  j["reps"] = r.options.reps;
  j["load"] = r.options.load;
  j["copy_bandwidth_gbs"] = r.copy_bandwidth_gbs;
  j["apps"] = nlohmann::json::array();
  for (const AppResult& a : r.apps) {
    nlohmann::json ja;
    ja["app"] = a.app;
    nlohmann::json params = nlohmann::json::object();
    for (const auto& [name, v] : a.params)
      params[name] = v.is_float ? nlohmann::json(v.f) : nlohmann::json(v.i);
    ja["params"] = params;
    ja["floor_bytes"] = a.floor_bytes;
    ja["floor_ms"] = a.floor_ms;
    const VariantResult* fastest_row = fastest_variant(a);
    const double fastest = fastest_median(a);
    ja["variants"] = nlohmann::json::array();
    for (const VariantResult& v : a.variants) {
      const Paired paired = paired_with(v, *fastest_row);
      ja["variants"].push_back({{"name", v.name},
                                {"median_ms", v.median_ms},
                                {"min_ms", v.min_ms},
                                {"times_ms", v.times_ms},
                                {"vs_fastest", v.median_ms / fastest},
                                {"paired_vs_fastest", paired.median_ratio},
                                {"reps_faster_than_fastest", paired.faster},
                                {"vs_floor", v.median_ms / a.floor_ms},
                                {"check", v.check}});
    }
    ja["notes"] = a.notes;
    ja["skipped"] = a.skipped;
    j["apps"].push_back(ja);
  }
  nlohmann::json geo = nlohmann::json::object();
  for (const auto& [name, g] : geometric_means(r))
    geo[name] = {{"vs_fastest", std::exp(g.log_vs_fastest / g.apps)},
                 {"speedup_over_naive",
                  g.apps_with_naive ? nlohmann::json(std::exp(g.log_speedup / g.apps_with_naive))
                                    : nlohmann::json(nullptr)},
                 {"apps", g.apps}};
  j["geometric_mean"] = geo;
  return j.dump(2);
}

std::string format_csv(const BenchReport& r) {
  std::string out =
      "app,variant,median_ms,min_ms,vs_fastest,vs_floor,floor_ms,check,paired_vs_fastest\n";
  for (const AppResult& a : r.apps) {
    const VariantResult* fastest_row = fastest_variant(a);
    const double fastest = fastest_median(a);
    for (const VariantResult& v : a.variants) {
      std::string check = v.check;
      std::replace(check.begin(), check.end(), ',', ';');
      std::replace(check.begin(), check.end(), '"', '\'');
      out += fmt::format("{},{},{:.4f},{:.4f},{:.4f},{:.4f},{:.4f},\"{}\",{:.4f}\n", a.app, v.name,
                         v.median_ms, v.min_ms, v.median_ms / fastest, v.median_ms / a.floor_ms,
                         a.floor_ms, check, paired_with(v, *fastest_row).median_ratio);
    }
  }
  return out;
}

} // namespace trapeze::bench
