// Small pipelines shared by tests.
#pragma once

#include "trapeze/dsl.h"
#include "trapeze/pipeline.h"

namespace trapeze::testing_support {

/// The two-stage blur of benchmarks.md section 0 (no parameter defaults):
/// blurx on [1, R] x [0, C + 1], blury (output) on [1, R] x [1, C].
inline Pipeline sample_blur() {
  Param R("R"), C("C");
  Var x("x"), y("y");
  Image img("img", ScalarType::Float32, {R + 2, C + 2});
  Func blurx("blurx", ScalarType::Float32, {x, y}, {{1, R}, {0, C + 1}});
  blurx.define((img(x - 1, y) + img(x, y) + img(x + 1, y)) / 3.0f);
  Func blury("blury", ScalarType::Float32, {x, y}, {{1, R}, {1, C}});
  blury.define((blurx(x, y - 1) + blurx(x, y) + blurx(x, y + 1)) / 3.0f);
  return Pipeline({blury}, "blur");
}

/// A stage g with multigrid's boundary cases (x == 0, the interior [1, n] x
/// [1, n], x == n + 1) and a reader h over the same domain. `ranged` declares
/// n >= 1 (then the cases' boundaries are ordered for every n); without it,
/// n = -1 is allowed and 1 > n + 1 there.
inline Pipeline boundary_cases(bool ranged) {
  Param n("n");
  Var x("x"), y("y");
  Image img("img", ScalarType::Float32, {n + 2, n + 2});
  Func g("g", ScalarType::Float32, {x, y}, {{0, n + 1}, {0, n + 1}});
  g.define({Case(x.in(1, n) && y.in(1, n), img(x - 1, y) + img(x + 1, y)), Case(x == 0, img(x, y)),
            Case(x == n + 1, img(x, y) * 2.0f)},
           0.0f);
  Func h("h", ScalarType::Float32, {x, y}, {{0, n + 1}, {0, n + 1}});
  h.define(g(x, y) * 0.5f); // no domain of [1, n]: that would say n >= 1 itself
  Pipeline p({h}, "boundaries");
  if (ranged) p.set_range("n", 1, std::nullopt);
  return p;
}

/// Up-sampling and interleaving of the kinds partition_parity handles, over
/// domains that start at odd points: `up` reads `a` at (x + 1) / 2 and
/// (x + 2) / 2 along x (an outer dimension), `mix` selects on y % 2 (the
/// innermost) and reads at y / 2, `even` has a case on x % 2 == 0 (a residual).
inline Pipeline parity_sampling() {
  Param N("N"), M("M");
  Var x("x"), y("y");
  Image img("img", ScalarType::Float32, {N + 2, M + 2});
  Func a("a", ScalarType::Float32, {x, y}, {{0, N + 1}, {0, M + 1}});
  a.define(img(x, y) * 3.0f);
  Func up("up", ScalarType::Float32, {x, y}, {{1, 2 * N - 1}, {0, M + 1}});
  up.define(a((x + 1) / 2, y) + a((x + 2) / 2, y) * 0.5f);
  Func mix("mix", ScalarType::Float32, {x, y}, {{1, 2 * N - 1}, {1, 2 * M + 1}});
  mix.define(select(y % 2 == 0, up(x, y / 2), up(x, y / 2) * 2.0f - up(x, (y + 1) / 2)));
  Func even("even", ScalarType::Float32, {x, y}, {{1, 2 * N - 1}, {1, 2 * M + 1}});
  even.define({Case(x >= 2 && x % 2 == 0, mix(x, y) + a(x / 2, y / 2))}, mix(x, y) * 0.25f);
  return Pipeline({even}, "parity_sampling");
}

/// A 3-D up-sampling by 2 along every dimension with a boundary case, as the
/// 3-D multigrid cycles' interpolations are: `up` reads `a` at z / 2, y / 2,
/// x / 2 and (z + 1) / 2, (y + 1) / 2, (x + 1) / 2 inside and copies `fine`
/// on the domain's boundary planes, over a domain that starts at an odd point.
inline Pipeline parity_sampling_3d() {
  Param N("N");
  Var z("z"), y("y"), x("x");
  Image img("img", ScalarType::Float32, {N + 2, N + 2, N + 2});
  Image fine_in("fine_in", ScalarType::Float32, {2 * N + 2, 2 * N + 2, 2 * N + 2});
  Func a("a", ScalarType::Float32, {z, y, x}, {{0, N + 1}, {0, N + 1}, {0, N + 1}});
  a.define(img(z, y, x) * 3.0f);
  Func fine("fine", ScalarType::Float32, {z, y, x},
            {{1, 2 * N + 1}, {1, 2 * N + 1}, {1, 2 * N + 1}});
  fine.define(fine_in(z, y, x) + 1.0f);
  const Expr inside = z >= 2 && z <= 2 * N && y >= 2 && y <= 2 * N && x >= 2 && x <= 2 * N;
  Func up("up", ScalarType::Float32, {z, y, x}, {{1, 2 * N + 1}, {1, 2 * N + 1}, {1, 2 * N + 1}});
  up.define({Case(inside, fine(z, y, x) + a(z / 2, y / 2, x / 2) +
                              a((z + 1) / 2, (y + 1) / 2, (x + 1) / 2) * 0.5f)},
            fine(z, y, x));
  return Pipeline({up}, "parity_sampling_3d");
}

/// Slicing a coarse grid as bilateral_grid does, over a domain that starts
/// at an odd point: `sliced` reads `grid` at x / 4 and at a level read from
/// the image (a gather) and weighs by x % 4; `upsampled` reads `grid` at
/// x / 4 and level 0 (an affine read) and weighs by x % 4.
inline Pipeline gather_sampling() {
  Param N("N");
  Var x("x"), z("z");
  Image img("img", ScalarType::Float32, {4 * N});
  Func grid("grid", ScalarType::Float32, {x, z}, {{0, N}, {0, 7}});
  grid.define(img(x) * cast<float>(z + 1));
  const Expr level = cast<int>(img(x) * 8.0f);
  Func sliced("sliced", ScalarType::Float32, {x}, {{1, 4 * N - 1}});
  sliced.define(grid(x / 4, level) + grid(x / 4 + 1, level + 1) * cast<float>(x % 4) * 0.25f);
  Func upsampled("upsampled", ScalarType::Float32, {x}, {{1, 4 * N - 1}});
  upsampled.define(grid(x / 4, 0) * cast<float>(x % 4) + sliced(x));
  return Pipeline({upsampled}, "gather_sampling");
}

/// Four 5-point stencils in a chain over an n x n image: s1 (float32), s2
/// (float64), s3 and out (float32), each over its reader's points and their
/// neighbours.
inline Pipeline stencil_chain() {
  Param n("n");
  Var x("x"), y("y");
  Image img("img", ScalarType::Float32, {n, n});
  const auto stencil = [&](const auto& in, const char* name, ScalarType type, int margin) {
    Func f(name, type, {x, y}, {{margin, n - 1 - margin}, {margin, n - 1 - margin}});
    f.define(cast(type, (in(x - 1, y) + in(x + 1, y) + in(x, y - 1) + in(x, y + 1)) * 0.25f));
    return f;
  };
  const Func s1 = stencil(img, "s1", ScalarType::Float32, 1);
  const Func s2 = stencil(s1, "s2", ScalarType::Float64, 2);
  const Func s3 = stencil(s2, "s3", ScalarType::Float32, 3);
  const Func out = stencil(s3, "out", ScalarType::Float32, 4);
  Pipeline p({out}, "stencil_chain");
  p.set_range("n", 16, std::nullopt);
  return p;
}

/// A diamond: b and c each read a, d reads both.
inline Pipeline stencil_diamond() {
  Param n("n");
  Var x("x"), y("y");
  Image img("img", ScalarType::Float32, {n, n});
  Func a("a", ScalarType::Float32, {x, y}, {{1, n - 2}, {1, n - 2}});
  a.define(img(x - 1, y) + img(x + 1, y));
  Func b("b", ScalarType::Float32, {x, y}, {{2, n - 3}, {2, n - 3}});
  b.define(a(x, y - 1) + a(x, y + 1));
  Func c("c", ScalarType::Float32, {x, y}, {{2, n - 3}, {2, n - 3}});
  c.define(a(x - 1, y) * a(x + 1, y));
  Func d("d", ScalarType::Float32, {x, y}, {{3, n - 4}, {3, n - 4}});
  d.define(b(x - 1, y) - c(x + 1, y));
  Pipeline p({d}, "stencil_diamond");
  p.set_range("n", 16, std::nullopt);
  return p;
}

/// Reads of the kinds prefetch_rows weighs: `down` (c, x, y) sums four rows
/// of a channel of `img` at 2x - 1 .. 2x + 2 (each row of down starts two new
/// rows of img), and `out` reads `gain` only in an arm of a select, down in
/// place and down's next column.
inline Pipeline prefetched_reads() {
  Param n("n");
  Var c("c"), x("x"), y("y");
  Image img("img", ScalarType::Float32, {3, 2 * n + 1, n + 1});
  Image gain("gain", ScalarType::Float32, {n, n});
  Func down("down", ScalarType::Float32, {c, x, y}, {{0, 2}, {1, n - 1}, {0, n}});
  down.define(img(c, 2 * x - 1, y) + img(c, 2 * x, y) + img(c, 2 * x + 1, y) +
              img(c, 2 * x + 2, y));
  Func out("out", ScalarType::Float32, {c, x, y}, {{0, 2}, {1, n - 1}, {0, n - 1}});
  out.define(select(down(c, x, y) > 1.5f, gain(x, y), 0.25f) + down(c, x, y + 1));
  Pipeline p({out}, "prefetched_reads");
  p.set_range("n", 2, std::nullopt);
  return p;
}

} // namespace trapeze::testing_support
