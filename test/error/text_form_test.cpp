// Malformed pipeline text forms: each error names FILE:LINE:COLUMN and what is
// wrong, and no input makes the parser crash.
#include "trapeze/error.h"
#include "trapeze/text_form.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace trapeze {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// The message of the error parsing `text` raises (a test failure if none).
std::string error_of(const std::string& text) {
  try {
    (void)parse_pipeline(text, "bug.trapeze");
  } catch (const Error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for:\n" << text;
  return {};
}

const std::string header = "param N: int64\n"            // line 1
                           "input img: float32[N][N]\n"; // line 2

TEST(TextFormErrors, UnexpectedToken) {
  EXPECT_EQ(
      error_of(header + "stage f(x, y) on [0, N - 1] x [0, N - 1]\n  = img(x, y)\noutput f\n"),
      "bug.trapeze:3:15: expected ':' after the stage's variables, found 'on'");
  EXPECT_EQ(error_of(header + "stage f(x): float32 on [0, N - 1]\n  = img(x, ) + 1\noutput f\n"),
            "bug.trapeze:4:12: expected an expression, found ')'");
  EXPECT_EQ(error_of(header + "stage f(x): float32 on [0, N - 1]\n  = (img(x, 0) + 1\noutput f\n"),
            "bug.trapeze:5:1: expected ')' to close the '(' at line 4, column 5, found 'output'");
  EXPECT_EQ(error_of(header + "stage f(x): float32 on [0, N - 1]\n  = img(x, 0) 1\noutput f\n"),
            "bug.trapeze:4:15: expected a statement ('pipeline', 'param', 'input', 'stage' or "
            "'output'), found '1'");
  EXPECT_EQ(error_of(header + "stage f(x): float32 on [0, N - 1]\noutput f\n"),
            "bug.trapeze:4:1: expected the definition of stage 'f' ('= VALUE', 'case', 'default' "
            "or 'init'), found 'output'");
  EXPECT_EQ(error_of(header + "stage f(x): float32 on [0, N - 1]\n  case x > 0: 1.0f\noutput f\n"),
            "bug.trapeze:5:1: expected 'default: VALUE' after the cases of stage 'f' (the value "
            "of the points no case covers), found 'output'");
  EXPECT_EQ(error_of("stage f(x): int32 on [0, 9]\n  init: 0\n  reduce over r in [0, 9]:\n"
                     "    f(r) *= 1\noutput f\n"),
            "bug.trapeze:4:10: expected '+=', 'min=' or 'max=' after the target of an update, "
            "found '*'");
}

TEST(TextFormErrors, BadCharactersAndLiterals) {
  EXPECT_EQ(error_of("stage f(x): int32 on [0, 9] = x $ 2\noutput f"),
            "bug.trapeze:1:33: unexpected character '$'");
  EXPECT_EQ(error_of("stage f(x): int32 on [0, 9] = 2x\noutput f"),
            "bug.trapeze:1:32: unexpected character 'x' after the number '2'");
  EXPECT_EQ(error_of("stage f(x): int64 on [0, 9] = 3000000000\noutput f"),
            "bug.trapeze:1:31: the integer 3000000000 does not fit in int32; write "
            "int64(3000000000) for a 64-bit constant");
  EXPECT_EQ(error_of("stage f(x): int64 on [0, 9] = int64(9223372036854775808)\noutput f"),
            "bug.trapeze:1:37: the integer 9223372036854775808 does not fit in int64");
  EXPECT_EQ(error_of("pipeline \"abc\nstage"),
            "bug.trapeze:1:10: the string that starts here has no closing '\"'");
}

TEST(TextFormErrors, UnknownName) {
  EXPECT_EQ(error_of(header + "stage f(x, y): float32 on [0, N - 1] x [0, N - 1]\n"
                              "  = img(x, y) * z\noutput f\n"),
            "bug.trapeze:4:17: unknown name 'z': it is neither a variable of stage 'f' (x, y) nor "
            "a declared parameter");
  EXPECT_EQ(error_of("stage f(x): int32 on [0, M] = x\noutput f"),
            "bug.trapeze:1:26: unknown name 'M': a bound of the domain of stage 'f' may use only "
            "declared parameters and constants");
  EXPECT_THAT(error_of("stage f(x): int32 on [0, 9]\n  init: 0\n  reduce over r in [0, 9]:\n"
                       "    f(r) += x\noutput f\n"),
              StartsWith("bug.trapeze:4:13: unknown name 'x': it is neither a reduction variable "
                         "of stage 'f' (r) nor a declared parameter"));
  EXPECT_EQ(error_of(header + "stage f(x): float32 on [0, 9] = img + 1.0f\noutput f\n"),
            "bug.trapeze:3:33: 'img' is an input: read it at a point, e.g. img(...)");
  EXPECT_EQ(error_of(header + "stage f(x): float32 on [0, 9] = x(1)\noutput f\n"),
            "bug.trapeze:3:33: 'x' is a variable, not a stage or an input, so it cannot be read "
            "with '('");
}

TEST(TextFormErrors, UndefinedStageUsed) {
  EXPECT_EQ(error_of(header + "stage f(x, y): float32 on [0, N - 1] x [0, N - 1]\n"
                              "  = blurx(x, y)\noutput f\n"),
            "bug.trapeze:4:5: unknown stage or input 'blurx': declare it with 'stage blurx(...)' "
            "or 'input blurx: TYPE[...]'");
  EXPECT_EQ(error_of(header + "stage f(x): float32 on [0, 9] = 1.0f\noutput g\n"),
            "bug.trapeze:4:8: unknown stage 'g' in the 'output' line");
  EXPECT_EQ(error_of(header + "stage f(x): float32 on [0, 9] = 1.0f\noutput img\n"),
            "bug.trapeze:4:8: 'img' is an input; only a stage can be an output");
}

TEST(TextFormErrors, WrongNumberOfArguments) {
  EXPECT_THAT(error_of(header + "stage f(x): float32 on [0, N - 1]\n  = img(x)\noutput f\n"),
              StartsWith("bug.trapeze:4:5: wrong number of arguments: input 'img' (declared at "
                         "bug.trapeze:2) has 2 dimensions but is accessed as img(x) with 1"));
  EXPECT_EQ(error_of(header + "stage f(x): float32 on [0, 9] = abs(1.0f, 2.0f)\noutput f\n"),
            "bug.trapeze:3:33: wrong number of arguments: 'abs' takes 1 argument, found 2");
  EXPECT_EQ(error_of("stage f(x): int32 on [0, 9] = select(x > 1, 2)\noutput f"),
            "bug.trapeze:1:31: wrong number of arguments: 'select' takes 3 arguments, found 2");
  EXPECT_EQ(error_of("stage f(x): int32 on [0, 9]\n  init: 0\n  reduce over r in [0, 9]:\n"
                     "    f(r, r) += 1\noutput f\n"),
            "bug.trapeze:4:5: wrong number of arguments: the target of an update of stage 'f' has "
            "2 indices but the stage has 1 dimension (x)");
}

TEST(TextFormErrors, TypeMismatchAcrossCases) {
  EXPECT_THAT(error_of(header + "stage f(x, y): float32 on [0, N - 1] x [0, N - 1]\n"
                                "  case x == 0: img(x, y)\n"
                                "  case x == 1: float64(img(x, y)) * 0.5\n"
                                "  default: 0.0f\noutput f\n"),
              StartsWith("bug.trapeze:5:16: mismatched types: the value of case 2 of stage 'f' is "
                         "float64 (float64(img(x, y)) * 0.5) but the stage is float32"));
  EXPECT_THAT(error_of("stage f(x): int32 on [0, 9]\n  case x: 1\n  default: 0\noutput f\n"),
              StartsWith("bug.trapeze:2:8: the condition of case 1 of stage 'f' is int32 (x); a "
                         "condition must be bool"));
  // Type errors of the DSL's factories carry the position of the operator.
  EXPECT_THAT(error_of("stage f(x): bool on [0, 9] = x && true\noutput f"),
              StartsWith("bug.trapeze:1:32: '&&' needs bool operands"));
  EXPECT_THAT(error_of("stage f(x): int32 on [0, 9] = trunc_div(x, 0.5f)\noutput f"),
              StartsWith("bug.trapeze:1:31: 'trunc_div' needs integer operands"));
  EXPECT_THAT(error_of("stage f(x): int32 on [0, 9] = x / 0\noutput f"),
              StartsWith("bug.trapeze:1:33: division by a constant zero"));
  EXPECT_THAT(error_of(header + "stage f(x): float32 on [0, 9] = img(x, 0.5f)\noutput f\n"),
              StartsWith("bug.trapeze:3:33: index 1 of the access img(x, 0.5f) is float32"));
}

TEST(TextFormErrors, Cycle) {
  EXPECT_THAT(error_of("stage a(x): int32 on [0, 9]\n  = b(x) + 1\n"
                       "stage b(x): int32 on [0, 9]\n  = a(x) * 2\noutput b\n"),
              StartsWith("bug.trapeze:4:3: cycle: stage 'b' (declared at bug.trapeze:3) (defined "
                         "at bug.trapeze:4) reads itself through b -> a -> b"));
  EXPECT_THAT(error_of("stage a(x): int32 on [0, 9] = a(x)\noutput a\n"),
              StartsWith("bug.trapeze:1:29: cycle: stage 'a'"));
}

// A long cycle lists its first 8 stages and counts the rest (a cycle of 4,000
// stages was one line of 35 KB before issue 13).
TEST(TextFormErrors, LongCycleListsItsFirstStagesAndCountsTheRest) {
  std::string text;
  for (int i = 0; i < 1000; ++i)
    text += "stage s" + std::to_string(i) + "(x): int32 on [0, 9] = s" +
            std::to_string(i == 0 ? 999 : i - 1) + "(x) + 1\n";
  const std::string message = error_of(text + "output s999\n");
  EXPECT_EQ(message, "bug.trapeze:1000:32: cycle: stage 's999' (declared at bug.trapeze:1000) "
                     "(defined at bug.trapeze:1000) reads itself through a cycle of 1000 stages: "
                     "s999 -> s998 -> s997 -> s996 -> s995 -> s994 -> s993 -> s992 -> ... and 992 "
                     "more -> s999; a pipeline is a DAG of stages (use a reduction to accumulate)");
  // Eight stages or fewer are all listed.
  text.clear();
  for (int i = 0; i < 8; ++i)
    text += "stage s" + std::to_string(i) + "(x): int32 on [0, 9] = s" +
            std::to_string(i == 0 ? 7 : i - 1) + "(x) + 1\n";
  EXPECT_THAT(
      error_of(text + "output s7\n"),
      HasSubstr("reads itself through s7 -> s6 -> s5 -> s4 -> s3 -> s2 -> s1 -> s0 -> s7; "));
}

// A float literal that its type would turn into infinity or 0 is an error
// naming the literal, not another number (1e39f was infinity before issue 13).
TEST(TextFormErrors, FloatLiteralsOutOfTheirTypesRange) {
  const auto stage = [](const std::string& value) {
    return error_of("stage f(x): float32 on [0, 9] = float32(x) * " + value + "\noutput f\n");
  };
  EXPECT_EQ(stage("1e39f"),
            "bug.trapeze:1:46: the number 1e39f is out of the range of float32 (largest finite "
            "magnitude about 3.4e38, smallest nonzero about 1.4e-45): it would be infinity (write "
            "inf_f32 for infinity)");
  EXPECT_EQ(stage("3.4028236e38f"),
            "bug.trapeze:1:46: the number 3.4028236e38f is out of the range of float32 (largest "
            "finite magnitude about 3.4e38, smallest nonzero about 1.4e-45): it would be infinity "
            "(write inf_f32 for infinity)");
  EXPECT_EQ(stage("1e-50f"),
            "bug.trapeze:1:46: the number 1e-50f is out of the range of float32 (largest finite "
            "magnitude about 3.4e38, smallest nonzero about 1.4e-45): it would be 0 (write 0.0f "
            "for 0)");
  EXPECT_EQ(stage("1e999f"),
            "bug.trapeze:1:46: the number 1e999f is out of the range of float32 (largest finite "
            "magnitude about 3.4e38, smallest nonzero about 1.4e-45)");
  EXPECT_EQ(error_of("stage f(x): float64 on [0, 9] = float64(x) * 1e999\noutput f\n"),
            "bug.trapeze:1:46: the number 1e999 is out of the range of float64 (largest finite "
            "magnitude about 1.8e308, smallest nonzero about 4.9e-324)");
  EXPECT_EQ(error_of("stage f(x): float64 on [0, 9] = float64(x) * 1e-400\noutput f\n"),
            "bug.trapeze:1:46: the number 1e-400 is out of the range of float64 (largest finite "
            "magnitude about 1.8e308, smallest nonzero about 4.9e-324)");
  EXPECT_THAT(error_of("param w: float32 = -1e39\nstage f(x): float32 on [0, 9] = w\noutput f\n"),
              StartsWith("bug.trapeze:1:21: the number -1e39 is out of the range of float32"));
  // The extremes of float32 and float64 are values.
  for (const char* value : {"3.4028235e38f", "1.4e-45f", "0.0f", "1e-45f"})
    EXPECT_NO_THROW(parse_pipeline("stage f(x): float32 on [0, 9] = float32(x) * " +
                                       std::string(value) + "\noutput f\n",
                                   "ok.trapeze"))
        << value;
  for (const char* value : {"1.7976931348623157e308", "4.9e-324", "1e308"})
    EXPECT_NO_THROW(parse_pipeline("stage f(x): float64 on [0, 9] = float64(x) * " +
                                       std::string(value) + "\noutput f\n",
                                   "ok.trapeze"))
        << value;
}

TEST(TextFormErrors, DuplicateNames) {
  EXPECT_EQ(error_of("stage f(x): int32 on [0, 9] = x\nstage f(y): int32 on [0, 9] = y\noutput f"),
            "bug.trapeze:2:7: duplicate name: 'f' is already declared at line 1, column 7; stages "
            "and inputs need distinct names");
  EXPECT_EQ(error_of(header + "stage img(x): int32 on [0, 9] = x\noutput img"),
            "bug.trapeze:3:7: duplicate name: 'img' is already declared at line 2, column 7; "
            "stages and inputs need distinct names");
  EXPECT_EQ(error_of(header + "param N: int64 = 3\n"),
            "bug.trapeze:3:7: parameter 'N' is declared twice (first at line 1)");
  EXPECT_EQ(error_of(header + "stage f(N): int32 on [0, 9] = N\noutput f"),
            "bug.trapeze:3:9: the variable 'N' has the name of the parameter declared at line 1; "
            "rename one of them");
  EXPECT_THAT(error_of("stage f(x, x): int32 on [0, 9] x [0, 9] = x\noutput f"),
              StartsWith("bug.trapeze:1:7: stage 'f' (declared at bug.trapeze:1) uses the "
                         "variable 'x' for two dimensions"));
  EXPECT_EQ(error_of("stage max(x): int32 on [0, 9] = x\noutput max"),
            "bug.trapeze:1:7: 'max' is a built-in function and cannot name a stage; rename it");
  EXPECT_EQ(error_of("pipeline a\npipeline b"),
            "bug.trapeze:2:1: the pipeline's name is given twice (first at line 1)");
}

TEST(TextFormErrors, BadBoundaryConditions) {
  EXPECT_EQ(error_of(header + "stage p = clamp_edge(img, [1, 1])\noutput p\n"),
            "bug.trapeze:3:11: unknown boundary condition 'clamp_edge'; the conditions are "
            "repeat_edge, repeat_image, mirror_image, mirror_interior and constant_exterior");
  EXPECT_EQ(error_of(header + "stage p = constant_exterior(img, [1, 1])\noutput p\n"),
            "bug.trapeze:3:34: constant_exterior needs the value of the points outside: "
            "constant_exterior(img, 0.0f, [1, 1])");
  EXPECT_EQ(error_of(header + "stage p = repeat_edge(img, 0, [1, 1])\noutput p\n"),
            "bug.trapeze:3:28: repeat_edge takes no value: repeat_edge(img, [1, 1])");
  EXPECT_EQ(error_of(header + "stage p = repeat_edge(q, [1])\n"
                              "stage q(x): float32 on [0, N - 1] = img(x, 0)\noutput p\n"),
            "bug.trapeze:3:23: unknown source 'q' of stage 'p': a boundary condition extends an "
            "input or a stage declared above it");
  EXPECT_THAT(error_of(header + "stage p = repeat_edge(img, [1])\noutput p\n"),
              StartsWith("bug.trapeze:3:7: boundary::repeat_edge of 'img': 1 margins for 2 "
                         "dimensions"));
  EXPECT_EQ(error_of(header + "stage p = repeat_edge(img, [1, y])\noutput p\n"),
            "bug.trapeze:3:32: unknown name 'y': a margin of stage 'p' may use only declared "
            "parameters and constants");
  EXPECT_EQ(error_of(header + "stage p = repeat_edge(img, 1, 1)\noutput p\n"),
            "bug.trapeze:3:31: expected '[' before the margins (one per dimension, e.g. [1, 1]; "
            "or none, to infer them), found '1'");
  // Without margins: the value is still checked, and margins no reader asks
  // for cannot be inferred.
  EXPECT_EQ(error_of(header + "stage p = repeat_edge(img, 0)\noutput p\n"),
            "bug.trapeze:3:28: repeat_edge takes no value: repeat_edge(img, [1, 1])");
  EXPECT_EQ(error_of(header + "stage p = constant_exterior(img)\noutput p\n"),
            "bug.trapeze:3:32: constant_exterior needs the value of the points outside: "
            "constant_exterior(img, 0.0f, [1, 1])");
  EXPECT_EQ(error_of(header + "stage p = repeat_edge(img, [1, 1]\noutput p\n"),
            "bug.trapeze:4:1: expected ')' after the boundary condition's margins, found 'output'");
  EXPECT_EQ(
      error_of(header + "stage p = repeat_edge(img)\noutput p\n"),
      "bug.trapeze:4:8: cannot infer the margins of boundary stage 'p' (declared at "
      "bug.trapeze:3): no stage of pipeline 'pipeline' reads it (it is an output); give them, "
      "one per dimension: repeat_edge(img, [M0, M1])");
  EXPECT_EQ(error_of(header + "stage p = repeat_edge(img)\n"
                              "stage f(x, y): float32 on [0, N - 1] x [0, 3] = p(x / 2, y)\n"
                              "output f\n"),
            "bug.trapeze:5:8: cannot infer the margins of boundary stage 'p' (declared at "
            "bug.trapeze:3): stage 'f' (declared at bug.trapeze:4) reads it at p(x / 2, y), whose "
            "index x / 2 is not a sum of the reader's variables times integers, parameters and "
            "constants; give them, one per dimension: repeat_edge(img, [M0, M1])");
}

TEST(TextFormErrors, BadTypeName) {
  EXPECT_EQ(error_of("stage f(x): float33 on [0, 9] = 1.0f\noutput f"),
            "bug.trapeze:1:13: unknown type 'float33'; the types are bool, uint8, uint16, int16, "
            "int32, int64, float32, float64");
  EXPECT_THAT(error_of("param R: int32\nstage f(x): int32 on [0, R] = x\noutput f"),
              StartsWith("bug.trapeze:1:10: parameter 'R' has type int32; a parameter is int64, "
                         "float32 or float64"));
  EXPECT_EQ(error_of("param R: int64 = 1.5\nstage f(x): int32 on [0, R] = x\noutput f"),
            "bug.trapeze:1:18: parameter 'R' is int64, so its default must be an integer, found "
            "'1.5'");
  EXPECT_THAT(error_of("param T: float32\nstage f(x): int32 on [0, T] = x\noutput f"),
              StartsWith("bug.trapeze:2:7: the upper bound of dimension x of stage 'f'"));
}

TEST(TextFormErrors, MissingOutputLine) {
  EXPECT_EQ(error_of(header + "stage f(x): float32 on [0, 9] = img(x, x)\n"),
            "bug.trapeze:4:1: missing 'output' line: name the stages the pipeline computes, e.g. "
            "'output f'");
  EXPECT_EQ(error_of(""), "bug.trapeze:1:1: missing 'output' line: name the stages the pipeline "
                          "computes, e.g. 'output result'");
}

TEST(TextFormErrors, UpdateMustWriteTheStage) {
  EXPECT_EQ(error_of("stage f(x): int32 on [0, 9]\n  init: 0\n  reduce over r in [0, 9]:\n"
                     "    g(r) += 1\noutput f\n"),
            "bug.trapeze:4:5: an update of stage 'f' must write 'f' itself, found 'g'");
}

TEST(TextFormErrors, ExpressionsTooDeepAreRejected) {
  const std::string deep(5000, '(');
  EXPECT_THAT(error_of("stage f(x): int32 on [0, 9] = " + deep + "x\noutput f"),
              HasSubstr("the expression is nested more than 256 levels deep"));
  std::string chain = "x";
  for (int i = 0; i < 3000; ++i)
    chain += " + x";
  EXPECT_THAT(error_of("stage f(x): int32 on [0, 9] = " + chain + "\noutput f"),
              HasSubstr("the expression is nested more than 256 levels deep"));
  EXPECT_THAT(error_of("stage f(x): int32 on [0, 9] = " + std::string(5000, '-') + "x\noutput f"),
              HasSubstr("the expression is nested more than 256 levels deep"));
}

TEST(TextFormErrors, MissingFile) {
  try {
    (void)load_pipeline("/nonexistent/pipeline.trapeze");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(),
                HasSubstr("cannot open the pipeline file '/nonexistent/pipeline.trapeze'"));
  }
}

// Every truncation and every one-character deletion of a valid file either
// parses or raises trapeze::Error with a position; nothing else escapes.
TEST(TextFormErrors, DamagedFilesNeverCrash) {
  const std::string text = R"(# trapeze pipeline text form, version 1
pipeline damaged
param R: int64 = 16
param t: float32 = 0.5f
input img: uint8[R][R]
stage hist(b): int32 on [0, 255]
  init: 0
  reduce over rx in [0, R - 1], ry in [0, R - 1]:
    hist(int32(img(rx, ry))) += 1
    hist(0) max= int32(img(rx, ry)) % 7
stage g(x, y): float32 on [0, R - 1] x [0, R - 1]
  case x >= 1 && y < R - int64(1): float32(hist(int32(img(x, y)))) * t
  default: select(x == 0, -inf_f32, sqrt(float32(x)))
output g, hist
)";
  ASSERT_NO_THROW((void)parse_pipeline(text));
  int errors = 0;
  const auto attempt = [&](const std::string& damaged) {
    try {
      (void)parse_pipeline(damaged, "bug.trapeze");
    } catch (const Error& e) {
      ++errors;
      EXPECT_THAT(e.what(), StartsWith("bug.trapeze:")) << damaged;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "unexpected exception " << e.what() << " for:\n" << damaged;
    }
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    attempt(text.substr(0, i));
    attempt(text.substr(0, i) + text.substr(i + 1));
  }
  EXPECT_GT(errors, static_cast<int>(text.size()));
}

} // namespace
} // namespace trapeze
