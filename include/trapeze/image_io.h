// Images: reading and writing PNG, JPEG, TIFF and NumPy .npy files, integer
// <-> float conversion, and deterministic synthetic test images.
//
// Layout, for every format: planar and dense, [rows][cols] for one channel and
// [channels][rows][cols] for several (alpha, where there is one, is the last
// channel); a .npy array keeps its own rank and shape (C order).
#pragma once

#include "trapeze/buffer.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace trapeze {

/// The file formats read_image and write_image know.
enum class ImageFormat { Png, Jpeg, Tiff, Npy };
/// "PNG", "JPEG", "TIFF", "NumPy .npy".
std::string_view format_name(ImageFormat format);
/// The format write_image chooses for `path` by its extension (.png, .jpg,
/// .jpeg, .tif, .tiff, .npy, any case); throws trapeze::Error for another.
ImageFormat format_for_path(const std::string& path);

/// Reads an image or array, choosing the format by the file's first bytes
/// (not its name):
///  - PNG: 8- or 16-bit gray, gray+alpha, RGB or RGBA as uint8 or uint16
///    (palettes expanded to RGB(A), 1/2/4-bit gray scaled to 8 bits);
///  - JPEG: gray or RGB (CMYK and YCCK refused) as uint8;
///  - TIFF: 1 to 4 samples per pixel (gray, gray+alpha, RGB, RGBA), contiguous
///    or planar, stripped or tiled, as uint8, uint16, int16, int32, float32 or
///    float64;
///  - .npy (format 1.0, 2.0 or 3.0): any rank, little- or big-endian, of a
///    dtype that is a trapeze type (b1, u1, u2, i2, i4, i8, f4, f8); Fortran
///    order is transposed into C order.
/// Throws trapeze::Error, one line naming the file, for a missing or
/// unreadable file, one in none of these formats, truncated or corrupt data
/// and layouts or types trapeze has no type for.
Buffer read_image(const std::string& path);
/// Writes `image` in the format of `path`'s extension:
///  - PNG: uint8 or uint16, [rows][cols] or [1|2|3|4][rows][cols];
///  - JPEG (quality 95, no chroma subsampling): uint8, [rows][cols] or [1|3][rows][cols];
///  - TIFF (deflate): uint8, uint16, int16, int32, float32 or float64,
///    [rows][cols] or [1|2|3|4][rows][cols];
///  - .npy (format 1.0, little-endian, C order): any type and rank.
/// Float images are not converted: use from_float() for PNG and JPEG. Throws
/// trapeze::Error naming the file for anything else or a failed write.
void write_image(const Buffer& image, const std::string& path);

/// read_image for a file that must be a PNG (the same buffers).
Buffer read_png(const std::string& path);
/// write_image in PNG whatever the name of `path`.
void write_png(const Buffer& image, const std::string& path);

/// Integer image to float in [0, 1] (divided by 255 or 65535), same shape.
Buffer to_float(const Buffer& image, ScalarType float_type = ScalarType::Float32);
/// Float image (values in [0, 1], clamped) to uint8 or uint16, rounded.
Buffer from_float(const Buffer& image, ScalarType int_type = ScalarType::UInt8);

/// What a synthetic image looks like.
struct SyntheticSpec {
  ScalarType type = ScalarType::Float32;
  std::vector<std::int64_t> extents; ///< [rows][cols] or [channels][rows][cols]
  double lo = 0.0, hi = 1.0;         ///< value range (integers: inclusive)
  std::uint64_t seed = 1;            ///< different seeds give different images
};
/// A deterministic image: smooth gradients plus edges (shapes with sharp
/// borders) plus fine texture, filling [lo, hi]; the same spec always gives
/// the same bits on every machine.
Buffer synthetic_image(const SyntheticSpec& spec);

} // namespace trapeze
