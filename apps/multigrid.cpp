/// \file
/// Multigrid Jacobi: benchmarks.md section 8 ("Multigrid Jacobi — 2-D and 3-D,
/// V- and W-cycles"), eight pipelines from one generator.
///
///   n (int64)       coarsest interior size N_0; N_l = 2 N_{l-1} + 1, so
///                   N_l = (n+1) 2^l - 1; the finest level is L = 3
///   V_, F_          double [(N_L+2)^d]: initial guess and right-hand side
///   w_jacobi_Ll_i   weighted Jacobi on level l's interior (omega = 4/5 in 2-D,
///                   8/9 in 3-D); finest-level ghosts copied from U, coarser 0
///   defect_Ll_i     F - A U on the interior, ghosts 0
///   restrict_Ll_i   full weighting of level l's defect onto level l-1's
///                   interior (domain declared with level l's extent)
///   interpolate_Ll_i  correct + multilinear prolongation of the coarse result
///   output          the last stage: the finest grid after one cycle
///
/// Stage names end in _L<level>_<sequence number> (the W-cycle visits coarse
/// levels more than once). Indices are (y, x) in 2-D and (z, y, x) in 3-D.
///
/// Interpretation: the spec fixes the grid sizes at compile time, but an
/// app's pipeline must run at its default and at its small size, so the
/// coarsest size n is an int64 parameter and L = 3 is fixed per pipeline
/// (the spec's default L); h_l, 1/h_l^2 and c_l are double expressions of n
/// (s_l = (n+1) 2^l = N_l + 1: invhh_l = s_l^2, c_l = omega / (2d s_l^2)).
/// All constants are float64 (f64). Sums of neighbours run over dimensions
/// outermost first, the -1 neighbour before the +1 one; restrict adds its
/// taps grouped by weight (centre, faces, edges, corners), each group in
/// lexicographic offset order. With nuc = 0 level 1's defect and restrict
/// feed nothing, so they are not stages of the pipeline. Stage counts: V-4-4-4
/// 37, V-10-0-0 36, W-4-4-4 109, W-10-0-0 79 (2-D and 3-D alike).
///
/// Default sizes: 2-D n = 511 (finest 4095^2), 3-D n = 31 (finest 255^3, the
/// paper's 3-D size). The paper's 2-D size (8191^2: n = 1023) runs too
/// (--param n=1023) but is heavy for a default under the naive schedule:
/// W-4-4-4 takes 17 s per cycle on 2 threads with an 11.4 GB peak RSS. At
/// the defaults (measured on a shared 2-core machine) a cycle takes 0.9-3.9 s
/// with 2 threads, the peak RSS is 1.9-3.2 GB, and `run --check` (the
/// interpreter included) takes under 50 s.
#include "app.h"

#include "trapeze/dsl.h"
#include "trapeze/error.h"

#include <optional>
#include <string>

namespace trapeze::apps {

namespace {

constexpr int kFinestLevel = 3;

/// The default coarsest size: finest 4095^2 in 2-D, 255^3 in 3-D.
std::int64_t default_n(int dims) { return dims == 2 ? 511 : 31; }

/// A grid read at a point (an input image or a stage).
using Grid = std::function<Expr(const std::vector<Expr>&)>;

class MultigridBuilder {
public:
  explicit MultigridBuilder(const MultigridConfig& config) : config_(config), n_("n") {
    const char* names[] = {"z", "y", "x"};
    for (int d = 3 - config.dims; d < 3; ++d)
      vars_.emplace_back(names[d]);
  }

  Pipeline build() {
    std::vector<Expr> extents;
    for (int d = 0; d < config_.dims; ++d)
      extents.push_back(size(kFinestLevel) + 2);
    const Image V("V_", ScalarType::Float64, extents);
    const Image F("F_", ScalarType::Float64, extents);
    const auto image_grid = [](const Image& im) -> Grid {
      return [im](const std::vector<Expr>& p) { return im.access(p); };
    };
    const std::optional<Func> out = cycle(kFinestLevel, image_grid(V), image_grid(F));
    TRAPEZE_ASSERT(out.has_value(), "the finest level always computes a stage");
    Pipeline p({*out}, config_.name());
    p.set_default("n", default_n(config_.dims));
    // Every level has an interior: its boundary cases (0, the interior, N + 1)
    // are then ordered for every n, and split into clean loops once.
    p.set_range("n", 1, std::nullopt);
    return p;
  }

private:
  int dims() const { return config_.dims; }
  /// N_l = (n+1) 2^l - 1.
  Expr size(int l) const { return (n_ + 1) * (std::int64_t{1} << l) - 1; }
  /// s_l = N_l + 1 = 1/h_l as a double.
  Expr inverse_h(int l) const { return cast<double>((n_ + 1) * (std::int64_t{1} << l)); }
  Expr invhh(int l) const { return inverse_h(l) * inverse_h(l); }
  Expr jacobi_factor(int l) const {
    const double omega = dims() == 2 ? 4.0 / 5.0 : 8.0 / 9.0;
    return f64(omega) / (f64(2.0 * dims()) * invhh(l));
  }

  std::vector<Var> vars() const { return vars_; }
  std::vector<Expr> point() const { return {vars_.begin(), vars_.end()}; }
  std::vector<Interval> domain(int l) const {
    return std::vector<Interval>(static_cast<std::size_t>(dims()), Interval{0, size(l) + 1});
  }
  Expr interior(int l) const {
    Expr cond = vars_[0].in(1, size(l));
    for (int d = 1; d < dims(); ++d)
      cond = cond && vars_[static_cast<std::size_t>(d)].in(1, size(l));
    return cond;
  }
  std::string name(const std::string& kind, int l) {
    return kind + "_L" + std::to_string(l) + "_" + std::to_string(sequence_++);
  }
  static Grid stage_grid(const Func& f) {
    return [f](const std::vector<Expr>& p) { return f.access(p); };
  }

  /// (2d U - sum of face neighbours) * invhh: A U at the current point.
  Expr apply_operator(const Grid& U, int l) const {
    const std::vector<Expr> p = point();
    Expr neighbours;
    for (int d = 0; d < dims(); ++d) {
      for (int off : {-1, 1}) {
        std::vector<Expr> q = p;
        q[static_cast<std::size_t>(d)] = q[static_cast<std::size_t>(d)] + off;
        neighbours = neighbours.defined() ? neighbours + U(q) : U(q);
      }
    }
    return (f64(2.0 * dims()) * U(p) - neighbours) * invhh(l);
  }

  Func smooth(int l, const std::optional<Grid>& U, const Grid& F) {
    Func f(name("w_jacobi", l), ScalarType::Float64, vars(), domain(l));
    const std::vector<Expr> p = point();
    const Expr c = jacobi_factor(l);
    const Expr value = U ? (*U)(p)-c * (apply_operator(*U, l) - F(p)) : c * F(p);
    std::vector<Case> cases = {Case(interior(l), value)};
    if (l == kFinestLevel && U) {
      // Dirichlet boundary: the ghost layer of U, one case per face; faces of
      // a later dimension cover only the interior of the earlier ones.
      for (int d = 0; d < dims(); ++d) {
        for (const Expr& face : {Expr(0), size(l) + 1}) {
          Expr cond = vars_[static_cast<std::size_t>(d)] == face;
          for (int e = 0; e < d; ++e)
            cond = cond && vars_[static_cast<std::size_t>(e)].in(1, size(l));
          cases.emplace_back(cond, (*U)(p));
        }
      }
    }
    f.define(cases, f64(0.0));
    return f;
  }

  Grid defect(int l, const std::optional<Grid>& U, const Grid& F) {
    if (!U) return F; // zero guess: the defect is F
    Func f(name("defect", l), ScalarType::Float64, vars(), domain(l));
    f.define({Case(interior(l), F(point()) - apply_operator(*U, l))}, f64(0.0));
    return stage_grid(f);
  }

  /// Full weighting onto level l-1's interior; the domain has level l's extent.
  Grid restrict_to_coarse(int l, const Grid& D) {
    Func f(name("restrict", l - 1), ScalarType::Float64, vars(), domain(l));
    // Offsets in {-1,0,1}^d grouped by how many are nonzero (m): weight 2^-(d+m).
    std::vector<Expr> groups(static_cast<std::size_t>(dims() + 1));
    int combinations = 1;
    for (int d = 0; d < dims(); ++d)
      combinations *= 3;
    for (int i = 0; i < combinations; ++i) {
      std::vector<Expr> q;
      int nonzero = 0, rest = i;
      std::vector<int> offs(static_cast<std::size_t>(dims()));
      for (int d = dims() - 1; d >= 0; --d) {
        offs[static_cast<std::size_t>(d)] = rest % 3 - 1;
        rest /= 3;
      }
      for (int d = 0; d < dims(); ++d) {
        const int off = offs[static_cast<std::size_t>(d)];
        nonzero += off != 0;
        q.push_back(2 * vars_[static_cast<std::size_t>(d)] + off);
      }
      Expr& g = groups[static_cast<std::size_t>(nonzero)];
      g = g.defined() ? g + D(q) : D(q);
    }
    Expr value;
    for (int m = 0; m <= dims(); ++m) {
      const Expr term =
          f64(1.0 / static_cast<double>(1 << (dims() + m))) * groups[static_cast<std::size_t>(m)];
      value = value.defined() ? value + term : term;
    }
    f.define({Case(interior(l - 1), value)}, f64(0.0));
    return stage_grid(f);
  }

  /// correct + P(e) on level l's interior (one case per parity pattern),
  /// correct's value on the ghosts.
  Func interpolate(int l, const std::optional<Grid>& correct, const Grid& e) {
    Func f(name("interpolate", l), ScalarType::Float64, vars(), domain(l));
    const std::vector<Expr> p = point();
    const Expr base = correct ? (*correct)(p) : f64(0.0);
    std::vector<Case> cases;
    for (int parity = 0; parity < (1 << dims()); ++parity) {
      // Bit d (outermost dimension first) set: index d is odd.
      Expr cond = interior(l);
      std::vector<std::vector<Expr>> taps = {{}};
      for (int d = 0; d < dims(); ++d) {
        const bool odd = (parity >> (dims() - 1 - d)) & 1;
        const Expr v = vars_[static_cast<std::size_t>(d)];
        cond = cond && v % 2 == (odd ? 1 : 0);
        std::vector<std::vector<Expr>> next;
        for (const auto& t : taps) {
          for (int off = 0; off <= (odd ? 1 : 0); ++off) {
            std::vector<Expr> u = t;
            u.push_back(v / 2 + off);
            next.push_back(u);
          }
        }
        taps = next;
      }
      Expr sum;
      for (const auto& t : taps)
        sum = sum.defined() ? sum + e(t) : e(t);
      const Expr prolonged =
          taps.size() == 1 ? sum : sum * f64(1.0 / static_cast<double>(taps.size()));
      cases.emplace_back(cond, base + prolonged);
    }
    f.define(cases, base);
    return f;
  }

  /// One cycle at level l from guess U (absent: zero) for right-hand side F;
  /// absent result = nothing computed (level 0 with nuc = 0).
  std::optional<Func> cycle(int l, const std::optional<Grid>& U0, const Grid& F) {
    std::optional<Grid> U = U0;
    std::optional<Func> last;
    const auto smooth_times = [&](int times) {
      for (int i = 0; i < times; ++i) {
        last = smooth(l, U, F);
        U = stage_grid(*last);
      }
    };
    if (l == 0) {
      smooth_times(config_.nuc);
      return last;
    }
    smooth_times(config_.nu1);
    const Grid R = restrict_to_coarse(l, defect(l, U, F));
    std::optional<Func> e = cycle(l - 1, std::nullopt, R);
    if (config_.cycle == 'W') {
      std::optional<Grid> guess;
      if (e) guess = stage_grid(*e);
      if (const std::optional<Func> second = cycle(l - 1, guess, R)) e = second;
    }
    if (e) {
      last = interpolate(l, U, stage_grid(*e));
      U = stage_grid(*last);
    }
    smooth_times(config_.nu2);
    if (!last)
      throw Error("multigrid " + config_.name() + ": level " + std::to_string(l) +
                  " computes nothing (no smoothing and no coarse correction)");
    return last;
  }

  MultigridConfig config_;
  Param n_;
  std::vector<Var> vars_;
  int sequence_ = 0;
};

ParamValues multigrid_size_for_image(std::int64_t, std::int64_t) {
  throw Error("multigrid apps take no image (their size is the parameter n, the coarsest grid)");
}

/// Test problem 1: U = 1 inside, 0 on the boundary (ghost layer); F = 0.
BufferMap multigrid_inputs(const Pipeline& p, const ParamValues& params) {
  const std::vector<std::int64_t> extents = input_extents(p, "V_", params);
  Buffer V(ScalarType::Float64, extents), F(ScalarType::Float64, extents);
  const std::int64_t m = extents[0];
  const int dims = static_cast<int>(extents.size());
  for (std::int64_t i = 0; i < V.size(); ++i) {
    bool inside = true;
    for (std::int64_t rest = i, d = 0; d < dims; ++d, rest /= m)
      inside = inside && rest % m != 0 && rest % m != m - 1;
    V.set_from_double(i, inside ? 1.0 : 0.0);
    F.set_from_double(i, 0.0);
  }
  return {{"V_", V}, {"F_", F}};
}

} // namespace

std::string MultigridConfig::name() const {
  return "mg_jacobi" + std::to_string(dims) + "d_" + static_cast<char>(cycle + ('a' - 'A')) + "_" +
         std::to_string(nu1) + std::to_string(nu2) + std::to_string(nuc);
}

Pipeline build_multigrid(const MultigridConfig& config) {
  if ((config.dims != 2 && config.dims != 3) || (config.cycle != 'V' && config.cycle != 'W'))
    throw Error("multigrid: dims must be 2 or 3 and cycle 'V' or 'W'");
  return MultigridBuilder(config).build();
}

App make_multigrid_app(const MultigridConfig& config) {
  App app;
  app.name = config.name();
  app.description = std::string(config.cycle == 'V' ? "V" : "W") + "-cycle multigrid, weighted " +
                    "Jacobi " + std::to_string(config.nu1) + "-" + std::to_string(config.nu2) +
                    "-" + std::to_string(config.nuc) + ", " + std::to_string(config.dims) +
                    "-D Poisson (double)";
  app.build = [config] { return build_multigrid(config); };
  app.default_size = {{"n", default_n(config.dims)}};
  app.small_size = {{"n", std::int64_t{3}}};
  app.manual_schedule = [config](const Pipeline& p) {
    return make_manual_schedule_multigrid(config, p);
  };
  app.make_inputs = multigrid_inputs;
  app.size_for_image = multigrid_size_for_image;
  app.inputs_from_image = [](const Pipeline&, const ParamValues&, const Buffer&) -> BufferMap {
    throw Error("multigrid apps take no image (their input is test problem 1)");
  };
  app.test_sizes = {};
  app.tolerance = 1e-9;
  return app;
}

Schedule make_manual_schedule_multigrid(const MultigridConfig& config, const Pipeline& p) {
  // The level a stage computes on: the number after "_L"; a restriction is
  // named after the coarse level but runs over the fine one, with its defect.
  const auto level_of = [](const std::string& name) {
    const std::size_t at = name.find("_L");
    TRAPEZE_ASSERT(at != std::string::npos, "multigrid stage without a level: " + name);
    const int l = std::stoi(name.substr(at + 2));
    return name.rfind("restrict", 0) == 0 ? l + 1 : l;
  };
  const bool three_d = config.dims == 3;
  const std::size_t max_run = three_d ? 5 : 12;
  // Tiles of whole rows in 3-D (16 planes x 32 rows x up to 1024 columns);
  // 64 x 512 in 2-D. Measured on this project's machine kind (AMD EPYC, 2
  // threads, dynamic tile loops): 3-D V-4-4-4 8 x 16 x 128 333 ms, 16 x 32 x
  // whole rows 177-197 ms (naive 240-330); 2-D tiles from 16 to 64 rows of 512
  // to whole columns all within the noise (122-137 ms, naive 257-262).
  const std::vector<std::int64_t> tiles =
      three_d ? std::vector<std::int64_t>{16, 32, 1024} : std::vector<std::int64_t>{64, 512};
  Schedule s;
  std::vector<std::string> run;
  int run_level = -1;
  const auto close_run = [&] {
    if (run.empty()) return;
    s.groups.push_back(fused_group(
        run, tiles, 2,
        "a run of " + std::to_string(run.size()) + " consecutive stages on level " +
            std::to_string(run_level) +
            " (smoothing steps, defect and restriction, or interpolation and smoothing) fused: "
            "each reads the previous at distance 1, so overlapped tiles of " +
            std::string(three_d ? "16 x 32 x 1024" : "64 x 512") +
            " points keep the steps' grids in scratchpads; at most " + std::to_string(max_run) +
            " stages, so that the halo stays small"));
    run.clear();
  };
  // p.stages() is topological and follows the cycle's order.
  for (const auto& f : p.stages()) {
    const int l = level_of(f->name());
    if (l != run_level || run.size() >= max_run) close_run();
    run_level = l;
    run.push_back(f->name());
  }
  close_run();
  return s;
}

} // namespace trapeze::apps
