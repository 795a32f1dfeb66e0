// trapeze bench's OpenCV row for blur: cv::blur (a normalised 3x3 box filter)
// over the input's interior.
//
// The spec's blur is two 3-tap means, (sum of 3) / 3 along rows then along
// columns, i.e. the mean of the 3x3 neighbourhood; cv::blur computes that mean
// as (sum of 9) * (1/9), which differs from the spec's float rounding by a few
// ulps (the app's tolerance is 1e-4).
#include "opencv_peer_support.h"

#include <opencv2/imgproc.hpp>

namespace trapeze::bench {

std::vector<Variant> opencv_blur_variants(const PeerContext& ctx) {
  return {opencv_variant(ctx, [](const BufferMap& in, BufferMap& out) {
    const cv::Mat img = mat_view(in.at("img")); // [R+2][C+2]
    const cv::Mat blury = mat_view(out.at("blury"));
    // blury's domain is [1, R] x [1, C], stored from (1, 1): the input's
    // interior, whose 3x3 neighbourhoods all lie inside the input, so the
    // border mode never applies (a submatrix's filter reads its surroundings).
    const cv::Mat interior = img(cv::Rect(1, 1, blury.cols, blury.rows));
    for_each_row_strip(blury.rows, [&](int begin, int end) {
      cv::Mat dst = blury.rowRange(begin, end);
      cv::blur(interior.rowRange(begin, end), dst, cv::Size(3, 3), cv::Point(-1, -1),
               cv::BORDER_CONSTANT);
    });
  })};
}

} // namespace trapeze::bench
