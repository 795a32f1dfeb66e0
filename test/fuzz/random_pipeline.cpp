// Random pipelines: see random_pipeline.h. Every draw is its own statement,
// so that no unspecified evaluation order can change what a seed gives.
#include "fuzz/random_pipeline.h"

#include "fuzz/fuzz_rng.h"
#include "trapeze/boundary.h"
#include "trapeze/dsl.h"

#include <algorithm>
#include <array>
#include <limits>
#include <optional>

namespace trapeze::fuzz {

namespace {

// Powers of ten from 1e-6 to 1e6, written out so that every machine gets the
// same floats.
const std::vector<float> kMagnitudes = {1e-6f, 1e-5f, 1e-4f, 1e-3f, 1e-2f, 1e-1f, 1.0f,
                                        1e1f,  1e2f,  1e3f,  1e4f,  1e5f,  1e6f};

// The axes a dimension can lie along. x and y have parametric extents (N, M),
// channels and bins constant ones; a bin axis is only ever read by value.
enum Axis : int { kChannel = 0, kX = 1, kY = 2, kBin = 3 };
constexpr int kAxes = 4;
constexpr int kMaxLevel = 2; // sampled at most twice along an axis

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  const std::int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}
std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return -floor_div(-a, b); }

// How many points per unit of the size parameter an axis has at a level.
std::int64_t multiplier(int level) { return std::int64_t{4} >> level; }

bool spatial(int axis) { return axis == kX || axis == kY; }

// An input image or a stage, with what the generator knows about it.
struct Node {
  std::string name;
  bool is_input = false;
  ScalarType type = ScalarType::Float32;
  std::vector<int> axes;          // the axis of each dimension
  std::array<int, kAxes> level{}; // sampling level of x and y
  std::vector<std::int64_t> lo;   // per dimension: constant lower bound
  std::vector<std::int64_t> hi; // per dimension: hi = multiplier * P + hi (constant if not spatial)
  std::optional<Func> func;
  std::optional<Image> image;
  bool has_bin() const { return std::find(axes.begin(), axes.end(), kBin) != axes.end(); }
  int dim_of(int axis) const {
    for (std::size_t k = 0; k < axes.size(); ++k)
      if (axes[k] == axis) return static_cast<int>(k);
    return -1;
  }
  Expr read(std::vector<Expr> args) const {
    return is_input ? image->access(std::move(args)) : func->access(std::move(args));
  }
};

// The stage being built: its axes and levels, and the bounds its accesses allow.
struct Site {
  std::vector<int> axes;
  std::array<int, kAxes> level{};
  std::array<std::optional<std::int64_t>, kAxes> lo, hi;
  bool has(int axis) const { return std::find(axes.begin(), axes.end(), axis) != axes.end(); }
  void allow(int axis, std::int64_t l, std::int64_t h) {
    const std::size_t a = static_cast<std::size_t>(axis);
    lo[a] = lo[a] ? std::max(*lo[a], l) : l;
    hi[a] = hi[a] ? std::min(*hi[a], h) : h;
  }
};

enum class Kind { PointWise, Stencil, Down, Up, LookUp, Cases, Histogram, RowSum, Table, Channels };

class Generator {
public:
  explicit Generator(std::uint64_t seed)
      : seed_(seed), rng_(seed), magnitudes_(seed ^ 0xd1b54a32d192ed03ull) {}

  RandomPipeline run() {
    three_d_ = rng_.chance(0.25);
    channels_ = rng_.uniform(2, 3);
    bins_ = rng_.uniform(4, 24);
    const std::int64_t inputs = rng_.uniform(1, 3);
    for (std::int64_t i = 0; i < inputs; ++i) {
      add_input(static_cast<int>(i));
      if (boundaries_.chance(0.3)) add_boundary(Node(nodes_.back()));
    }
    const std::int64_t stages = rng_.uniform(2, 12);
    for (std::int64_t s = 0; s < stages; ++s) {
      add_stage(static_cast<int>(s));
      if (!nodes_.back().has_bin() && boundaries_.chance(0.06)) add_boundary(Node(nodes_.back()));
    }
    return finish();
  }

private:
  // ---- expressions of bounds --------------------------------------------------------------

  Expr size_param(int axis) const { return axis == kX ? Expr(N_) : Expr(M_); }

  // The upper bound of a dimension as an expression of the parameters.
  Expr hi_expr(int axis, int level, std::int64_t hi) const {
    if (!spatial(axis)) return Expr(static_cast<int>(hi));
    Expr e = size_param(axis);
    const std::int64_t m = multiplier(level);
    if (m != 1) e = Expr(m) * e;
    if (hi > 0) e = e + Expr(hi);
    if (hi < 0) e = e - Expr(-hi);
    return e;
  }
  Expr hi_expr(const Node& n, std::size_t k) const {
    const int axis = n.axes[k];
    return hi_expr(axis, spatial(axis) ? n.level[static_cast<std::size_t>(axis)] : 0, n.hi[k]);
  }

  Expr var(int axis) const { return vars_[static_cast<std::size_t>(axis)]; }

  // ---- inputs ---------------------------------------------------------------------------------

  void add_input(int i) {
    Node n;
    n.name = "in" + std::to_string(i);
    n.is_input = true;
    const double t = rng_.unit();
    n.type = t < 0.72   ? ScalarType::Float32
             : t < 0.86 ? ScalarType::UInt8
             : t < 0.94 ? ScalarType::Int16
                        : ScalarType::Int32; // with INT_MIN, INT_MAX, -1 and 0 among its values
    if (three_d_) n.axes.push_back(kChannel);
    n.axes.push_back(kX);
    n.axes.push_back(kY);
    std::vector<Expr> extents;
    for (int axis : n.axes) {
      n.lo.push_back(0);
      if (axis == kChannel) {
        n.hi.push_back(channels_ - 1);
        extents.push_back(Expr(channels_));
        continue;
      }
      const int level = rng_.chance(0.8) ? 0 : 1;
      n.level[static_cast<std::size_t>(axis)] = level;
      const std::int64_t extra = rng_.uniform(0, 6);
      n.hi.push_back(extra - 1);
      extents.push_back(hi_expr(axis, level, extra));
    }
    n.image.emplace(n.name, n.type, extents);
    nodes_.push_back(std::move(n));
  }

  // ---- accesses -------------------------------------------------------------------------------

  // The index of one producer dimension read from the site with an offset,
  // recording the bounds it allows on the site's axis.
  Expr affine_index(const Node& p, std::size_t k, Site& site, std::int64_t offset) {
    const int axis = p.axes[k];
    const std::int64_t plo = p.lo[k], phi = p.hi[k];
    if (!site.has(axis)) {
      // The site lacks the axis: a fixed point of the producer's range.
      if (axis == kChannel) return Expr(static_cast<int>(rng_.uniform(plo, phi)));
      return Expr(static_cast<int>(plo));
    }
    const Expr v = var(axis);
    if (axis == kChannel) {
      site.allow(axis, plo, phi);
      return v;
    }
    const int lp = p.level[static_cast<std::size_t>(axis)];
    const int lc = site.level[static_cast<std::size_t>(axis)];
    const auto shifted = [&](const Expr& e) {
      if (offset == 0) return e;
      return offset > 0 ? e + Expr(static_cast<int>(offset)) : e - Expr(static_cast<int>(-offset));
    };
    if (lp == lc) {
      site.allow(axis, plo - offset, phi - offset);
      return shifted(v);
    }
    if (lp < lc) { // the producer is finer: down-sampling, f * x + o
      const std::int64_t f = std::int64_t{1} << (lc - lp);
      site.allow(axis, ceil_div(plo - offset, f), floor_div(phi - offset, f));
      return shifted(Expr(static_cast<int>(f)) * v);
    }
    // The producer is coarser: up-sampling, x / f + o (floor division).
    const std::int64_t f = std::int64_t{1} << (lp - lc);
    site.allow(axis, f * (plo - offset), f * (phi - offset) + f - 1);
    return shifted(v / Expr(static_cast<int>(f)));
  }

  // An int32 index computed from a value (a look-up by value).
  Expr index_from_value(const Expr& value) {
    if (is_float(value.type())) {
      const float scale = rng_.pick(std::vector<float>{4.0f, 16.0f, 64.0f});
      return cast(ScalarType::Int32, clamp(value * Expr(scale), Expr(-100000.0f), Expr(100000.0f)));
    }
    return cast(ScalarType::Int32, value);
  }

  // A point-wise read of some node that the site can read affinely (no bins).
  Expr key_value(Site& site) {
    std::vector<std::size_t> candidates;
    for (std::size_t i = 0; i < nodes_.size(); ++i)
      if (!nodes_[i].has_bin()) candidates.push_back(i);
    return read(nodes_[rng_.pick(candidates)], site, {});
  }

  // A read of `p` from the site; offsets per axis (0 where absent). A
  // dimension listed in `by_value` is indexed by a value instead.
  Expr read(const Node& p, Site& site, const std::array<std::int64_t, kAxes>& offsets,
            int by_value = -1) {
    if (!p.is_input) consumed_.insert(p.name);
    std::vector<Expr> args;
    for (std::size_t k = 0; k < p.axes.size(); ++k) {
      const int axis = p.axes[k];
      if (axis == kBin || static_cast<int>(k) == by_value) {
        Expr index = index_from_value(key_value(site));
        if (rng_.chance(0.6)) // else the access's implicit clamp
          index = clamp(index, Expr(static_cast<int>(p.lo[k])), hi_expr(p, k));
        args.push_back(index);
        if (!p.is_input) data_dependent_.emplace(p.name, current_);
        continue;
      }
      args.push_back(affine_index(p, k, site, offsets[static_cast<std::size_t>(axis)]));
    }
    return p.read(std::move(args));
  }

  // Taps of a stencil on p: random asymmetric offsets along the site's x and y.
  std::vector<Expr> taps(const Node& p, Site& site, int count, std::int64_t below,
                         std::int64_t above) {
    std::array<std::int64_t, kAxes> reach_lo{}, reach_hi{};
    for (int axis : {kX, kY}) {
      reach_lo[static_cast<std::size_t>(axis)] = rng_.uniform(0, below);
      reach_hi[static_cast<std::size_t>(axis)] = rng_.uniform(0, above);
    }
    std::vector<Expr> out;
    for (int t = 0; t < count; ++t) {
      std::array<std::int64_t, kAxes> offsets{};
      for (int axis : {kX, kY}) {
        const std::size_t a = static_cast<std::size_t>(axis);
        offsets[a] = rng_.uniform(-reach_lo[a], reach_hi[a]);
      }
      out.push_back(read(p, site, offsets));
    }
    return out;
  }

  // ---- values ---------------------------------------------------------------------------------

  Expr as_float(const Expr& t) {
    if (t.type() == ScalarType::Float32) return t;
    if (t.type() == ScalarType::Float64) return cast(ScalarType::Float32, t);
    return cast(ScalarType::Float32, t) * Expr(0.01f);
  }
  Expr as_int(const Expr& t) {
    if (!is_float(t.type())) return t;
    // Now and then unclamped, far beyond int32: the cast saturates (docs/dsl.md).
    if (rng_.chance(0.15)) return cast(ScalarType::Int32, as_float(t) * Expr(3e9f));
    return cast(ScalarType::Int32,
                clamp(as_float(t) * Expr(64.0f), Expr(-30000.0f), Expr(30000.0f)));
  }

  // A value of `type` combining the terms (bounded: no overflow, no NaN).
  Expr combine(const std::vector<Expr>& terms, ScalarType type) {
    if (is_float(type)) {
      Expr acc;
      for (const Expr& t : terms) {
        // A quarter of the weights scaled by 1e-6 to 1e6: results of every
        // magnitude, where an oracle with an absolute floor would miss errors.
        const float w =
            rng_.pick(std::vector<float>{0.5f, 0.25f, -0.5f, 0.75f, 1.0f, -0.25f, 0.125f, 0.375f}) *
            (magnitudes_.chance(0.25) ? magnitudes_.pick(kMagnitudes) : 1.0f);
        const Expr term = as_float(t) * Expr(w);
        acc = acc.defined() ? acc + term : term;
      }
      if (rng_.chance(0.4)) {
        const Expr t0 = as_float(terms.front());
        const Expr t1 = as_float(terms.back());
        switch (rng_.uniform(0, 8)) {
        case 0: acc = abs(acc); break;
        case 1: acc = sqrt(abs(acc)); break;
        case 2: acc = min(acc, Expr(0.5f)); break;
        case 3: acc = max(acc, Expr(-0.25f)); break;
        case 4: acc = select(t0 > t1, acc, t0 * Expr(0.5f)); break;
        case 5: acc = floor(acc * Expr(4.0f)) * Expr(0.25f); break;
        case 6: acc = sin(acc); break;
        case 7: acc = acc / (abs(t1) + Expr(1.0f)); break;
        default: acc = exp(clamp(acc, Expr(-2.0f), Expr(2.0f))) - Expr(1.0f); break;
        }
      }
      if (type == ScalarType::Float64)
        return cast(ScalarType::Float64, acc) * f64(1.5) + f64(0.125);
      return acc;
    }
    Expr acc;
    for (const Expr& t : terms) {
      const int c = static_cast<int>(rng_.pick(std::vector<std::int64_t>{1, 2, -1, 3, 1}));
      const Expr term = c == 1 ? as_int(t) : as_int(t) * Expr(c);
      acc = acc.defined() ? acc + term : term;
    }
    if (rng_.chance(0.5)) {
      const Expr t0 = as_int(terms.front());
      const Expr t1 = as_int(terms.back());
      switch (rng_.uniform(0, 7)) {
      case 0: acc = acc / Expr(2); break;
      case 1: acc = acc / Expr(4); break;
      case 2: acc = acc % Expr(7); break;
      case 3: acc = trunc_div(acc, Expr(3)); break;
      case 4: acc = min(acc, Expr(100)); break;
      case 5: acc = max(acc, Expr(-50)); break;
      case 6: acc = abs(acc); break;
      default: acc = select(t0 > t1, t0, t1); break;
      }
    }
    // Integer edges (docs/dsl.md): overflow that wraps, and divisors read
    // from the data, which may be 0, -1 or INT_MIN.
    if (rng_.chance(0.3)) {
      const Expr divisor = as_int(terms.back());
      switch (rng_.uniform(0, 6)) {
      case 0: acc = acc * Expr(65599) + Expr(std::numeric_limits<std::int32_t>::max()); break;
      case 1: acc = acc / divisor; break;
      case 2: acc = acc % divisor; break;
      case 3: acc = trunc_div(acc, divisor); break;
      case 4: acc = trunc_mod(acc, divisor); break;
      case 5: acc = -acc * divisor; break;
      default: acc = abs(acc - Expr(std::numeric_limits<std::int32_t>::max())); break;
      }
    }
    if (type == ScalarType::Int32) return acc % Expr(100003);
    return cast(type, acc);
  }

  ScalarType stage_type() {
    const double t = rng_.unit();
    if (t < 0.78) return ScalarType::Float32;
    if (t < 0.84) return ScalarType::Int32;
    if (t < 0.88) return ScalarType::Int16;
    if (t < 0.92) return ScalarType::UInt8;
    if (t < 0.96) return ScalarType::UInt16;
    return ScalarType::Float64;
  }

  // ---- stages ---------------------------------------------------------------------------------

  Kind draw_kind() {
    const std::int64_t r = rng_.uniform(0, 99);
    if (r < 20) return Kind::PointWise;
    if (r < 44) return Kind::Stencil;
    if (r < 54) return Kind::Down;
    if (r < 64) return Kind::Up;
    if (r < 73) return Kind::LookUp;
    if (r < 84) return Kind::Cases;
    if (r < 88) return Kind::Histogram;
    if (r < 92) return Kind::RowSum;
    if (r < 95) return Kind::Table;
    return Kind::Channels;
  }

  // The primary producer: often the latest stage (long chains), else any node
  // readable affinely; `need_xy` asks for one with both x and y.
  const Node& primary(bool need_xy) {
    std::vector<std::size_t> candidates;
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      const Node& n = nodes_[i];
      if (n.has_bin()) continue;
      if (need_xy && (n.dim_of(kX) < 0 || n.dim_of(kY) < 0)) continue;
      candidates.push_back(i);
    }
    if (rng_.chance(0.5)) {
      for (std::size_t i = nodes_.size(); i-- > 0;)
        if (std::find(candidates.begin(), candidates.end(), i) != candidates.end())
          return nodes_[i];
    }
    return nodes_[rng_.pick(candidates)];
  }

  // The site of a stage reading `p` at its own levels, over (c,) x, y.
  static Site site_like(const Node& p) {
    Site site;
    if (p.dim_of(kChannel) >= 0) site.axes.push_back(kChannel);
    site.axes.push_back(kX);
    site.axes.push_back(kY);
    site.level = p.level;
    return site;
  }

  void add_stage(int index) {
    Kind kind = draw_kind();
    const std::string prefixes[] = {"pw", "st",   "dn",   "up",  "lk",
                                    "cs", "hist", "rsum", "lut", "ch"};
    current_ = prefixes[static_cast<int>(kind)] + std::to_string(index);
    if (kind == Kind::Histogram) return add_histogram(primary(true));
    if (kind == Kind::RowSum) return add_row_sum(primary(true));
    if (kind == Kind::Table) return add_table();

    const Node& p = primary(false);
    Site site = site_like(p);
    ScalarType type = stage_type();
    std::vector<Expr> terms;
    bool with_cases = false;
    switch (kind) {
    case Kind::Cases:
      with_cases = true;
      if (rng_.chance(0.5)) {
        terms = taps(p, site, static_cast<int>(rng_.uniform(2, 5)), 2, 2);
        break;
      }
      [[fallthrough]];
    case Kind::PointWise:
      terms.push_back(read(p, site, {}));
      if (rng_.chance(0.5)) terms.push_back(key_value(site));
      break;
    case Kind::Stencil:
      terms = taps(p, site, static_cast<int>(rng_.uniform(2, 6)), 3, 3);
      if (rng_.chance(0.3)) terms.push_back(key_value(site));
      break;
    case Kind::Down:
    case Kind::Up: {
      bool any = false;
      for (int axis : {kX, kY}) {
        int& level = site.level[static_cast<std::size_t>(axis)];
        const bool can = kind == Kind::Down ? level < kMaxLevel : level > 0;
        if (!can || !rng_.chance(0.7)) continue;
        level += kind == Kind::Down ? 1 : -1;
        any = true;
      }
      if (!any) current_ = "st" + std::to_string(index);
      terms = kind == Kind::Down ? taps(p, site, static_cast<int>(rng_.uniform(1, 4)), 1, 2)
                                 : taps(p, site, static_cast<int>(rng_.uniform(1, 3)), 1, 1);
      break;
    }
    case Kind::LookUp: {
      terms.push_back(read(p, site, {}));
      const Node& table = nodes_[rng_.index(nodes_.size())];
      const int by_value = static_cast<int>(rng_.index(table.axes.size()));
      terms.push_back(read(table, site, {}, by_value));
      break;
    }
    case Kind::Channels: {
      if (!three_d_) {
        terms = taps(p, site, 2, 1, 1);
        break;
      }
      if (site.has(kChannel)) { // sum the channels into one plane
        site.axes.erase(site.axes.begin());
        for (std::int64_t c = 0; c < channels_; ++c)
          terms.push_back(read(p, site, {}));
      } else { // spread a plane over the channels
        site.axes.insert(site.axes.begin(), kChannel);
        site.allow(kChannel, 0, channels_ - 1);
        terms.push_back(read(p, site, {}));
        terms.push_back(cast(ScalarType::Float32, var(kChannel)) * Expr(0.5f));
      }
      break;
    }
    default: break;
    }
    Node n = declare(site, type, with_cases);
    const Expr value = combine(terms, type);
    if (!with_cases) {
      n.func->define(value);
    } else {
      n.func->define(case_list(n, site, terms, type, value),
                     constant(type, is_float(type) ? 0.25 : 3));
    }
    nodes_.push_back(std::move(n));
  }

  // The stage's node: its domain from the bounds the accesses allow, shrunk
  // at random, or (for a stage with cases) padded around the guarded box.
  Node declare(Site& site, ScalarType type, bool padded) {
    Node n;
    n.name = current_;
    n.type = type;
    n.axes = site.axes;
    n.level = site.level;
    std::vector<Var> vars;
    std::vector<Interval> domain;
    for (int axis : site.axes) {
      const std::size_t a = static_cast<std::size_t>(axis);
      if (!site.lo[a]) site.allow(axis, 0, axis == kChannel ? channels_ - 1 : -1);
      std::int64_t lo = *site.lo[a], hi = *site.hi[a];
      if (spatial(axis)) {
        if (padded) {
          lo -= rng_.uniform(0, 2);
          hi += rng_.uniform(0, 2);
        } else if (rng_.chance(0.25)) {
          lo += rng_.uniform(0, 2);
          hi -= rng_.uniform(0, 2);
        }
      }
      n.lo.push_back(lo);
      n.hi.push_back(hi);
      vars.push_back(vars_[a]);
      domain.emplace_back(Expr(static_cast<int>(lo)), hi_expr(axis, n.level[a], hi));
    }
    n.func.emplace(n.name, type, vars, domain);
    return n;
  }

  // Cases guarding the accesses: the box they allow, and maybe a sub-box first.
  std::vector<Case> case_list(const Node& n, const Site& site, const std::vector<Expr>& terms,
                              ScalarType type, const Expr& value) {
    Expr inside;
    Expr part;
    for (int axis : site.axes) {
      if (!spatial(axis)) continue;
      const std::size_t a = static_cast<std::size_t>(axis);
      const int level = n.level[a];
      const Expr v = var(axis);
      const Expr& c = v;
      const Expr cond =
          Expr(static_cast<int>(*site.lo[a])) <= c && c <= hi_expr(axis, level, *site.hi[a]);
      inside = inside.defined() ? inside && cond : cond;
      if (rng_.chance(0.5)) {
        const std::int64_t cut = *site.lo[a] + rng_.uniform(0, 4);
        const Expr half =
            rng_.chance(0.5) ? Expr(static_cast<int>(cut)) <= c : c < hi_expr(axis, level, cut);
        part = part.defined() ? part && half : half;
      }
    }
    std::vector<Case> cases;
    if (part.defined() && inside.defined())
      cases.emplace_back(part && inside, combine(terms, type));
    if (inside.defined()) cases.emplace_back(inside, value);
    if (cases.empty()) cases.emplace_back(Expr(static_cast<int>(*site.lo[kX])) <= var(kX), value);
    return cases;
  }

  // A boundary condition around `p` (an input or a stage), 0 to 3 points on
  // each side of x and y: stencils that read it past the source's edge make
  // the inliner split them by their taps, and case partitioning cut borders.
  void add_boundary(const Node& p) {
    using boundary::Condition;
    const Condition c = boundaries_.pick(std::vector<Condition>{
        Condition::RepeatEdge, Condition::RepeatEdge, Condition::RepeatImage,
        Condition::MirrorImage, Condition::MirrorInterior, Condition::ConstantExterior});
    Node n = p;
    n.name = "bc_" + p.name;
    n.is_input = false;
    n.image.reset();
    std::vector<Expr> margins;
    for (std::size_t k = 0; k < p.axes.size(); ++k) {
      const std::int64_t m = spatial(p.axes[k]) ? boundaries_.uniform(0, 3) : 0;
      margins.push_back(Expr(static_cast<int>(m)));
      n.lo[k] -= m;
      n.hi[k] += m;
    }
    const Expr value = constant(p.type, is_float(p.type) ? 0.5 : 7);
    n.func = p.is_input ? boundary::apply(c, *p.image, value, margins, n.name)
                        : boundary::apply(c, *p.func, value, margins, n.name);
    if (!p.is_input) consumed_.insert(p.name);
    nodes_.push_back(std::move(n));
  }

  // hist(b): int32 counts of the values of p (a reduction by value).
  void add_histogram(const Node& p) {
    Node n;
    n.name = current_;
    n.type = ScalarType::Int32;
    n.axes = {kBin};
    n.lo = {0};
    n.hi = {bins_ - 1};
    n.func.emplace(n.name, n.type, std::vector<Var>{vars_[kBin]},
                   std::vector<Interval>{{Expr(0), Expr(bins_ - 1)}});
    std::vector<RVar> rdom;
    std::vector<Expr> point;
    for (std::size_t k = 0; k < p.axes.size(); ++k) {
      rdom.emplace_back("r" + std::to_string(k),
                        Interval(Expr(static_cast<int>(p.lo[k])), hi_expr(p, k)));
      point.push_back(rdom.back());
    }
    consumed_.insert(p.name);
    const Expr value = p.read(point);
    Expr bin = index_from_value(value);
    if (rng_.chance(0.5)) bin = clamp(bin, Expr(0), Expr(static_cast<int>(bins_ - 1)));
    std::vector<Update> updates = {sum_into({bin}, Expr(1))};
    if (rng_.chance(0.3)) updates.push_back(max_into({Expr(0)}, as_int(value) % Expr(1000)));
    n.func->define_reduction(Expr(0), rdom, updates);
    nodes_.push_back(std::move(n));
  }

  // rsum(c, x): float32 sums of p along y (updates see only reduction variables).
  void add_row_sum(const Node& p) {
    Node n;
    n.name = current_;
    n.type = ScalarType::Float32;
    n.level = p.level;
    std::vector<Var> vars;
    std::vector<Interval> domain;
    std::vector<RVar> rdom;
    std::vector<Expr> target, point;
    for (std::size_t k = 0; k < p.axes.size(); ++k) {
      const int axis = p.axes[k];
      rdom.emplace_back("r" + std::string(axis == kChannel ? "c"
                                          : axis == kX     ? "x"
                                                           : "y"),
                        Interval(Expr(static_cast<int>(p.lo[k])), hi_expr(p, k)));
      point.push_back(rdom.back());
      if (axis == kY) continue;
      n.axes.push_back(axis);
      n.lo.push_back(p.lo[k]);
      n.hi.push_back(p.hi[k]);
      vars.push_back(vars_[static_cast<std::size_t>(axis)]);
      domain.emplace_back(Expr(static_cast<int>(p.lo[k])), hi_expr(p, k));
      target.push_back(rdom.back());
    }
    n.func.emplace(n.name, n.type, vars, domain);
    consumed_.insert(p.name);
    const Expr value = as_float(p.read(point));
    n.func->define_reduction(Expr(0.0f), rdom, {sum_into(target, value * Expr(0.125f))});
    nodes_.push_back(std::move(n));
  }

  // lut(b): a pure 1-D table, read by value.
  void add_table() {
    Node n;
    n.name = current_;
    n.axes = {kBin};
    n.lo = {0};
    n.hi = {bins_ - 1};
    n.func.emplace(n.name, n.type, std::vector<Var>{vars_[kBin]},
                   std::vector<Interval>{{Expr(0), Expr(bins_ - 1)}});
    const float k = rng_.pick(std::vector<float>{0.37f, 0.11f, 1.5f});
    n.func->define(sin(cast(ScalarType::Float32, var(kBin)) * Expr(k)));
    nodes_.push_back(std::move(n));
  }

  // ---- the pipeline ---------------------------------------------------------------------------

  RandomPipeline finish() {
    // Outputs: every stage nobody reads, and a few that are read.
    std::vector<Func> outputs;
    for (const Node& n : nodes_) {
      if (!n.func) continue;
      const bool extra = rng_.chance(0.12);
      if (!consumed_.count(n.name) || extra) outputs.push_back(*n.func);
    }

    // The smallest sizes that keep every domain non-empty, plus a margin.
    std::array<std::int64_t, kAxes> least{1, 1, 1, 1};
    for (const Node& n : nodes_)
      for (std::size_t k = 0; k < n.axes.size(); ++k) {
        const int axis = n.axes[k];
        if (!spatial(axis)) continue;
        const std::int64_t m = multiplier(n.level[static_cast<std::size_t>(axis)]);
        std::int64_t& l = least[static_cast<std::size_t>(axis)];
        l = std::max(l, ceil_div(n.lo[k] - n.hi[k], m));
      }
    const std::int64_t n_value = least[kX] + rng_.uniform(0, 5);
    const std::int64_t m_value = least[kY] + rng_.uniform(0, 5);

    Pipeline p(outputs, "fuzz_" + std::to_string(seed_));
    ParamValues params;
    // Declared ranges come from a generator of their own, so that they change
    // no other draw of the seed: with a lower bound near the value, more case
    // boundaries are ordered at compile time (Pipeline::set_range).
    FuzzRng ranges(seed_ ^ 0x9e3779b97f4a7c15ull);
    for (const ParamInfo& info : p.params()) {
      const std::int64_t value = info.name == "N" ? n_value : m_value;
      p.set_default(info.name, value);
      if (ranges.chance(0.4))
        p.set_range(info.name, value - ranges.uniform(0, 2),
                    ranges.chance(0.3) ? std::optional<std::int64_t>(value + ranges.uniform(0, 9))
                                       : std::nullopt);
      params[info.name] = value;
    }
    return RandomPipeline{seed_, std::move(p), params, data_dependent_};
  }

  std::uint64_t seed_;
  FuzzRng rng_;
  // Draws the coefficients' magnitudes, apart from rng_, so that a seed's
  // pipeline keeps its shape whatever magnitudes its weights get.
  FuzzRng magnitudes_;
  // Draws where boundary conditions go and what they are, apart from rng_.
  FuzzRng boundaries_{seed_ ^ 0xbf58476d1ce4e5b9ull};
  Param N_{"N"}, M_{"M"};
  std::vector<Var> vars_{Var("c"), Var("x"), Var("y"), Var("b")};
  bool three_d_ = false;
  std::int64_t channels_ = 3, bins_ = 16;
  std::vector<Node> nodes_;
  std::string current_;
  std::set<std::pair<std::string, std::string>> data_dependent_;
  std::set<std::string> consumed_;
};

} // namespace

RandomPipeline random_pipeline(std::uint64_t seed) { return Generator(seed).run(); }

BufferMap random_inputs(const Pipeline& p, const ParamValues& bound, std::uint64_t seed) {
  BufferMap inputs;
  std::uint64_t k = 0;
  for (const ir::InputImagePtr& in : p.inputs()) {
    FuzzRng rng(seed * 0x9E3779B97F4A7C15ull + ++k);
    const Box box = concrete_domain(*in, bound);
    std::vector<std::int64_t> extents;
    for (int d = 0; d < box.dimensions(); ++d)
      extents.push_back(box.extent(d));
    Buffer b(in->type(), extents);
    // Float inputs: a third in [-1, 1), a third scaled by one power of ten
    // from 1e-6 to 1e6, a third with a magnitude drawn per value.
    constexpr double kPerValue = -1;
    const std::int64_t mode = rng.uniform(0, 2);
    const double scale = mode == 0 ? 1.0 : mode == 1 ? rng.pick(kMagnitudes) : kPerValue;
    for (std::int64_t i = 0; i < b.size(); ++i) {
      switch (in->type()) {
      case ScalarType::UInt8: b.set_from_double(i, static_cast<double>(rng.uniform(0, 255))); break;
      case ScalarType::Int16:
        b.set_from_double(i, static_cast<double>(rng.uniform(-1000, 1000)));
        break;
      case ScalarType::Int32: {
        constexpr std::int64_t lo = std::numeric_limits<std::int32_t>::min();
        constexpr std::int64_t hi = std::numeric_limits<std::int32_t>::max();
        const std::vector<std::int64_t> edges = {lo, hi, -1, 0, 1};
        b.set_from_double(
            i, static_cast<double>(rng.chance(0.3) ? rng.pick(edges) : rng.uniform(lo, hi)));
        break;
      }
      default:
        // [-1, 1) scaled by the input's magnitude, or by one drawn per value.
        b.set_from_double(i, (rng.unit() * 2 - 1) *
                                 (scale == kPerValue ? rng.pick(kMagnitudes) : scale));
        break;
      }
    }
    inputs[in->name()] = b;
  }
  return inputs;
}

} // namespace trapeze::fuzz
