// infer_params (parameters from the sizes of input images) and
// image_for_input (an image as the buffer an input declares).
#include "trapeze/error.h"
#include "trapeze/image_io.h"
#include "trapeze/input_images.h"
#include "trapeze/text_form.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace trapeze {
namespace {

using testing::AllOf;
using testing::HasSubstr;

/// A pipeline over the given parameter and input declarations ("input img:
/// float32[R + 2]" lines) whose one stage reads each input once (a pipeline
/// holds only the inputs its outputs read).
Pipeline pipeline_with(const std::string& params, const std::string& inputs) {
  std::string reads = "0.0f";
  std::istringstream lines(inputs);
  for (std::string line; std::getline(lines, line);) {
    const std::string name = line.substr(6, line.find(':') - 6);
    std::string index;
    for (char c : line)
      if (c == '[') index += index.empty() ? "0" : ", 0";
    reads += " + float32(" + name + "(" + index + "))";
  }
  return parse_pipeline("pipeline t\n" + params + inputs +
                        "stage out_(x): float32 on [0, 3]\n  = " + reads + "\noutput out_\n");
}

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(InferParams, SolvesAffineExtentsOfOneUnknown) {
  const Pipeline p = pipeline_with("param R: int64\nparam C: int64\n",
                                   "input img: float32[3][R + 2][2 * C - 4]\n");
  const ParamValues v = infer_params(p, {{"img", {{3, 482, 636}, "photo.png"}}}, {});
  EXPECT_EQ(v.at("R").i, 480);
  EXPECT_EQ(v.at("C").i, 320);
}

TEST(InferParams, SubstitutesKnownParametersAndRepeats) {
  // K is given; R comes from R + K, then C from C + R (any order of extents).
  const Pipeline p = pipeline_with("param R: int64\nparam C: int64\nparam K: int64\n",
                                   "input a: uint8[C + R][R + K]\n");
  const ParamValues v = infer_params(p, {{"a", {{30, 12}, "a.npy"}}}, {{"K", 2}});
  EXPECT_EQ(v.at("K").i, 2);
  EXPECT_EQ(v.at("R").i, 10);
  EXPECT_EQ(v.at("C").i, 20);
}

TEST(InferParams, FloorDivisionGivesAValueWhenOnlyOneFits) {
  const Pipeline p = pipeline_with("param N: int64\n", "input a: float32[(N + 1) / 2][N / 2]\n");
  // (N + 1) / 2 = 5 holds for N = 9 and 10; N / 2 = 4 for 8 and 9: together N = 9.
  EXPECT_EQ(infer_params(p, {{"a", {{5, 4}, "a.npy"}}}, {}).at("N").i, 9);
  EXPECT_THAT(error_of([&] {
                infer_params(p, {{"a", {{5, 3}, "a.npy"}}}, {});
              }),
              AllOf(HasSubstr("input 'a'"), HasSubstr("a.npy")));
}

TEST(InferParams, SeveralInputsMustAgree) {
  const Pipeline p =
      pipeline_with("param R: int64\n", "input a: float32[R]\ninput b: float32[R + 1]\n");
  EXPECT_EQ(infer_params(p, {{"a", {{7}, "a.png"}}, {"b", {{8}, "b.png"}}}, {}).at("R").i, 7);
  EXPECT_THAT(error_of([&] {
                infer_params(p, {{"a", {{7}, "a.png"}}, {"b", {{9}, "b.png"}}}, {});
              }),
              AllOf(HasSubstr("R=7"), HasSubstr("a.png"), HasSubstr("b.png"), HasSubstr("is 8"),
                    HasSubstr("is 9")));
}

TEST(InferParams, AGivenValueMustAgreeWithTheImage) {
  const Pipeline p = pipeline_with("param R: int64\n", "input a: float32[R + 2]\n");
  EXPECT_EQ(infer_params(p, {{"a", {{12}, "a.png"}}}, {{"R", 10}}).at("R").i, 10);
  EXPECT_THAT(error_of([&] {
                infer_params(p, {{"a", {{12}, "a.png"}}}, {{"R", 11}});
              }),
              AllOf(HasSubstr("R=11 (given)"), HasSubstr("is 13"), HasSubstr("a.png's is 12")));
}

TEST(InferParams, NoIntegerSolutionIsAnError) {
  const Pipeline p = pipeline_with("param C: int64\n", "input a: float32[2 * C]\n");
  EXPECT_THAT(error_of([&] {
                infer_params(p, {{"a", {{641}, "photo.png"}}}, {});
              }),
              AllOf(HasSubstr("extent 0 of input 'a' (2 * C) is 641 in photo.png"),
                    HasSubstr("no integer C")));
}

TEST(InferParams, AnUndeterminedParameterIsNamedWithWhy) {
  const Pipeline p = pipeline_with("param R: int64\nparam K: int64\nparam S: int64\n",
                                   "input a: float32[R + K]\ninput b: float32[R * S]\n");
  const std::string two_unknowns = error_of([&] {
    infer_params(p, {{"a", {{12}, "a.png"}}, {"b", {{12}, "b.png"}}}, {});
  });
  EXPECT_THAT(two_unknowns, AllOf(HasSubstr("parameter 'K'"), HasSubstr("are all unknown"),
                                  HasSubstr("--param K=VALUE")));
  const std::string not_affine = error_of([&] {
    infer_params(p, {{"a", {{12}, "a.png"}}, {"b", {{12}, "b.png"}}}, {{"K", 2}});
  });
  EXPECT_THAT(not_affine, AllOf(HasSubstr("parameter 'S'"), HasSubstr("not affine")));
  const Pipeline q =
      parse_pipeline("pipeline q\nparam R: int64\nparam Z: int64\ninput a: "
                     "float32[R]\nstage s(x): float32 on [0, Z]\n  = a(0)\noutput s\n");
  EXPECT_THAT(error_of([&] {
                infer_params(q, {{"a", {{12}, "a.png"}}}, {});
              }),
              AllOf(HasSubstr("parameter 'Z'"), HasSubstr("appears in the extents of no input")));
}

TEST(InferParams, DefaultsFillTheRestAndAreChecked) {
  const Pipeline p =
      pipeline_with("param R: int64 = 5\nparam S: int64 = 3\n", "input a: float32[R * S]\n");
  EXPECT_EQ(infer_params(p, {{"a", {{15}, "a.npy"}}}, {}).count("R"), 0u);
  EXPECT_THAT(
      error_of([&] {
        infer_params(p, {{"a", {{16}, "a.npy"}}}, {});
      }),
      AllOf(HasSubstr("float32[R * S], which is [15] for R=5, S=3"), HasSubstr("a.npy is [16]")));
}

TEST(InferParams, RankAndNameAreChecked) {
  const Pipeline p = pipeline_with("param R: int64\n", "input a: float32[R][R]\n");
  EXPECT_THAT(error_of([&] {
                infer_params(p, {{"a", {{4, 4, 4}, "a.npy"}}}, {});
              }),
              AllOf(HasSubstr("float32[R][R] (2 dimensions)"), HasSubstr("a.npy has 3")));
  EXPECT_THAT(error_of([&] {
                infer_params(p, {{"zz", {{4}, "z.png"}}}, {});
              }),
              HasSubstr("no input named 'zz'"));
}

TEST(InferParams, AnInferredValueOutsideTheDeclaredRangeIsAnError) {
  const Pipeline p = pipeline_with("param R: int64 >= 8\n", "input a: float32[R]\n");
  EXPECT_THROW(infer_params(p, {{"a", {{4}, "a.png"}}}, {}), Error);
}

TEST(ImageForInput, ConvertsTypesAsDocumented) {
  const Pipeline p = pipeline_with("param R: int64\nparam C: int64\n",
                                   "input f: float32[3][R][C]\ninput g: uint16[R][C]\n"
                                   "input h: float64[R][C]\ninput k: int16[R][C]\n");
  Buffer rgb(ScalarType::UInt8, {3, 2, 2});
  rgb.data<std::uint8_t>()[0] = 255;
  rgb.data<std::uint8_t>()[1] = 51;
  const Buffer f = image_for_input(p, "f", rgb, "rgb.png");
  EXPECT_EQ(f.describe(), "float32[3][2][2]");
  EXPECT_EQ(f.data<float>()[0], 1.0f);
  EXPECT_EQ(f.data<float>()[1], 0.2f);

  Buffer gray(ScalarType::UInt8, {2, 2});
  gray.data<std::uint8_t>()[3] = 200;
  EXPECT_EQ(image_for_input(p, "g", gray, "g.png").data<std::uint16_t>()[3], 200);
  Buffer ints(ScalarType::Int32, {2, 2});
  ints.data<std::int32_t>()[0] = -7;
  EXPECT_EQ(image_for_input(p, "h", ints, "i.npy").data<double>()[0], -7.0);
  EXPECT_EQ(image_for_input(p, "k", ints, "i.npy").data<std::int16_t>()[0], -7);
  ints.data<std::int32_t>()[1] = 40000;
  EXPECT_THAT(error_of([&] { image_for_input(p, "k", ints, "i.npy"); }),
              AllOf(HasSubstr("values from -7 to 40000"), HasSubstr("int16")));
  EXPECT_THAT(error_of([&] {
                image_for_input(p, "g", Buffer(ScalarType::Float32, {2, 2}), "x.tif");
              }),
              HasSubstr("x.tif holds float32 samples"));
}

TEST(ImageForInput, ChecksChannelsAndRank) {
  const Pipeline p =
      pipeline_with("param R: int64\nparam C: int64\n",
                    "input img: float32[3][R + 2][C + 2]\ninput one: float32[1][R][C]\n"
                    "input g: float32[R][C]\n");
  EXPECT_THAT(error_of([&] {
                image_for_input(p, "img", Buffer(ScalarType::UInt8, {4, 5, 5}), "photo.png");
              }),
              HasSubstr("input 'img' of pipeline 't' is float32[3][R + 2][C + 2]; photo.png has 4 "
                        "channels"));
  EXPECT_THAT(error_of([&] {
                image_for_input(p, "img", Buffer(ScalarType::UInt8, {5, 5}), "g.png");
              }),
              HasSubstr("g.png has 1 channel"));
  EXPECT_THAT(error_of([&] {
                image_for_input(p, "g", Buffer(ScalarType::UInt8, {3, 5, 5}), "c.png");
              }),
              HasSubstr("(one channel); c.png has 3 channels"));
  EXPECT_EQ(image_for_input(p, "one", Buffer(ScalarType::UInt8, {5, 6}), "g.png").describe(),
            "float32[1][5][6]");
}

} // namespace
} // namespace trapeze
