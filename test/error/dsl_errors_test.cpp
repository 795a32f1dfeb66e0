// Errors raised while a pipeline is written or assembled (message text checked).
#include "error/error_matchers.h"
#include "trapeze/dsl.h"
#include "trapeze/pipeline.h"

namespace trapeze {
namespace {

struct Blur {
  Param R{"R"}, C{"C"};
  Var x{"x"}, y{"y"};
  Image img{"img", ScalarType::Float32, {R + 2, C + 2}};
};

TEST(DslErrors, CycleBetweenTwoStages) {
  Blur b;
  Func f("f", ScalarType::Float32, {b.x, b.y}, {{1, b.R}, {1, b.C}});
  Func g("g", ScalarType::Float32, {b.x, b.y}, {{1, b.R}, {1, b.C}});
  f.define(g(b.x, b.y) + 1.0f);
  EXPECT_TRAPEZE_ERROR(g.define(f(b.x, b.y) * 2.0f), "cycle", "'g'", "g -> f -> g",
                       "dsl_errors_test.cpp");
  // The failed definition is rolled back: g can still be defined correctly.
  EXPECT_NO_THROW(g.define(b.img(b.x, b.y)));
}

TEST(DslErrors, StageReadingItself) {
  Blur b;
  Func f("f", ScalarType::Float32, {b.x, b.y}, {{1, b.R}, {1, b.C}});
  EXPECT_TRAPEZE_ERROR(f.define(f(b.x - 1, b.y)), "cycle", "'f'", "f -> f");
}

TEST(DslErrors, StageUsedButNeverDefined) {
  Blur b;
  Func f("f", ScalarType::Float32, {b.x, b.y}, {{1, b.R}, {1, b.C}});
  Func g("g", ScalarType::Float32, {b.x, b.y}, {{1, b.R}, {1, b.C}});
  g.define(f(b.x, b.y));
  EXPECT_TRAPEZE_ERROR(Pipeline({g}), "'f'", "used but never defined", "read by stage 'g'",
                       "declared at dsl_errors_test.cpp");
}

TEST(DslErrors, WrongNumberOfArguments) {
  Blur b;
  Var c("c");
  Func f("f", ScalarType::Float32, {c, b.x, b.y}, {{0, 2}, {1, b.R}, {1, b.C}});
  EXPECT_TRAPEZE_ERROR((void)f(b.x, b.y), "wrong number of arguments", "'f'",
                       "3 dimensions (c, x, y)", "f(x, y)", "with 2");
  EXPECT_TRAPEZE_ERROR((void)b.img(b.x), "wrong number of arguments", "input 'img'",
                       "2 dimensions");
}

TEST(DslErrors, MismatchedTypesAcrossCases) {
  Blur b;
  Func f("f", ScalarType::Float32, {b.x, b.y}, {{0, b.R + 1}, {0, b.C + 1}});
  EXPECT_TRAPEZE_ERROR(f.define({Case(b.x.in(1, b.R), b.img(b.x, b.y)),
                                 Case(b.y.in(1, b.C), cast<int>(b.img(b.x, b.y)))},
                                0.0f),
                       "mismatched types", "case 2", "'f'", "int32", "float32");
}

TEST(DslErrors, ConstantsConvertToTheStageType) {
  Blur b;
  Func f("f", ScalarType::Float32, {b.x, b.y}, {{0, b.R + 1}, {0, b.C + 1}});
  EXPECT_NO_THROW(f.define({Case(b.x.in(1, b.R), b.img(b.x, b.y))}, 0));
}

TEST(DslErrors, ConstantDivisionByZero) {
  Blur b;
  EXPECT_TRAPEZE_ERROR((void)(b.x / 0), "division by a constant zero", "x / 0");
  EXPECT_TRAPEZE_ERROR((void)trunc_mod(b.x, 0), "division by a constant zero");
}

TEST(DslErrors, DefinedTwice) {
  Blur b;
  Func f("f", ScalarType::Float32, {b.x, b.y}, {{1, b.R}, {1, b.C}});
  f.define(b.img(b.x, b.y));
  EXPECT_TRAPEZE_ERROR(f.define(b.img(b.x, b.y)), "defined twice", "'f'");
}

TEST(DslErrors, UnknownVariableInDefinition) {
  Blur b;
  Var z("z");
  Func f("f", ScalarType::Float32, {b.x, b.y}, {{1, b.R}, {1, b.C}});
  EXPECT_TRAPEZE_ERROR(f.define(b.img(b.x, z)), "'f'", "variable 'z'", "(x, y)");
}

TEST(DslErrors, FloatIndex) {
  Blur b;
  EXPECT_TRAPEZE_ERROR((void)b.img(b.x, cast<float>(b.y)), "index 1", "float32",
                       "must be an integer");
}

TEST(DslErrors, DomainBoundThatIsNotAParameterExpression) {
  Blur b;
  EXPECT_TRAPEZE_ERROR(Func("f", ScalarType::Float32, {b.x}, {{0, b.y}}), "upper bound",
                       "variable 'y'");
  EXPECT_TRAPEZE_ERROR(Func("f", ScalarType::Float32, {b.x, b.y}, {{0, b.R}}),
                       "2 variables but 1 domain interval;");
}

TEST(DslErrors, DuplicateStageNames) {
  Blur b;
  Func f1("f", ScalarType::Float32, {b.x, b.y}, {{1, b.R}, {1, b.C}});
  f1.define(b.img(b.x, b.y));
  Func f2("f", ScalarType::Float32, {b.x, b.y}, {{1, b.R}, {1, b.C}});
  f2.define(f1(b.x, b.y));
  EXPECT_TRAPEZE_ERROR(Pipeline({f2}), "two different stages or inputs named 'f'");
}

TEST(DslErrors, MissingParameterValue) {
  Blur b;
  Func f("f", ScalarType::Float32, {b.x, b.y}, {{1, b.R}, {1, b.C}});
  f.define(b.img(b.x, b.y));
  Pipeline p({f});
  EXPECT_TRAPEZE_ERROR((void)p.bind({{"R", 4}}), "parameter 'C'", "has no value");
  EXPECT_TRAPEZE_ERROR((void)p.bind({{"R", 4}, {"C", 4}, {"Q", 1}}), "no parameter named 'Q'");
}

} // namespace
} // namespace trapeze
