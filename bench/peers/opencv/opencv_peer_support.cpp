// cv::Mat headers over trapeze's buffers, the "opencv" row's run and result,
// and row strips on OpenCV's thread pool.
#include "opencv_peer_support.h"

#include "trapeze/error.h"

#include <opencv2/core/utility.hpp>

#include <algorithm>
#include <memory>

namespace trapeze::bench {

namespace {

cv::Mat float_mat(const Buffer& b, std::int64_t rows, std::int64_t cols, std::int64_t offset) {
  if (b.type() != ScalarType::Float32)
    throw Error("opencv peer: buffer " + b.describe() + " is not float32");
  // cv::Mat headers take a non-const pointer; the views of inputs are only read.
  auto* data = const_cast<float*>(b.data<float>()) + offset;
  return cv::Mat(static_cast<int>(rows), static_cast<int>(cols), CV_32FC1, data);
}

} // namespace

cv::Mat mat_view(const Buffer& b) {
  TRAPEZE_ASSERT(b.dimensions() == 2, "mat_view of a buffer that is not 2-D: " + b.describe());
  return float_mat(b, b.extent(0), b.extent(1), 0);
}

cv::Mat plane_view(const Buffer& b, std::int64_t plane) {
  TRAPEZE_ASSERT(b.dimensions() == 3 && plane >= 0 && plane < b.extent(0),
                 "plane_view of a buffer that has no plane " + std::to_string(plane) + ": " +
                     b.describe());
  return float_mat(b, b.extent(1), b.extent(2), plane * b.extent(1) * b.extent(2));
}

Variant opencv_variant(const PeerContext& ctx,
                       std::function<void(const BufferMap& inputs, BufferMap& outputs)> compute) {
  auto outputs = std::make_shared<BufferMap>(allocate_outputs(ctx.pipeline, ctx.bound));
  Variant v;
  v.name = "opencv";
  v.run = [compute = std::move(compute), inputs = ctx.inputs, outputs, threads = ctx.threads] {
    cv::setNumThreads(threads);
    compute(*inputs, *outputs);
  };
  v.result = [outputs] { return *outputs; };
  return v;
}

void for_each_row_strip(int rows, const std::function<void(int begin, int end)>& body) {
  // A few strips per thread balance a shared machine; strips of at least 16
  // rows keep the rows a filter reads around each strip a small overhead.
  const int strips = std::clamp(rows / 16, 1, 4 * std::max(1, cv::getNumThreads()));
  cv::parallel_for_(
      cv::Range(0, rows), [&](const cv::Range& r) { body(r.start, r.end); }, strips);
}

} // namespace trapeze::bench
