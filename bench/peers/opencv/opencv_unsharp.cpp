// trapeze bench's OpenCV row for unsharp: per colour plane, sepFilter2D with
// the spec's 5-tap binomial kernel, then absdiff / addWeighted / compare /
// copyTo for sharpen and the threshold mask.
//
// sepFilter2D sums the taps in another order than the spec (and filters along
// columns first), so its blur differs from the spec's by a few ulps. That is
// far inside the tolerance, except where |img - blury| lies within those ulps
// of the threshold: there the two may choose differently between img and
// sharpen, which differ by weight * threshold (0.003 at the defaults), more
// than the tolerance (without the step below, 74 points differ at the
// default size). So the points whose |img - blury| is within `threshold_band`
// of the threshold are recomputed with the spec's own float operations in its
// order (blur_at), which makes the choice the spec's; they are about 0.2% of
// the points at the default size.
#include "opencv_peer_support.h"

#include <opencv2/imgproc.hpp>

#include <cmath>
#include <memory>

namespace trapeze::bench {

namespace {

// Bounds the difference between sepFilter2D's blur and the spec's: values are
// in [0, 1] and each is at most ~20 roundings of 2^-24 away (~1.2e-6).
constexpr float threshold_band = 1e-5f;

// The spec's blury at (x, y) of a plane, float operations in the spec's
// order: blurx down the rows, then blury along the columns; points beyond the
// plane's edges are 0 (the pipeline's constant_exterior).
float blur_at(const cv::Mat& img, int x, int y) {
  const auto taps = [](float a, float b, float c, float d, float e) {
    return (a + 4.0f * b + 6.0f * c + 4.0f * d + e) * 0.0625f;
  };
  const auto at = [&](int row, int col) {
    return row < 0 || col < 0 || row >= img.rows || col >= img.cols ? 0.0f
                                                                    : img.at<float>(row, col);
  };
  float blurx[5];
  for (int j = 0; j < 5; ++j) {
    const int col = y - 2 + j;
    blurx[j] = taps(at(x - 2, col), at(x - 1, col), at(x, col), at(x + 1, col), at(x + 2, col));
  }
  return taps(blurx[0], blurx[1], blurx[2], blurx[3], blurx[4]);
}

// Scratch planes of one plane's size, made once outside the timing.
struct Scratch {
  cv::Mat blury, difference, chosen;
};

} // namespace

std::vector<Variant> opencv_unsharp_variants(const PeerContext& ctx) {
  const float threshold = static_cast<float>(ctx.bound.at("threshold").f);
  const float weight = static_cast<float>(ctx.bound.at("weight").f);
  const int rows = static_cast<int>(ctx.bound.at("R").i); // mask's rows and columns
  const int cols = static_cast<int>(ctx.bound.at("C").i);
  auto scratch = std::make_shared<Scratch>(Scratch{
      cv::Mat(rows, cols, CV_32FC1), cv::Mat(rows, cols, CV_32FC1), cv::Mat(rows, cols, CV_8UC1)});
  return {opencv_variant(ctx, [=](const BufferMap& in, BufferMap& out) {
    const cv::Mat binomial = (cv::Mat_<float>(1, 5) << 0.0625f, 0.25f, 0.375f, 0.25f, 0.0625f);
    const float one_plus_weight = 1.0f + weight;
    const Buffer& img = in.at("img");    // [3][R][C]
    const Buffer& mask = out.at("mask"); // [3][R][C]
    for (std::int64_t c = 0; c < img.extent(0); ++c) {
      // A strip reads its neighbours' rows where the plane has them, and
      // BORDER_CONSTANT's zeros beyond the plane's edges only.
      const cv::Mat plane = plane_view(img, c);
      const cv::Mat masked = plane_view(mask, c);
      for_each_row_strip(rows, [&](int begin, int end) {
        const cv::Mat src = plane.rowRange(begin, end);
        cv::Mat blury = scratch->blury.rowRange(begin, end);
        cv::Mat difference = scratch->difference.rowRange(begin, end);
        cv::Mat chosen = scratch->chosen.rowRange(begin, end);
        cv::Mat dst = masked.rowRange(begin, end);
        cv::sepFilter2D(src, blury, CV_32F, binomial, binomial, cv::Point(-1, -1), 0,
                        cv::BORDER_CONSTANT);
        cv::absdiff(src, blury, difference);
        cv::addWeighted(src, one_plus_weight, blury, -weight, 0, dst); // sharpen
        cv::compare(difference, static_cast<double>(threshold), chosen, cv::CMP_LT);
        src.copyTo(dst, chosen);
        // The choices the blur's rounding could have flipped, made again.
        cv::inRange(difference, static_cast<double>(threshold - threshold_band),
                    static_cast<double>(threshold + threshold_band), chosen);
        std::vector<cv::Point> near_threshold;
        cv::findNonZero(chosen, near_threshold);
        for (const cv::Point& p : near_threshold) {
          const float v = src.at<float>(p.y, p.x);
          const float b = blur_at(plane, begin + p.y, p.x);
          dst.at<float>(p.y, p.x) =
              std::fabs(v - b) < threshold ? v : v * one_plus_weight - b * weight;
        }
      });
    }
  })};
}

} // namespace trapeze::bench
