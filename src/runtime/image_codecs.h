// The codecs behind read_image and write_image (image_io.cpp dispatches), one
// file each, and what they share: the planar layout and its (de)interleaving.
#pragma once

#include "trapeze/buffer.h"
#include "trapeze/error.h"

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace trapeze::image_codecs {

// The writers take dense buffers (write_image passes Buffer::dense()).
Buffer read_png_file(const std::string& path);
void write_png_file(const Buffer& image, const std::string& path);
Buffer read_jpeg_file(const std::string& path);
void write_jpeg_file(const Buffer& image, const std::string& path);
Buffer read_tiff_file(const std::string& path);
void write_tiff_file(const Buffer& image, const std::string& path);
Buffer read_npy_file(const std::string& path);
void write_npy_file(const Buffer& image, const std::string& path);

/// A FILE* closed when it goes out of scope (the PNG and .npy codecs).
struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

/// "'path'": how every message names a file.
inline std::string quoted(const std::string& path) { return "'" + path + "'"; }

/// The whole of a file (JPEG and .npy are decoded from memory); throws Error
/// "cannot open <kind> file 'path': ..." if it cannot be read.
std::vector<unsigned char> read_file_bytes(const std::string& path, const std::string& kind);

/// An image's planes: `channels` planes of rows x cols.
struct PlanarShape {
  std::int64_t channels = 1, rows = 0, cols = 0;
};

/// The planar buffer for an image read from a file: [rows][cols] for one
/// channel, [channels][rows][cols] otherwise. A header can claim far more
/// pixels than memory holds, so a failed allocation is an Error naming the
/// file (`what`: "cannot read PNG file 'x.png'").
Buffer allocate_image(ScalarType type, const PlanarShape& shape, const std::string& what);

/// The planes of `image` ([rows][cols] or [channels][rows][cols]) for a
/// writer that accepts the channel counts in `allowed_channels` (bit c set: c
/// channels) and at least one row and column; throws Error "<what>: ..."
/// naming the layout otherwise.
PlanarShape planar_shape(const Buffer& image, const std::string& what, unsigned allowed_channels);

/// Copies one interleaved row of `cols` pixels of `channels` samples into
/// row `row` of the planes at `planes` (each plane `plane` elements apart).
/// Swap: the file's samples are big-endian (PNG's 16-bit samples). One pass,
/// with the channel count a compile-time constant for the common cases so
/// that the compiler unrolls and vectorizes the shuffle.
template <typename T, bool Swap = false, int Channels = 0> inline void
deinterleave_row_fixed(const T* in, std::int64_t cols, int channels, T* out, std::int64_t plane) {
  const int n = Channels > 0 ? Channels : channels;
  for (std::int64_t col = 0; col < cols; ++col)
    for (int c = 0; c < n; ++c) {
      T v = in[col * n + c];
      if constexpr (Swap) v = static_cast<T>((v >> 8) | (v << 8));
      out[c * plane + col] = v;
    }
}

template <typename T, bool Swap = false> inline void
deinterleave_row(const T* in, std::int64_t cols, int channels, T* out, std::int64_t plane) {
  switch (channels) {
  case 1: deinterleave_row_fixed<T, Swap, 1>(in, cols, 1, out, plane); break;
  case 2: deinterleave_row_fixed<T, Swap, 2>(in, cols, 2, out, plane); break;
  case 3: deinterleave_row_fixed<T, Swap, 3>(in, cols, 3, out, plane); break;
  case 4: deinterleave_row_fixed<T, Swap, 4>(in, cols, 4, out, plane); break;
  default: deinterleave_row_fixed<T, Swap, 0>(in, cols, channels, out, plane); break;
  }
}

/// The inverse: row `row` of the planes into one interleaved row.
template <typename T, bool Swap = false> inline void
interleave_row(const T* planes, std::int64_t plane, std::int64_t cols, int channels, T* out) {
  for (std::int64_t col = 0; col < cols; ++col)
    for (int c = 0; c < channels; ++c) {
      T v = planes[c * plane + col];
      if constexpr (Swap) v = static_cast<T>((v >> 8) | (v << 8));
      out[col * channels + c] = v;
    }
}

} // namespace trapeze::image_codecs
