// trapeze/opencv.h: views of cv::Mat in both directions, copies of any
// layout, and a pipeline run in place on an interleaved Mat.
#include "trapeze/opencv.h"

#include "trapeze/dsl.h"
#include "trapeze/error.h"
#include "trapeze/image_io.h"
#include "trapeze/runtime.h"

#include <gtest/gtest.h>

namespace trapeze {
namespace {

TEST(OpenCV, ViewOfAnInterleavedMatIsChannelsRowsColumns) {
  cv::Mat m(5, 7, CV_16UC3);
  for (int r = 0; r < 5; ++r)
    for (int c = 0; c < 7; ++c)
      m.at<cv::Vec3w>(r, c) =
          cv::Vec3w(static_cast<std::uint16_t>(100 * r + c), static_cast<std::uint16_t>(1000 + c),
                    static_cast<std::uint16_t>(2000 + r));
  Buffer v = view_of(m);
  EXPECT_EQ(v.type(), ScalarType::UInt16);
  EXPECT_EQ(v.extents(), (std::vector<std::int64_t>{3, 5, 7}));
  EXPECT_EQ(v.strides(), (std::vector<std::int64_t>{1, 21, 3}));
  EXPECT_FALSE(v.owns_memory());
  EXPECT_EQ(v.at<std::uint16_t>({0, 4, 6}), 406);
  EXPECT_EQ(v.at<std::uint16_t>({1, 4, 6}), 1006);
  EXPECT_EQ(v.at<std::uint16_t>({2, 4, 6}), 2004);
  v.at<std::uint16_t>({2, 1, 1}) = 7; // writes the Mat
  EXPECT_EQ(m.at<cv::Vec3w>(1, 1)[2], 7);
  const cv::Mat& read_only = m;
  EXPECT_FALSE(view_of(read_only).writable());
}

TEST(OpenCV, ARegionOfInterestKeepsItsRowStep) {
  cv::Mat big(20, 30, CV_32FC1);
  cv::randu(big, 0.0f, 1.0f);
  cv::Mat roi = big(cv::Rect(3, 4, 10, 6));
  const Buffer v = view_of(roi);
  EXPECT_EQ(v.extents(), (std::vector<std::int64_t>{6, 10}));
  EXPECT_EQ(v.strides(), (std::vector<std::int64_t>{30, 1}));
  EXPECT_EQ(v.at<float>({5, 9}), big.at<float>(9, 12));
}

TEST(OpenCV, MatViewOfABufferAndCopiesOfAnyLayout) {
  Buffer planar = synthetic_image({ScalarType::UInt8, {3, 8, 9}, 0, 255, 4});
  EXPECT_THROW(mat_view_of(planar), Error); // planar channels: no Mat layout
  const cv::Mat copy = to_mat(planar);
  ASSERT_EQ(copy.type(), CV_8UC3);
  EXPECT_EQ(copy.at<cv::Vec3b>(7, 8)[1], planar.at<std::uint8_t>({1, 7, 8}));
  // Back again: the interleaved copy viewed as a buffer equals the original.
  EXPECT_FALSE(compare_buffers(planar, view_of(copy), 0.0).has_value());

  Buffer gray = synthetic_image({ScalarType::Float32, {8, 9}, 0, 1, 5});
  cv::Mat header = mat_view_of(gray); // dense rows: a view
  EXPECT_EQ(header.ptr<float>(0), gray.data<float>());
  EXPECT_EQ(header.at<float>(7, 8), gray.at<float>({7, 8}));
  EXPECT_THROW(to_mat(Buffer(ScalarType::Int64, {2, 2})), Error);
  EXPECT_THROW(view_of(cv::Mat(2, 2, CV_8SC1)), Error);
}

// A pipeline reads an interleaved BGR Mat and writes a gray Mat, in place.
TEST(OpenCV, APipelineRunsOnMatsInPlace) {
  Param R("R"), C("C");
  Var c("c"), x("x"), y("y");
  Image img("img", ScalarType::UInt8, {3, R, C});
  Func gray("gray", ScalarType::Float32, {x, y}, {{0, R - 1}, {0, C - 1}});
  gray.define(cast(ScalarType::Float32, img(0, x, y)) * 0.114f + img(1, x, y) * 0.587f +
              img(2, x, y) * 0.299f);
  const Pipeline p({gray}, "bgr_to_gray");
  cv::Mat bgr(31, 45, CV_8UC3);
  cv::randu(bgr, 0, 256);
  cv::Mat out(31, 45, CV_32FC1);
  const ParamValues bound{{"R", 31}, {"C", 45}};
  BufferMap outputs{{"gray", view_of(out)}};
  compile(p).run(bound, {{"img", view_of(static_cast<const cv::Mat&>(bgr))}}, outputs);
  const BufferMap expected = interpret(p, bound, {{"img", view_of(bgr)}});
  EXPECT_FALSE(compare_buffers(expected.at("gray"), view_of(out), 0.0).has_value());
}

} // namespace
} // namespace trapeze
