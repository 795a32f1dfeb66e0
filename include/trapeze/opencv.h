// Buffers over OpenCV's images, and back: views without copies where the
// layouts allow, copies where they do not. Optional: trapeze does not depend
// on OpenCV; include this header only in code that is built with OpenCV 4
// (its core module).
#pragma once

#include "trapeze/buffer.h"
#include "trapeze/error.h"

#include <opencv2/core.hpp>

#include <string>

namespace trapeze {

/// The ScalarType of an OpenCV depth (CV_8U, CV_16U, CV_16S, CV_32S, CV_32F,
/// CV_64F). Throws trapeze::Error for CV_8S and CV_16F, which trapeze has no
/// type for.
inline ScalarType scalar_type_of_cv_depth(int depth) {
  switch (depth) {
  case CV_8U: return ScalarType::UInt8;
  case CV_16U: return ScalarType::UInt16;
  case CV_16S: return ScalarType::Int16;
  case CV_32S: return ScalarType::Int32;
  case CV_32F: return ScalarType::Float32;
  case CV_64F: return ScalarType::Float64;
  default:
    throw Error("OpenCV depth " + std::to_string(depth) +
                " (CV_8S or CV_16F) has no trapeze element type");
  }
}

/// The OpenCV depth of a ScalarType; throws trapeze::Error for bool and
/// int64, which OpenCV 4's Mat cannot hold.
inline int cv_depth_of(ScalarType type) {
  switch (type) {
  case ScalarType::UInt8: return CV_8U;
  case ScalarType::UInt16: return CV_16U;
  case ScalarType::Int16: return CV_16S;
  case ScalarType::Int32: return CV_32S;
  case ScalarType::Float32: return CV_32F;
  case ScalarType::Float64: return CV_64F;
  default: throw Error("a cv::Mat cannot hold " + std::string(type_name(type)) + " elements");
  }
}

namespace opencv_detail {

inline Buffer view(const cv::Mat& m, const void* data, bool writable) {
  if (m.dims != 2)
    throw Error("a cv::Mat of " + std::to_string(m.dims) +
                " dimensions; trapeze views 2-D images (rows x cols, with channels)");
  const ScalarType type = scalar_type_of_cv_depth(m.depth());
  const auto element = static_cast<std::int64_t>(m.elemSize1());
  const auto channels = static_cast<std::int64_t>(m.channels());
  if (m.step[0] % static_cast<std::size_t>(element) != 0)
    throw Error("a cv::Mat whose row step (" + std::to_string(m.step[0]) +
                " bytes) is not a whole number of elements");
  const auto row = static_cast<std::int64_t>(m.step[0]) / element;
  const std::int64_t rows = m.rows, cols = m.cols;
  if (channels == 1) {
    return writable ? Buffer::view(type, const_cast<void*>(data), {rows, cols}, {row, 1})
                    : Buffer::view(type, data, {rows, cols}, {row, 1});
  }
  // Interleaved channels: [channels][rows][cols] with channel stride 1.
  return writable ? Buffer::view(type, const_cast<void*>(data), {channels, rows, cols},
                                 {1, row, channels})
                  : Buffer::view(type, data, {channels, rows, cols}, {1, row, channels});
}

} // namespace opencv_detail

/// A view of a 2-D cv::Mat's pixels, without copying: [rows][cols] for one
/// channel, [channels][rows][cols] for more, with the Mat's row step and its
/// interleaved channels (strides {1, step, channels}). A pipeline reads and
/// writes it in place (an interleaved one through a dense copy, made by the
/// generated code). Keep the Mat alive while the view or a copy of it is used.
inline Buffer view_of(cv::Mat& m) { return opencv_detail::view(m, m.data, true); }
/// The same, read-only: a pipeline's input.
inline Buffer view_of(const cv::Mat& m) { return opencv_detail::view(m, m.data, false); }

/// A cv::Mat header over a buffer's memory, without copying: the buffer must
/// be [rows][cols] or [channels][rows][cols] with its channels interleaved
/// (stride 1), its columns `channels` elements apart and its rows a
/// non-negative whole step apart, as a Mat lays them out. Throws
/// trapeze::Error otherwise (to_mat copies any layout). Keep the buffer's
/// memory alive while the Mat is used.
inline cv::Mat mat_view_of(Buffer& b) {
  const int dims = b.dimensions();
  if (dims != 2 && dims != 3)
    throw Error("buffer " + b.describe() + " is not an image ([rows][cols] or " +
                "[channels][rows][cols]) that a cv::Mat can view");
  const std::int64_t channels = dims == 3 ? b.extent(0) : 1;
  const std::int64_t channel_stride = dims == 3 ? b.stride(0) : 1;
  const std::int64_t rows = b.extent(dims - 2), cols = b.extent(dims - 1);
  const std::int64_t row = b.stride(dims - 2), col = b.stride(dims - 1);
  if ((channels > 1 && channel_stride != 1) || (cols > 1 && col != channels) ||
      (rows > 1 && row < cols * channels) || channels > CV_CN_MAX)
    throw Error("buffer " + b.describe() + " is not laid out as a cv::Mat (channels " +
                "interleaved, rows a step apart); use to_mat to copy it");
  const int type = CV_MAKETYPE(cv_depth_of(b.type()), static_cast<int>(channels));
  const auto step = static_cast<std::size_t>(rows > 1 ? row : cols * channels) *
                    static_cast<std::size_t>(byte_size(b.type()));
  return cv::Mat(static_cast<int>(rows), static_cast<int>(cols), type, b.raw(), step);
}

/// A new cv::Mat (channels interleaved) holding a copy of the buffer's
/// elements, whatever its layout: [rows][cols] or [channels][rows][cols].
inline cv::Mat to_mat(const Buffer& b) {
  const int dims = b.dimensions();
  if (dims != 2 && dims != 3)
    throw Error("buffer " + b.describe() + " is not an image ([rows][cols] or " +
                "[channels][rows][cols]) that a cv::Mat can hold");
  const std::int64_t channels = dims == 3 ? b.extent(0) : 1;
  if (channels > CV_CN_MAX)
    throw Error("buffer " + b.describe() + " has more channels than a cv::Mat holds (" +
                std::to_string(CV_CN_MAX) + ")");
  cv::Mat m(static_cast<int>(b.extent(dims - 2)), static_cast<int>(b.extent(dims - 1)),
            CV_MAKETYPE(cv_depth_of(b.type()), static_cast<int>(channels)));
  const auto row = static_cast<std::int64_t>(m.step[0] / m.elemSize1());
  Buffer::view(b.type(), static_cast<void*>(m.data), b.extents(),
               dims == 3 ? std::vector<std::int64_t>{1, row, channels}
                         : std::vector<std::int64_t>{row, 1})
      .copy_from(b);
  return m;
}

} // namespace trapeze
