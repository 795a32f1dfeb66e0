// What every OpenCV peer shares: trapeze buffers seen as cv::Mat headers (same
// memory, no copy), the "opencv" row's run and result, and row strips spread
// over OpenCV's thread pool.
#pragma once

#include "peers.h"

#include <opencv2/core.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace trapeze::bench {

/// The float32 buffer `b` of extents [rows][cols] as a CV_32FC1 Mat over the
/// same memory. Throws trapeze::Error if `b` is not float32.
cv::Mat mat_view(const Buffer& b);

/// Plane `plane` of the planar float32 buffer `b` of extents
/// [planes][rows][cols] as a CV_32FC1 Mat over the same memory.
cv::Mat plane_view(const Buffer& b, std::int64_t plane);

/// The "opencv" row of an app: its outputs are allocated here (outside the
/// timing); run() sets OpenCV's thread count to ctx.threads and calls
/// `compute(inputs, outputs)`; result() returns the outputs.
Variant opencv_variant(const PeerContext& ctx,
                       std::function<void(const BufferMap& inputs, BufferMap& outputs)> compute);

/// Calls body(begin, end) for row strips covering [0, rows), in parallel on
/// OpenCV's thread pool (cv::parallel_for_). OpenCV 4's filters (blur,
/// sepFilter2D, cornerHarris) are single-threaded without IPP, so an OpenCV
/// user splits the image into strips to use the threads; filters given a strip
/// (a submatrix) read the rows around it from the whole image.
void for_each_row_strip(int rows, const std::function<void(int begin, int end)>& body);

/// The OpenCV rows of each app (opencv_APP.cpp).
std::vector<Variant> opencv_blur_variants(const PeerContext& ctx);
std::vector<Variant> opencv_unsharp_variants(const PeerContext& ctx);
std::vector<Variant> opencv_harris_variants(const PeerContext& ctx);

} // namespace trapeze::bench
