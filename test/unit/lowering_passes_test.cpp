// One test per lowering pass (src/lower/passes.h): what each adds to the loop
// IR of a small pipeline, read from `explain --lowered --after PASS`'s text.
#include "app.h"
#include "lower/loop_ir.h"
#include "plan/buffer_sharing.h"
#include "support/lowering.h"
#include "support/sample_pipelines.h"
#include "trapeze/boundary.h"
#include "trapeze/dsl.h"
#include "trapeze/error.h"
#include "trapeze/explain_schedule.h"
#include "trapeze/ir_visitor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

namespace trapeze {
namespace {

using testing::HasSubstr;
using testing::Not;

// The loop IR after `pass`, for blur fused in 32 x 256 tiles, blurx in a
// scratchpad (every kind of storage a pass handles), with the given changes.
std::string blur_after(const std::string& pass, const std::function<void(Schedule&)>& change = {}) {
  const Pipeline p = apps::find_app("blur").build();
  Schedule s = apps::fuse_all_stages(p, {32, 256}, 2, "test: blurx in a scratchpad");
  if (change) change(s);
  return explain_lowered(p, s, pass);
}

TEST(Passes, TileLoopsMakeTheSkeleton) {
  const std::string ir = blur_after("tile_loops");
  EXPECT_THAT(ir, HasSubstr("parallel for x_tile in [0, (R + 31) / 32 - 1] collapse(2) dynamic:"));
  EXPECT_THAT(ir, HasSubstr("let x_tile_lo = 32 * int64(x_tile) + 1"));
  EXPECT_THAT(ir, HasSubstr("produce blurx (region not yet bounded) vectorized:"));
  EXPECT_THAT(ir, Not(HasSubstr("blurx_x_lo")));
}

TEST(Passes, BoundRegionsGiveEveryProduceItsBox) {
  const std::string ir = blur_after("bound_regions");
  EXPECT_THAT(ir, HasSubstr("let blurx_y_lo = max(blury_y_lo - 1, 0)"));
  EXPECT_THAT(ir, HasSubstr("produce blurx over [blurx_x_lo, blurx_x_hi] x [blurx_y_lo, "
                            "blurx_y_hi]"));
  EXPECT_THAT(ir, Not(HasSubstr("not yet bounded")));
}

TEST(Passes, InnerTilesNarrowTheBoxesToBands) {
  const std::string ir = blur_after("inner_tiles", [](Schedule& s) {
    s.groups[0].inner_tile_sizes = {8, 64};
  });
  EXPECT_THAT(ir, HasSubstr("// inner parallelogram tiles [8, 64], in order"));
  EXPECT_THAT(ir, HasSubstr("serial for x_inner in"));
  EXPECT_THAT(ir, HasSubstr("produce blurx over [blurx_x_band_lo, blurx_x_band_hi]"));
  EXPECT_THAT(blur_after("inner_tiles"), Not(HasSubstr("_inner")));
}

TEST(Passes, ScratchpadsAllocatePerTileBuffers) {
  const std::string ir = blur_after("scratchpads");
  EXPECT_THAT(ir, HasSubstr("allocate blurx: float32[min(32, R), 16 * ((min(258, C + 2) + 15) / "
                            "16)] origin (blurx_x_lo, blurx_y_lo) stack"));
  EXPECT_THAT(blur_after("inner_tiles"), Not(HasSubstr("allocate blurx")));
}

TEST(Passes, CopyOutMovesTheTilesPartOfAPrivateCopy) {
  const auto full = [](Schedule& s) { s.storage["blurx"] = Storage::Full; };
  EXPECT_THAT(blur_after("scratchpads", full), HasSubstr("produce blurx into blurx_tile"));
  EXPECT_THAT(blur_after("scratchpads", full), Not(HasSubstr("the tile's part")));
  const std::string ir = blur_after("copy_out", full);
  EXPECT_THAT(ir, HasSubstr("// blurx: the tile's part, from its scratchpad to its full buffer"));
  EXPECT_THAT(ir, HasSubstr("blurx(x, y) = blurx(x, y)"));
}

TEST(Passes, InlineStagesSubstituteTheDefinition) {
  const auto inlined = [](Schedule& s) { s.storage["blurx"] = Storage::Inlined; };
  EXPECT_THAT(blur_after("copy_out", inlined), HasSubstr("blurx(x, y - 1)"));
  const std::string ir = blur_after("inline_stages", inlined);
  EXPECT_THAT(ir, Not(HasSubstr("blurx(")));
  EXPECT_THAT(ir, HasSubstr("img(x - 1, y - 1)"));
}

TEST(Passes, PartitionCasesSplitsTheBoxes) {
  const Pipeline p = testing_support::boundary_cases(true);
  EXPECT_THAT(explain_lowered(p, Schedule::naive(p), "inline_stages"), HasSubstr("  case "));
  const std::string ir = explain_lowered(p, Schedule::naive(p), "partition_cases");
  EXPECT_THAT(ir, Not(HasSubstr("  case ")));
  EXPECT_THAT(ir, HasSubstr("produce g over [0, 0] x [0, n + 1]"));
  EXPECT_THAT(ir, HasSubstr("parallel for x in [1, n] chunked:"));
}

TEST(Passes, PartitionParitySplitsByResidue) {
  const Pipeline p = testing_support::parity_sampling();
  EXPECT_THAT(explain_lowered(p, Schedule::naive(p), "partition_cases"), Not(HasSubstr("_coarse")));
  const std::string ir = explain_lowered(p, Schedule::naive(p), "partition_parity");
  EXPECT_THAT(ir, HasSubstr("by 2 along y (y = 2 * y_coarse"));
  EXPECT_THAT(ir, HasSubstr("for x_coarse"));
}

// The rows outside a loop's whole groups of two split along the innermost
// dimension only. parity_sampling_3d's interior starts at an even point and
// may end at one: the z loop's coarse body is two rows (z even, z odd), each
// a y loop whose coarse body is two rows split along x, and whose one row
// after its whole groups is split along x: 3 each; the z loop's one row
// after its whole groups is split along x only: 7 in all (splitting that row
// along y as well made it 9).
TEST(Passes, PartitionParitySplitsTheRowsOutsideWholeGroupsAlongTheInnermostOnly) {
  const Pipeline p = testing_support::parity_sampling_3d();
  const std::string ir = explain_lowered(p, Schedule::naive(p), "partition_parity");
  std::size_t along_x = 0;
  for (std::size_t at = ir.find("by 2 along x"); at != std::string::npos;
       at = ir.find("by 2 along x", at + 1))
    ++along_x;
  EXPECT_EQ(along_x, 7u) << ir;
  EXPECT_THAT(ir, HasSubstr("for z_coarse")) << ir;
  EXPECT_THAT(ir, HasSubstr("for y_coarse")) << ir;
}

// A split by parity pays where it turns a read at x / k into one at unit
// stride, or decides a select. sliced's x / 4 only indexes gathers and its
// x % 4 only weighs its value: it runs unsplit, where upsampled, which reads
// grid at x / 4 and level 0, is split.
TEST(Passes, PartitionParitySplitsOnlyWhereItPays) {
  const Pipeline p = testing_support::gather_sampling();
  const std::string ir = explain_lowered(p, Schedule::naive(p), "partition_parity");
  const std::size_t sliced = ir.find("produce sliced"), upsampled = ir.find("produce upsampled");
  ASSERT_LT(sliced, upsampled) << ir;
  EXPECT_THAT(ir.substr(sliced, upsampled - sliced), Not(HasSubstr(" along x"))) << ir;
  EXPECT_THAT(ir.substr(upsampled), HasSubstr("by 4 along x (x = 4 * x_coarse + r)")) << ir;
}

TEST(Passes, StageLoopsReplaceEveryProduce) {
  EXPECT_THAT(blur_after("partition_parity"), HasSubstr("produce "));
  const std::string ir = blur_after("stage_loops");
  EXPECT_THAT(ir, Not(HasSubstr("produce ")));
  EXPECT_THAT(ir, HasSubstr("vectorized for y in [blurx_y_lo, blurx_y_hi]:"));
}

TEST(Passes, IntraTileFusionMergesNests) {
  const Pipeline p = apps::find_app("harris").build();
  const Schedule s = apps::make_manual_schedule_harris(p);
  EXPECT_THAT(explain_lowered(p, s, "stage_loops"), Not(HasSubstr("one fused nest")));
  EXPECT_THAT(explain_lowered(p, s, "intra_tile_fusion"), HasSubstr("Ix, Iy: one fused nest"));
}

TEST(Passes, OutlineNestsMakesEachNestAFunction) {
  EXPECT_THAT(blur_after("intra_tile_fusion"), Not(HasSubstr("outlined")));
  const std::string ir = blur_after("outline_nests");
  EXPECT_THAT(ir, HasSubstr("outlined blurx:\n"));
  EXPECT_THAT(ir, HasSubstr("outlined blury:\n"));
  // A fused nest is one function, named after every stage it stores.
  const Pipeline p = apps::find_app("harris").build();
  EXPECT_THAT(explain_lowered(p, apps::make_manual_schedule_harris(p), "outline_nests"),
              HasSubstr("outlined Ix_Iy:"));
  // A lone stage's nest is a parallel loop of its own: not outlined.
  EXPECT_THAT(explain_lowered(p, Schedule::naive(p)), Not(HasSubstr("outlined")));
}

// A prefetched live-in's leading rows, fetched at the start of each row a
// row ahead: of blurx's three rows of img the last, of a 2x down-sampling's
// four rows the last two; a read in a select's arm (which may lie outside
// its buffer where the arm is not taken) is not fetched.
TEST(Passes, PrefetchRowsFetchesTheLeadingRowsAhead) {
  EXPECT_THAT(blur_after("prefetch_rows"), Not(HasSubstr("prefetch img")));
  const std::string blur = blur_after("prefetch_rows", [](Schedule& s) {
    s.groups[0].prefetch = {{"img", 1}};
  });
  EXPECT_THAT(blur, HasSubstr("let x_ahead = int32(min(int64(x) + 1, blurx_x_hi))"));
  EXPECT_THAT(blur, HasSubstr("prefetch img(x_ahead + 1, "));
  EXPECT_THAT(blur, Not(HasSubstr("prefetch img(x_ahead, ")));
  EXPECT_THAT(blur, Not(HasSubstr("prefetch img(x_ahead - 1, ")));
  EXPECT_THAT(blur_after("intra_tile_fusion",
                         [](Schedule& s) {
                           s.groups[0].prefetch = {{"img", 1}};
                         }),
              Not(HasSubstr("prefetch img")));

  const Pipeline p = testing_support::prefetched_reads();
  Schedule s = apps::fuse_all_stages(p, {1, 8, 32}, 2, "test");
  s.groups[0].prefetch = {{"img", 2}, {"gain", 1}};
  const std::string ir = explain_lowered(p, s, "prefetch_rows");
  EXPECT_THAT(ir, HasSubstr("min(int64(x) + 2, "));
  EXPECT_THAT(ir, HasSubstr("prefetch img(c, 2 * x_ahead + 1, "));
  EXPECT_THAT(ir, HasSubstr("prefetch img(c, 2 * x_ahead + 2, "));
  EXPECT_THAT(ir, Not(HasSubstr("prefetch img(c, 2 * x_ahead, ")));
  EXPECT_THAT(ir, Not(HasSubstr("prefetch gain")));
}

// A row is fetched from where its innermost loop starts reading it, its
// first 2 KiB at most (the hardware's stream prefetcher takes over within
// them): from its low end up, or from its high end down where it is read
// backwards; a row read both ways is fetched whole.
TEST(Passes, PrefetchRowsFetchesTheStartOfEachRow) {
  const std::string blur = blur_after("prefetch_rows", [](Schedule& s) {
    s.groups[0].prefetch = {{"img", 1}};
  });
  EXPECT_THAT(blur, HasSubstr("for x_line in [0, min((blurx_y_hi - blurx_y_lo) / 16 + 1, 32)]:\n"
                              "          prefetch img(x_ahead + 1, min(blurx_y_lo + int64(x_line) "
                              "* 16, blurx_y_hi))"));

  Param n("n");
  Var x("x"), y("y");
  Image img("img", ScalarType::Float64, {n, n});
  const auto mirrored = [&](bool both_ways) {
    Func flip("flip", ScalarType::Float64, {x, y}, {{0, n - 1}, {0, n - 1}});
    flip.define(both_ways ? img(x, n - 1 - y) + img(x, y) : img(x, n - 1 - y));
    Func out("out", ScalarType::Float64, {x, y}, {{0, n - 1}, {0, n - 1}});
    out.define(flip(x, y) * 2.0);
    const Pipeline p({out}, "mirrored");
    Schedule s = apps::fuse_all_stages(p, {8, 1024}, 1, "test");
    s.groups[0].prefetch = {{"img", 1}};
    return explain_lowered(p, s, "prefetch_rows");
  };
  const std::string backwards = mirrored(false);
  EXPECT_THAT(backwards, HasSubstr(", 32)]:\n"));
  EXPECT_THAT(backwards, testing::ContainsRegex("prefetch img\\(x_ahead, max\\(-flip_y_lo \\+ "
                                                "n - 1 - int64\\(x_line\\) \\* 8, "));
  const std::string both_ways = mirrored(true);
  EXPECT_THAT(both_ways, HasSubstr("prefetch img(x_ahead, min("));
  EXPECT_THAT(both_ways, Not(HasSubstr(", 32)]:\n")));
}

TEST(Passes, FullBuffersAndHoisting) {
  EXPECT_THAT(blur_after("intra_tile_fusion"), Not(HasSubstr("allocate img")));
  const std::string ir = blur_after("full_buffers");
  EXPECT_THAT(ir, HasSubstr("allocate img: float32[R + 2, C + 2] origin (0, 0) input 0"));
  EXPECT_THAT(ir, HasSubstr("allocate blury: float32[R, C] origin (1, 1) output 0"));
  EXPECT_THAT(ir, Not(HasSubstr("per thread")));
  EXPECT_THAT(blur_after("hoist_scratchpads"), HasSubstr("per thread"));
}

TEST(BufferSharing, FirstFitByTypeAmongMemoriesFreeBeforeTheFirstStep) {
  using plan::BufferLifetime;
  const ScalarType f32 = ScalarType::Float32, f64 = ScalarType::Float64;
  // a [0, 1], b [1, 2], c [2, 3] (f64), d [3, 4], e [3, 5]: b overlaps a at
  // step 1; c is of another type; d takes a's memory (free after 1); e
  // finds a's taken by d and b's free after 2 < 3.
  EXPECT_EQ(plan::share_memories({BufferLifetime{f32, 0, 1}, BufferLifetime{f32, 1, 2},
                                  BufferLifetime{f64, 2, 3}, BufferLifetime{f32, 3, 4},
                                  BufferLifetime{f32, 3, 5}}),
            (std::vector<int>{0, 1, 2, 0, 1}));
  // A buffer live to the end keeps its memory from everything after it.
  EXPECT_EQ(plan::share_memories(
                {BufferLifetime{f32, 0, 9}, BufferLifetime{f32, 1, 1}, BufferLifetime{f32, 2, 2}}),
            (std::vector<int>{0, 1, 1}));
  EXPECT_TRUE(plan::share_memories({}).empty());
}

TEST(Passes, ShareScratchpadsGivesLifetimesApartOneMemory) {
  // s1 is dead once s2 is computed, s2 once s3 is: s1 and s3 (both float32)
  // take turns in one per-thread buffer; s2 (float64) keeps its own, as
  // does every buffer where lifetimes overlap.
  const Pipeline chain = testing_support::stencil_chain();
  const Schedule fused = apps::fuse_all_stages(chain, {32, 64}, 1, "test: one group");
  const std::string hoisted = explain_lowered(chain, fused, "hoist_scratchpads");
  EXPECT_THAT(hoisted, Not(HasSubstr("in the memory of")));
  const std::string ir = explain_lowered(chain, fused, "share_scratchpads");
  EXPECT_THAT(ir, HasSubstr("allocate shared_s1: float32["));
  EXPECT_THAT(ir, HasSubstr("] origin (0) per thread holds s1, s3\n"));
  EXPECT_THAT(ir, HasSubstr("reuse in the memory of shared_s1\n    allocate s2"));
  EXPECT_THAT(ir,
              testing::ContainsRegex("allocate s3: float32.* reuse in the memory of shared_s1"));
  EXPECT_THAT(ir, testing::ContainsRegex("allocate s2: float64.* reuse\n"));
  // a is read by c after b is computed, b by d: nothing is dead in time.
  const Pipeline diamond = testing_support::stencil_diamond();
  EXPECT_THAT(explain_lowered(diamond, apps::fuse_all_stages(diamond, {32, 64}, 1, "test"),
                              "share_scratchpads"),
              Not(HasSubstr("in the memory of")));
}

TEST(Passes, ClampIndicesClampsDataDependentReads) {
  Param N("N");
  Var x("x");
  Image img("img", ScalarType::UInt8, {N});
  Func lut("lut", ScalarType::Float32, {x}, {{0, 255}});
  lut.define(cast<float>(x) * 0.5f);
  Func out("out", ScalarType::Float32, {x}, {{0, N - 1}});
  out.define(lut(cast<int>(img(x))));
  const Pipeline p({out}, "lookup");
  EXPECT_THAT(explain_lowered(p, Schedule::naive(p), "copy_out"), HasSubstr("lut(int32(img(x)))"));
  EXPECT_THAT(explain_lowered(p, Schedule::naive(p), "clamp_indices"),
              HasSubstr("lut(min(max(int64(int32(img(x))), 0), 255))"));
}

TEST(Passes, ValidateChecksScopes) {
  EXPECT_NO_THROW(blur_after("validate"));
  EXPECT_EQ(lowering_passes().back(), "validate");
  EXPECT_EQ(lowering_passes().size(), 17u);
}

// Case and parity partitioning on every app, under its naive and its
// hand-written schedule: no case is left as a test of the loop variables'
// box (a select on coordinates alone) where its boundaries are ordered, and
// no coarse loop of a parity split evaluates a test of its own variable.
// The selects on coordinates (box tests) left in the values a module stores.
int box_test_selects(const lower::Module& m) {
  int box_tests = 0;
  // A box test: comparisons and logic of coordinates, parameters and
  // integer constants (no modulo, no float, no memory).
  struct Count : lower::StmtVisitor {
    int* tests;
    static bool box_test(const Expr& cond) {
      bool box = true;
      ir::for_each_node(cond, [&](const Expr& c) {
        if (c.as<ir::VarRef>() || c.as<ir::ParamRef>() || c.as<ir::IntConst>() || c.as<ir::Cast>())
          return;
        const auto* b = c.as<ir::Binary>();
        box = box && b &&
              (ir::is_comparison(b->op) || b->op == ir::BinaryOp::And ||
               b->op == ir::BinaryOp::Or || b->op == ir::BinaryOp::Add ||
               b->op == ir::BinaryOp::Sub || b->op == ir::BinaryOp::Mul);
      });
      return box;
    }
    // In the values stored (the lets of a tile, e.g. which tile owns a
    // stage, are evaluated once per tile, not per point). Not in a
    // reduction's updates (a store that reads its own target): their loops
    // are not partitioned, and a boundary condition read there keeps a test
    // of the outer reduction variables, which the compiler hoists.
    void visit_node(const lower::Store* n, const lower::Stmt&) override {
      bool update = false;
      ir::for_each_node(n->value, [&](const Expr& e) {
        if (const auto* a = e.as<ir::Access>(); a && a->func && a->func->name() == n->buffer)
          update = true;
      });
      if (update) return;
      ir::for_each_node(n->value, [&](const Expr& e) {
        if (const auto* sel = e.as<ir::Select>(); sel && box_test(sel->cond)) ++*tests;
      });
    }
  } count;
  count.tests = &box_tests;
  count.visit(m.body);
  return box_tests;
}

TEST(Passes, EveryAppIsPartitioned) {
  for (const apps::App& app : apps::all_apps()) {
    const Pipeline p = app.build();
    for (const Schedule& s : {Schedule::naive(p), app.manual_schedule(p)}) {
      const int box_tests = box_test_selects(lower::lower(p, s));
      EXPECT_EQ(box_tests, 0) << app.name << ": " << box_tests
                              << " selects on coordinates are left";
    }
  }
}

// A boundary condition inlined into a stencil that reads it at several
// offsets: the reader is split on every tap's box, so the interior piece reads
// every tap directly, with no select and no clamp. (Selects may remain in
// pieces one point wide, which only a 1-point-wide image makes real.)
TEST(Passes, BoundaryConditionInlinedIntoAStencilIsPartitioned) {
  Param R("R"), C("C");
  Var x("x"), y("y");
  Image img("img", ScalarType::Float32, {R, C});
  Func edge = boundary::repeat_edge(img, {1, 1});
  Func blurx("blurx", ScalarType::Float32, {x, y}, {{0, R - 1}, {-1, C}});
  blurx.define((edge(x - 1, y) + edge(x, y) + edge(x + 1, y)) / 3.0f);
  Func blury("blury", ScalarType::Float32, {x, y}, {{0, R - 1}, {0, C - 1}});
  blury.define((blurx(x, y - 1) + blurx(x, y) + blurx(x, y + 1)) / 3.0f);
  Func box("box", ScalarType::Float32, {x, y}, {{0, R - 1}, {0, C - 1}});
  Expr sum = 0.0f;
  std::string interior = "box(x, y) = (0.0f";
  // x - 1, x, x + 1: indices are printed in their sum form.
  const auto offset = [](const std::string& v, int d) {
    return d == 0 ? v : v + (d < 0 ? " - " : " + ") + std::to_string(std::abs(d));
  };
  for (int dx = -1; dx <= 1; ++dx) {
    for (int dy = -1; dy <= 1; ++dy) {
      sum = sum + edge(x + dx, y + dy);
      interior += " + img(" + offset("x", dx) + ", " + offset("y", dy) + ")";
    }
  }
  box.define(sum / 9.0f);
  interior += ") / 9.0f\n";
  const auto lowered = [&](const Func& out) {
    const Pipeline p({out}, out.name());
    Schedule s = apps::fuse_all_stages(p, {32, 256}, 2, "test: the boundary inlined");
    s.storage[edge.name()] = Storage::Inlined;
    return explain_lowered(p, s, "");
  };
  EXPECT_THAT(lowered(blury),
              HasSubstr("blurx(x, y) = (img(x - 1, y) + img(x, y) + img(x + 1, y)) / 3.0f\n"));
  EXPECT_THAT(lowered(box), HasSubstr(interior));
}

// The same for a read at a stride (down-sampling): the reader's interior
// piece, where every tap lies in the image, reads the image directly.
TEST(Passes, BoundaryConditionReadAtAStrideIsPartitioned) {
  Param R("R"), C("C");
  Var x("x"), y("y");
  Image img("img", ScalarType::Float32, {R, C});
  Func edge = boundary::repeat_edge(img, {2, 0});
  Func down("down", ScalarType::Float32, {x, y}, {{0, R / 2 - 1}, {0, C - 1}});
  down.define(edge(2 * x - 2, y) + edge(2 * x, y) + edge(2 * x + 2, y));
  Pipeline p({down}, "down");
  p.set_range("R", 16, std::nullopt);
  Schedule s = apps::fuse_all_stages(p, {4, 256}, 2, "test: the boundary inlined");
  s.storage[edge.name()] = Storage::Inlined;
  const std::string lowered = explain_lowered(p, s, "");
  EXPECT_EQ(box_test_selects(lower::lower(p, s)), 0) << lowered;
  EXPECT_THAT(lowered,
              HasSubstr("down(x, y) = img(2 * x - 2, y) + img(2 * x, y) + img(2 * x + 2, y)\n"))
      << lowered;
}

} // namespace
} // namespace trapeze
