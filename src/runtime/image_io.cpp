// read_image / write_image: the format by the file's first bytes on read and
// by its extension on write, then the codec of that format (image_png.cpp,
// image_jpeg.cpp, image_tiff.cpp, image_npy.cpp); integer <-> float images.
#include "trapeze/image_io.h"

#include "image_codecs.h"
#include "trapeze/error.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <new>
#include <optional>

namespace trapeze {

using image_codecs::quoted;

namespace image_codecs {

std::vector<unsigned char> read_file_bytes(const std::string& path, const std::string& kind) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f)
    throw Error("cannot open " + kind + " file " + quoted(path) + ": " + std::strerror(errno));
  std::vector<unsigned char> bytes;
  unsigned char chunk[1 << 16];
  std::size_t got = 0;
  while ((got = std::fread(chunk, 1, sizeof chunk, f)) > 0)
    bytes.insert(bytes.end(), chunk, chunk + got);
  const bool failed = std::ferror(f) != 0;
  const int error = errno;
  std::fclose(f);
  if (failed)
    throw Error("cannot read " + kind + " file " + quoted(path) + ": " + std::strerror(error));
  return bytes;
}

Buffer allocate_image(ScalarType type, const PlanarShape& shape, const std::string& what) {
  std::vector<std::int64_t> extents = {shape.rows, shape.cols};
  if (shape.channels > 1) extents.insert(extents.begin(), shape.channels);
  try {
    return Buffer(type, extents);
  } catch (const std::bad_alloc&) {
  } catch (const Error&) {
  }
  throw Error(what + ": its header claims " + std::to_string(shape.cols) + " x " +
              std::to_string(shape.rows) + " pixels of " + std::to_string(shape.channels) +
              " channels, more than can be allocated");
}

PlanarShape planar_shape(const Buffer& image, const std::string& what, unsigned allowed_channels) {
  const int dims = image.dimensions();
  PlanarShape shape{0, 0, 0}; // no channel count fits another rank
  if (dims == 2 || dims == 3) {
    shape.channels = dims == 3 ? image.extent(0) : 1;
    shape.rows = image.extent(dims - 2);
    shape.cols = image.extent(dims - 1);
  }
  const bool allowed =
      shape.channels >= 1 && shape.channels < 32 && (allowed_channels >> shape.channels & 1u) != 0;
  if (!allowed) {
    std::string counts;
    for (int c = 1; c < 32; ++c)
      if (allowed_channels >> c & 1u) counts += (counts.empty() ? "" : "|") + std::to_string(c);
    throw Error(what + ": unsupported layout " + image.describe() + "; it takes [rows][cols] or [" +
                counts + "][rows][cols]");
  }
  if (shape.rows < 1 || shape.cols < 1)
    throw Error(what + ": it cannot hold an empty image " + image.describe());
  return shape;
}

} // namespace image_codecs

namespace {

std::string lower_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

/// The format whose signature starts `bytes` (the first `n` bytes of a file).
std::optional<ImageFormat> format_of_signature(const unsigned char* bytes, std::size_t n) {
  const auto starts = [&](const char* magic, std::size_t len) {
    return n >= len && std::memcmp(bytes, magic, len) == 0;
  };
  if (starts("\x89PNG\r\n\x1a\n", 8)) return ImageFormat::Png;
  if (starts("\xff\xd8\xff", 3)) return ImageFormat::Jpeg;
  // Classic TIFF (42) and BigTIFF (43), little- and big-endian.
  if (starts("II*\0", 4) || starts("MM\0*", 4) || starts("II+\0", 4) || starts("MM\0+", 4))
    return ImageFormat::Tiff;
  if (starts("\x93NUMPY", 6)) return ImageFormat::Npy;
  return std::nullopt;
}

} // namespace

std::string_view format_name(ImageFormat format) {
  switch (format) {
  case ImageFormat::Png: return "PNG";
  case ImageFormat::Jpeg: return "JPEG";
  case ImageFormat::Tiff: return "TIFF";
  case ImageFormat::Npy: return "NumPy .npy";
  }
  TRAPEZE_ASSERT(false, "unknown image format");
}

ImageFormat format_for_path(const std::string& path) {
  const std::string ext = lower_extension(path);
  if (ext == ".png") return ImageFormat::Png;
  if (ext == ".jpg" || ext == ".jpeg") return ImageFormat::Jpeg;
  if (ext == ".tif" || ext == ".tiff") return ImageFormat::Tiff;
  if (ext == ".npy") return ImageFormat::Npy;
  throw Error(
      "cannot write " + quoted(path) + ": " +
      (ext.empty() ? std::string("it has no extension") : "unknown extension '" + ext + "'") +
      " (.png, .jpg, .jpeg, .tif, .tiff or .npy choose the format)");
}

Buffer read_image(const std::string& path) {
  unsigned char signature[8] = {};
  std::size_t got = 0;
  {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) throw Error("cannot open " + quoted(path) + ": " + std::strerror(errno));
    got = std::fread(signature, 1, sizeof signature, f);
    std::fclose(f);
  }
  if (std::filesystem::is_directory(path))
    throw Error("cannot read " + quoted(path) + ": it is a directory");
  const std::optional<ImageFormat> format = format_of_signature(signature, got);
  if (!format)
    throw Error(quoted(path) + " is not an image: " +
                (got == 0 ? std::string("the file is empty")
                          : "its first bytes are those of no PNG, JPEG, TIFF or .npy file"));
  switch (*format) {
  case ImageFormat::Png: return image_codecs::read_png_file(path);
  case ImageFormat::Jpeg: return image_codecs::read_jpeg_file(path);
  case ImageFormat::Tiff: return image_codecs::read_tiff_file(path);
  case ImageFormat::Npy: return image_codecs::read_npy_file(path);
  }
  TRAPEZE_ASSERT(false, "unknown image format");
}

void write_image(const Buffer& image, const std::string& path) {
  // The codecs read the elements in row-major order: a strided view is copied first.
  const Buffer dense = image.dense();
  switch (format_for_path(path)) {
  case ImageFormat::Png: return image_codecs::write_png_file(dense, path);
  case ImageFormat::Jpeg: return image_codecs::write_jpeg_file(dense, path);
  case ImageFormat::Tiff: return image_codecs::write_tiff_file(dense, path);
  case ImageFormat::Npy: return image_codecs::write_npy_file(dense, path);
  }
  TRAPEZE_ASSERT(false, "unknown image format");
}

Buffer read_png(const std::string& path) { return image_codecs::read_png_file(path); }
void write_png(const Buffer& image, const std::string& path) {
  image_codecs::write_png_file(image.dense(), path);
}

namespace {

template <typename From, typename To> void scale_into(const Buffer& in, Buffer& out, double scale) {
  const From* src = in.data<From>();
  To* dst = out.data<To>();
  const std::int64_t n = in.size();
  // In double, then rounded once to To: the same value for float32 and float64 outputs.
  for (std::int64_t i = 0; i < n; ++i)
    dst[i] = static_cast<To>(static_cast<double>(src[i]) / scale);
}

template <typename From, typename To> void quantize_into(const Buffer& in, Buffer& out) {
  const double scale = static_cast<double>(std::numeric_limits<To>::max());
  const From* src = in.data<From>();
  To* dst = out.data<To>();
  const std::int64_t n = in.size();
  for (std::int64_t i = 0; i < n; ++i) {
    const double v = src[i];
    // NaN maps to 0; everything else is clamped to [0, 1] and rounded to nearest.
    const double clamped = std::isnan(v) ? 0.0 : std::clamp(v, 0.0, 1.0);
    dst[i] = static_cast<To>(std::floor(clamped * scale + 0.5));
  }
}

template <typename From> void to_float_from(const Buffer& in, Buffer& out, double scale) {
  if (out.type() == ScalarType::Float32)
    scale_into<From, float>(in, out, scale);
  else
    scale_into<From, double>(in, out, scale);
}

template <typename From> void from_float_from(const Buffer& in, Buffer& out) {
  if (out.type() == ScalarType::UInt8)
    quantize_into<From, std::uint8_t>(in, out);
  else
    quantize_into<From, std::uint16_t>(in, out);
}

} // namespace

Buffer to_float(const Buffer& image, ScalarType float_type) {
  if (!is_float(float_type))
    throw Error("to_float: the target type " + std::string(type_name(float_type)) +
                " is not float32 or float64");
  if (!image.defined() || (image.type() != ScalarType::UInt8 && image.type() != ScalarType::UInt16))
    throw Error("to_float: expected a uint8 or uint16 image, got " +
                (image.defined() ? image.describe() : std::string("an empty buffer")));
  Buffer out(float_type, image.extents());
  const Buffer in = image.dense(); // the loops read the elements in row-major order
  if (in.type() == ScalarType::UInt8)
    to_float_from<std::uint8_t>(in, out, 255.0);
  else
    to_float_from<std::uint16_t>(in, out, 65535.0);
  return out;
}

Buffer from_float(const Buffer& image, ScalarType int_type) {
  if (int_type != ScalarType::UInt8 && int_type != ScalarType::UInt16)
    throw Error("from_float: the target type " + std::string(type_name(int_type)) +
                " is not uint8 or uint16");
  if (!image.defined() || !is_float(image.type()))
    throw Error("from_float: expected a float32 or float64 image, got " +
                (image.defined() ? image.describe() : std::string("an empty buffer")));
  Buffer out(int_type, image.extents());
  const Buffer in = image.dense(); // the loops read the elements in row-major order
  if (in.type() == ScalarType::Float32)
    from_float_from<float>(in, out);
  else
    from_float_from<double>(in, out);
  return out;
}

} // namespace trapeze
