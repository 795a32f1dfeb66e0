// Images: PNG files and deterministic synthetic test images.
#pragma once

#include "trapeze/buffer.h"

#include <cstdint>
#include <string>

namespace trapeze {

/// Reads an 8- or 16-bit gray or RGB(A) PNG as a buffer of uint8 or uint16,
/// planar: [rows][cols] for gray, [channels][rows][cols] for colour (alpha is
/// kept as a fourth channel). Throws trapeze::Error naming the file.
Buffer read_png(const std::string& path);
/// Writes a uint8 or uint16 buffer ([rows][cols] or [1|3|4][rows][cols]).
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
