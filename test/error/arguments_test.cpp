// Run-time argument errors: the message names the stage, access, region,
// parameter or buffer, and says how to fix it.
#include "trapeze/dsl.h"
#include "trapeze/pipeline.h"
#include "trapeze/runtime.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>

namespace trapeze {
namespace {

using testing::AllOf;
using testing::HasSubstr;
using testing::Not;

// The message of the trapeze::Error that `fn` throws ("" if none).
std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no trapeze::Error was thrown";
  return "";
}

// The blur of DSL's header, with blury reading one row too far.
struct Blur {
  Param R{"R"}, C{"C"};
  Var x{"x"}, y{"y"};
  Image img{"img", ScalarType::Float32, {Expr(R) + 2, Expr(C) + 2}};
  Func blurx{"blurx", ScalarType::Float32, {x, y}, {{1, R}, {0, C}}};
  Func blury{"blury", ScalarType::Float32, {x, y}, {{1, R}, {1, C}}};
  Blur() {
    blurx.define((img(x - 1, y) + img(x, y) + img(x + 1, y)) / 3.0f);
    blury.define((blurx(x, y - 1) + blurx(x, y) + blurx(x, y + 1)) / 3.0f);
  }
};

TEST(Arguments, OutOfBoundsAffineAccessNamesStageAccessRegionAndDomain) {
  Blur b;
  const Pipeline p({b.blury}, "blur");
  const std::string msg = error_of([&] {
    (void)interpret(p, {{"R", 10}, {"C", 20}}, {{"img", Buffer(ScalarType::Float32, {12, 22})}});
  });
  EXPECT_THAT(msg,
              HasSubstr("out-of-bounds access: stage 'blury' (declared at arguments_test.cpp:"));
  EXPECT_THAT(msg, HasSubstr("reads blurx(x, y + 1) over x in [1, 10], y in [1, 20]"));
  EXPECT_THAT(msg, HasSubstr("which needs blurx at [1, 10] x [2, 21]"));
  EXPECT_THAT(msg, HasSubstr("but blurx's domain is [1, 10] x [0, 20]"));
  EXPECT_THAT(msg, HasSubstr("(dimension y: needs up to 21, domain ends at 20)"));
  EXPECT_THAT(msg, HasSubstr("enlarge the producer's domain"));
}

TEST(Arguments, OutOfBoundsInputReadBelowZero) {
  Var x("x");
  Image in("in", ScalarType::Int32, {8});
  Func f("f", ScalarType::Int32, {x}, {{0, 7}});
  f.define(in(x - 2) + in(x));
  const std::string msg = error_of([&] {
    check_arguments(Pipeline({f}), {}, {{"in", Buffer(ScalarType::Int32, {8})}},
                    {{"f", Buffer(ScalarType::Int32, {8})}});
  });
  EXPECT_THAT(msg, AllOf(HasSubstr("stage 'f'"), HasSubstr("reads in(x - 2) over x in [0, 7]"),
                         HasSubstr("needs in at [-2, 5]"), HasSubstr("in's domain is [0, 7]"),
                         HasSubstr("dimension 0: needs down to -2, domain starts at 0"),
                         HasSubstr("enlarge the producer's extents")));
}

TEST(Arguments, OffendingDimensionsAndUnboundedIndicesAreReported) {
  Var x("x");
  Func g("g", ScalarType::Int32, {x}, {{0, 9}});
  g.define(x);
  Func f("f", ScalarType::Int32, {x}, {{-2, 12}});
  // Both ends outside; and a product interval arithmetic cannot bound in int32.
  f.define(g(x) + g(x * 1000000000));
  const std::string msg = error_of([&] { (void)interpret(Pipeline({f}), {}, {}); });
  EXPECT_THAT(msg, AllOf(HasSubstr("reads g(x) over x in [-2, 12]"),
                         HasSubstr("dimension x: needs down to -2, domain starts at 0 and needs up "
                                   "to 12, domain ends at 9")));
  Func h("h", ScalarType::Int32, {x}, {{0, 9}});
  h.define(g(x * 1000000000));
  EXPECT_THAT(error_of([&] { (void)interpret(Pipeline({h}), {}, {}); }),
              HasSubstr("the index x * 1000000000 could not be bounded"));
}

TEST(Arguments, CaseValuesAreCheckedOverTheirBox) {
  Var x("x");
  Func g("g", ScalarType::Int32, {x}, {{0, 9}});
  g.define(x);
  // Fine: g(x + 1) only where x <= 8.
  Func ok("ok", ScalarType::Int32, {x}, {{0, 9}});
  ok.define({Case(x <= 8, g(x + 1))}, Expr(0));
  EXPECT_NO_THROW((void)interpret(Pipeline({ok}), {}, {}));
  // Not fine: the box of the case is x in [0, 9], the residual does not count.
  Func bad("bad", ScalarType::Int32, {x}, {{0, 9}});
  bad.define({Case(x * 2 <= 16, g(x + 1))}, Expr(0));
  const std::string msg = error_of([&] { (void)interpret(Pipeline({bad}), {}, {}); });
  EXPECT_THAT(msg, AllOf(HasSubstr("stage 'bad'"), HasSubstr("reads g(x + 1) over x in [0, 9]"),
                         HasSubstr("the value of case 1")));
}

TEST(Arguments, EmptyDomainNamesStageBoundsAndParameters) {
  Param R("R");
  Var x("x"), y("y");
  Func f("f", ScalarType::Float32, {x, y}, {{5, Expr(R) + 1}, {0, 9}});
  f.define(cast<float>(x + y));
  const std::string msg = error_of([&] { (void)interpret(Pipeline({f}), {{"R", 3}}, {}); });
  EXPECT_THAT(msg, AllOf(HasSubstr("empty domain: stage 'f' (declared at arguments_test.cpp:"),
                         HasSubstr("has domain [5, 4] x [0, 9] for R=3"),
                         HasSubstr("dimension x is empty")));
}

TEST(Arguments, EmptyReductionDomain) {
  Param N("N");
  Var x("x");
  RVar r("r", {0, Expr(N) - 1});
  Func s("s", ScalarType::Int32, {x}, {{0, 0}});
  s.define_reduction(Expr(0), {r}, {sum_into({Expr(0)}, Expr(1))});
  const std::string msg = error_of([&] { (void)interpret(Pipeline({s}), {{"N", 0}}, {}); });
  EXPECT_THAT(msg, AllOf(HasSubstr("empty reduction domain: stage 's'"),
                         HasSubstr("r in [0, -1] for N=0")));
}

TEST(Arguments, MissingParameterIsNamed) {
  Blur b;
  const std::string msg = error_of([&] {
    (void)interpret(Pipeline({b.blury}, "blur"), {{"R", 10}},
                    {{"img", Buffer(ScalarType::Float32, {12, 22})}});
  });
  EXPECT_THAT(msg, AllOf(HasSubstr("parameter 'C'"), HasSubstr("has no value")));
}

// A pipeline whose only stage reads a [3][R+4][C+4] float input, in bounds.
struct Planar {
  Param R{"R"}, C{"C"};
  Var c{"c"}, x{"x"}, y{"y"};
  Image img{"img", ScalarType::Float32, {3, Expr(R) + 4, Expr(C) + 4}};
  Func out{"out", ScalarType::Float32, {c, x, y}, {{0, 2}, {2, Expr(R) + 1}, {2, Expr(C) + 1}}};
  Planar() { out.define(img(c, x, y) * 2.0f); }
};

TEST(Arguments, InputOfTheWrongType) {
  Planar pl;
  const std::string msg = error_of([&] {
    (void)interpret(Pipeline({pl.out}), {{"R", 64}, {"C", 80}},
                    {{"img", Buffer(ScalarType::UInt8, {3, 68, 84})}});
  });
  EXPECT_THAT(msg, HasSubstr("input 'img' must be float32[3][68][84] for R=64, C=80, but the given "
                             "buffer is uint8[3][68][84]"));
}

TEST(Arguments, InputOfTheWrongExtents) {
  Planar pl;
  const std::string msg = error_of([&] {
    (void)interpret(Pipeline({pl.out}), {{"R", 64}, {"C", 80}},
                    {{"img", Buffer(ScalarType::Float32, {3, 84, 68})}});
  });
  EXPECT_THAT(msg, HasSubstr("input 'img' must be float32[3][68][84] for R=64, C=80, but the given "
                             "buffer is float32[3][84][68]"));
}

TEST(Arguments, MissingInputBuffer) {
  Planar pl;
  const std::string msg = error_of([&] {
    (void)interpret(Pipeline({pl.out}), {{"R", 64}, {"C", 80}}, {});
  });
  EXPECT_THAT(msg, AllOf(HasSubstr("missing input buffer: input 'img' (declared at"),
                         HasSubstr("pass a float32[3][68][84] buffer named 'img'")));
}

TEST(Arguments, UnknownBufferNamesAreRejected) {
  Planar pl;
  const Pipeline p({pl.out}, "planar");
  const ParamValues params{{"R", 4}, {"C", 4}};
  const BufferMap inputs{{"img", Buffer(ScalarType::Float32, {3, 8, 8})},
                         {"mask", Buffer(ScalarType::Float32, {8, 8})}};
  const std::string msg = error_of([&] { (void)interpret(p, params, inputs); });
  EXPECT_THAT(msg,
              AllOf(HasSubstr("unknown input buffer 'mask'"), HasSubstr("its inputs are 'img'")));
}

TEST(Arguments, OutputsAreCheckedLikeInputs) {
  Planar pl;
  const Pipeline p({pl.out}, "planar");
  const ParamValues params{{"R", 4}, {"C", 5}};
  const BufferMap inputs{{"img", Buffer(ScalarType::Float32, {3, 8, 9})}};
  EXPECT_NO_THROW(check_arguments(p, params, inputs, allocate_outputs(p, params)));
  EXPECT_THAT(
      error_of([&] {
        check_arguments(p, params, inputs, {{"out", Buffer(ScalarType::Float32, {3, 5, 4})}});
      }),
      HasSubstr("output 'out' must be float32[3][4][5] for R=4, C=5, but the given buffer "
                "is float32[3][5][4]"));
  EXPECT_THAT(error_of([&] { check_arguments(p, params, inputs, {}); }),
              HasSubstr("missing output buffer: output stage 'out'"));
}

TEST(Arguments, EmptyInputExtent) {
  Param N("N");
  Var x("x");
  Image in("in", ScalarType::Int32, {N});
  Func f("f", ScalarType::Int32, {x}, {{0, 0}});
  f.define(in(0));
  const std::string msg = error_of([&] {
    (void)interpret(Pipeline({f}), {{"N", 0}}, {{"in", Buffer(ScalarType::Int32, {0})}});
  });
  EXPECT_THAT(msg, AllOf(HasSubstr("empty input: input 'in'"),
                         HasSubstr("int32[N] has extents [0] for N=0")));
}

// Sizes are checked before anything is allocated or run (issue 13): a
// negative extent names the input's declaration, a bound beyond the index
// range names the stage and dimension, and an overflow names the expression.
TEST(Arguments, SizesAreCheckedBeforeAnythingRuns) {
  Param R("R"), N("N");
  Var x("x"), y("y");
  Image img("img", ScalarType::Float32, {Expr(R) - 100});
  Func a("a", ScalarType::Float32, {x}, {{0, Expr(R) - 101}});
  a.define(img(x));
  const Pipeline p({a});
  EXPECT_THAT(error_of([&] {
                check_sizes(p, {{"R", 32}});
              }),
              AllOf(HasSubstr("input 'img'"), HasSubstr("float32[R - 100] has extents [-68]"),
                    HasSubstr("for R=32")));
  EXPECT_THAT(error_of([&] {
                (void)interpret(p, {{"R", 32}}, {});
              }),
              HasSubstr("float32[R - 100] has extents [-68]"));
  EXPECT_THAT(error_of([&] {
                check_sizes(p, {{"R", INT64_MIN}});
              }),
              AllOf(HasSubstr("integer overflow: R - 100"), HasSubstr("for R=-9223372036854775808"),
                    Not(HasSubstr("integer overflow: R - 101"))));
  EXPECT_THAT(error_of([&] {
                check_sizes(p, {{"R", std::int64_t{1} << 40}});
              }),
              AllOf(HasSubstr("input 'img'"), HasSubstr("extent 0 is beyond 1073741824")));

  // 11 points near 2^31: the generated code's 32-bit loops would wrap.
  Func far("far", ScalarType::Float32, {x}, {{N, Expr(N) + 10}});
  far.define(cast<float>(x));
  EXPECT_THAT(error_of([&] {
                (void)allocate_outputs(Pipeline({far}), {{"N", 2147483640}});
              }),
              AllOf(HasSubstr("stage 'far'"), HasSubstr("has domain [2147483640, 2147483650]"),
                    HasSubstr("for N=2147483640"),
                    HasSubstr("dimension x leaves the index range "
                              "[-1073741824, 1073741824]")));
  // Each extent in range, the whole box beyond any buffer.
  Var z("z"), w("w");
  Func big("big", ScalarType::Float64, {x, y, z, w}, {{0, N}, {0, N}, {0, N}, {0, N}});
  big.define(cast<double>(x));
  EXPECT_THAT(error_of([&] {
                check_sizes(Pipeline({big}), {{"N", 1 << 20}});
              }),
              AllOf(HasSubstr("stage 'big'"), HasSubstr("1048577 x 1048577 x 1048577 x 1048577"),
                    HasSubstr("float64 make more than 72057594037927936 bytes")));
}

TEST(Arguments, AllocationFailuresNameTheStage) {
  Param N("N");
  Var x("x"), y("y");
  Func huge("huge", ScalarType::Float32, {x, y}, {{0, N}, {0, N}});
  huge.define(cast<float>(x));
  // 4 PiB: within the limits, beyond any machine's address space (so even
  // with overcommit nothing is mapped).
  EXPECT_THAT(error_of([&] {
                (void)allocate_outputs(Pipeline({huge}), {{"N", 1 << 25}});
              }),
              AllOf(HasSubstr("stage 'huge'"), HasSubstr("on [0, 33554432] x [0, 33554432]"),
                    HasSubstr("out of memory: cannot allocate 4503599895806016 bytes")));
}

} // namespace
} // namespace trapeze
