// trapeze bench's OpenCV row for harris: cv::cornerHarris(blockSize 3,
// ksize 3, k 0.04) on row strips of the image.
//
// What cornerHarris computes (OpenCV 4, imgproc/src/corner.cpp, float input,
// no IPP): Dx, Dy = Sobel(ksize) * scale with scale = 1 / (2^(ksize-1) *
// blockSize); the unnormalised blockSize x blockSize box sums (boxFilter,
// normalize=false) of Dx^2, Dx*Dy, Dy^2; and det - k * trace^2 of that 2x2
// matrix. With ksize = blockSize = 3 the scale is 1 / (4 * 3) = 1/12, the
// spec's division of the Sobel sums by 12, and the box sums are the spec's
// unweighted 3x3 sums, so cornerHarris computes exactly the spec's response:
// Dx (along columns) is the spec's Iy, Dy (along rows) its Ix; det and trace
// are symmetric in them. (For other block sizes the response would be the
// spec's times (12 / (2^(ksize-1) * blockSize))^4.) The only differences are
// float rounding: * (1/12) instead of / 12, and the order of the sums.
#include "opencv_peer_support.h"

#include <opencv2/imgproc.hpp>

namespace trapeze::bench {

namespace {

constexpr int block_size = 3, sobel_size = 3;
constexpr double harris_k = 0.04;
// Rows around an output row that its value depends on: one for the box sum,
// one more for the Sobel derivative.
constexpr int reach = 2;

} // namespace

std::vector<Variant> opencv_harris_variants(const PeerContext& ctx) {
  return {opencv_variant(ctx, [](const BufferMap& in, BufferMap& out) {
    const cv::Mat img = mat_view(in.at("img"));        // [R+2][C+2]
    const cv::Mat harris = mat_view(out.at("harris")); // [R+2][C+2], domain from (0, 0)
    const int rows = img.rows, cols = img.cols;
    // The spec's response lives on I2 = [2, R-1] x [2, C-1]; there it reads
    // the image only inside [0, R+1] x [0, C+1], so no border mode applies.
    // Each strip of I2's rows runs cornerHarris on the strip plus `reach`
    // rows each side (the box sum inside cornerHarris sees only its own
    // input, so those rows must be there), and keeps the strip.
    const int width = cols - 2 * reach;
    for_each_row_strip(rows - 2 * reach, [&](int begin, int end) {
      const int first = begin + reach, last = end + reach; // rows [first, last) of I2
      cv::Mat response;
      cornerHarris(img.rowRange(first - reach, last + reach), response, block_size, sobel_size,
                   harris_k, cv::BORDER_CONSTANT);
      cv::Mat dst = harris(cv::Rect(reach, first, width, last - first));
      response(cv::Rect(reach, reach, width, last - first)).copyTo(dst);
    });
    // Outside I2 every stage of the spec is 0.
    harris.rowRange(0, reach).setTo(0);
    harris.rowRange(rows - reach, rows).setTo(0);
    harris.colRange(0, reach).setTo(0);
    harris.colRange(cols - reach, cols).setTo(0);
  })};
}

} // namespace trapeze::bench
