// PNG files <-> planar uint8/uint16 buffers (libpng), and integer <-> float images.
//
// libpng reports errors through longjmp. Every function that calls setjmp
// below holds only trivially destructible locals, so a longjmp never skips a
// destructor; the C++ objects (files, row storage, the buffer) live in the
// callers, which the jump does not leave.
#include "trapeze/image_io.h"

#include "trapeze/error.h"

#include <png.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

namespace trapeze {

namespace {

/// Where the libpng error callback leaves its message before it jumps.
struct PngErrorState {
  char message[512] = {};
};

[[noreturn]] void on_png_error(png_structp png, png_const_charp message) {
  auto* state = static_cast<PngErrorState*>(png_get_error_ptr(png));
  std::snprintf(state->message, sizeof state->message, "%s", message ? message : "unknown error");
  png_longjmp(png, 1);
}

void on_png_warning(png_structp, png_const_charp) {
  // Warnings (unknown chunks, odd gamma) do not stop reading; stay quiet.
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

/// The decoded layout after the expansions set in read_png_header.
struct PngLayout {
  png_uint_32 rows = 0, cols = 0;
  int bit_depth = 8; ///< 8 or 16
  int channels = 1;  ///< 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA
  png_size_t row_bytes = 0;
};

/// Reads the header and asks libpng to expand palettes, low bit depths and
/// transparency chunks and to de-interlace. False on a libpng error.
bool read_png_header(png_structp png, png_infop info, std::FILE* file, PngLayout* layout) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_init_io(png, file);
  png_set_sig_bytes(png, 8);
  png_read_info(png, info);
  const int color_type = png_get_color_type(png, info);
  const int depth = png_get_bit_depth(png, info);
  if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (color_type == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
  // 16-bit samples stay big-endian (the file's order); read_png assembles them.
  png_set_interlace_handling(png);
  png_read_update_info(png, info);
  layout->rows = png_get_image_height(png, info);
  layout->cols = png_get_image_width(png, info);
  layout->bit_depth = png_get_bit_depth(png, info);
  layout->channels = png_get_channels(png, info);
  layout->row_bytes = png_get_rowbytes(png, info);
  return true;
}

bool read_png_rows(png_structp png, png_infop info, png_bytepp rows) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_read_image(png, rows);
  png_read_end(png, info);
  return true;
}

bool write_png_rows(png_structp png, png_infop info, std::FILE* file, const PngLayout* layout,
                    png_bytepp rows) {
  if (setjmp(png_jmpbuf(png))) return false;
  static const int color_types[] = {PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA,
                                    PNG_COLOR_TYPE_RGB, PNG_COLOR_TYPE_RGB_ALPHA};
  png_init_io(png, file);
  png_set_IHDR(png, info, layout->cols, layout->rows, layout->bit_depth,
               color_types[layout->channels - 1], PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  // Test and benchmark images are written often and read rarely: favour speed.
  png_set_compression_level(png, 3);
  png_write_info(png, info);
  png_write_image(png, rows);
  png_write_end(png, info);
  return true;
}

struct ReadStructs {
  png_structp png = nullptr;
  png_infop info = nullptr;
  ~ReadStructs() { png_destroy_read_struct(&png, info ? &info : nullptr, nullptr); }
};

struct WriteStructs {
  png_structp png = nullptr;
  png_infop info = nullptr;
  ~WriteStructs() { png_destroy_write_struct(&png, info ? &info : nullptr); }
};

std::string quoted(const std::string& path) { return "'" + path + "'"; }

} // namespace

Buffer read_png(const std::string& path) {
  FilePtr file(std::fopen(path.c_str(), "rb"));
  if (!file) throw Error("cannot open PNG file " + quoted(path) + ": " + std::strerror(errno));
  png_byte signature[8] = {};
  const std::size_t got = std::fread(signature, 1, sizeof signature, file.get());
  if (got != sizeof signature || png_sig_cmp(signature, 0, sizeof signature) != 0)
    throw Error(quoted(path) + " is not a PNG file (its first bytes are not the PNG signature)");

  PngErrorState error;
  ReadStructs s;
  s.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &error, on_png_error, on_png_warning);
  if (s.png) s.info = png_create_info_struct(s.png);
  if (!s.png || !s.info) throw Error("cannot read PNG file " + quoted(path) + ": out of memory");

  PngLayout layout;
  if (!read_png_header(s.png, s.info, file.get(), &layout))
    throw Error("cannot read PNG file " + quoted(path) + ": " + error.message);
  if ((layout.bit_depth != 8 && layout.bit_depth != 16) || layout.channels < 1 ||
      layout.channels > 4)
    throw Error("cannot read PNG file " + quoted(path) + ": unsupported layout (" +
                std::to_string(layout.channels) + " channels of " +
                std::to_string(layout.bit_depth) + " bits)");

  // The header's size, before anything of it is allocated: a few bytes of
  // file can claim 65535 x 65535 pixels.
  std::vector<png_byte> pixels;
  std::vector<png_bytep> row_pointers;
  try {
    pixels.resize(static_cast<std::size_t>(layout.row_bytes) * layout.rows);
    row_pointers.resize(layout.rows);
  } catch (const std::bad_alloc&) {
    throw Error("cannot read PNG file " + quoted(path) + ": its header claims " +
                std::to_string(layout.cols) + " x " + std::to_string(layout.rows) + " pixels (" +
                std::to_string(static_cast<std::uint64_t>(layout.row_bytes) * layout.rows) +
                " bytes), more memory than can be allocated");
  }
  for (png_uint_32 r = 0; r < layout.rows; ++r)
    row_pointers[r] = pixels.data() + r * layout.row_bytes;
  if (!read_png_rows(s.png, s.info, row_pointers.data()))
    throw Error("cannot read PNG file " + quoted(path) + ": " + error.message);

  const std::int64_t rows = layout.rows, cols = layout.cols, channels = layout.channels;
  std::vector<std::int64_t> extents = {rows, cols};
  if (channels > 1) extents.insert(extents.begin(), channels);
  const bool wide = layout.bit_depth == 16;
  Buffer image(wide ? ScalarType::UInt16 : ScalarType::UInt8, extents);
  const std::int64_t plane = rows * cols;
  for (std::int64_t r = 0; r < rows; ++r) {
    const png_byte* row = row_pointers[static_cast<std::size_t>(r)];
    for (std::int64_t col = 0; col < cols; ++col)
      for (std::int64_t c = 0; c < channels; ++c) {
        const std::int64_t sample = col * channels + c;
        const std::int64_t at = c * plane + r * cols + col;
        if (wide) // PNG stores 16-bit samples big-endian.
          image.data<std::uint16_t>()[at] =
              static_cast<std::uint16_t>((row[2 * sample] << 8) | row[2 * sample + 1]);
        else
          image.data<std::uint8_t>()[at] = row[sample];
      }
  }
  return image;
}

void write_png(const Buffer& image, const std::string& path) {
  if (!image.defined()) throw Error("write_png(" + quoted(path) + "): the buffer is empty");
  if (image.type() != ScalarType::UInt8 && image.type() != ScalarType::UInt16)
    throw Error("write_png(" + quoted(path) + "): buffer " + image.describe() +
                " is not uint8 or uint16; convert a float image with from_float()");
  const int dims = image.dimensions();
  const std::int64_t channels = dims == 3 ? image.extent(0) : 1;
  if ((dims != 2 && dims != 3) || channels < 1 || channels > 4)
    throw Error("write_png(" + quoted(path) + "): unsupported layout " + image.describe() +
                "; PNG takes [rows][cols] or [1|2|3|4][rows][cols]");
  const std::int64_t rows = image.extent(dims - 2), cols = image.extent(dims - 1);
  if (rows < 1 || cols < 1 || rows > PNG_USER_HEIGHT_MAX || cols > PNG_USER_WIDTH_MAX)
    throw Error("write_png(" + quoted(path) + "): a PNG cannot hold an image of " +
                image.describe());

  PngLayout layout;
  layout.rows = static_cast<png_uint_32>(rows);
  layout.cols = static_cast<png_uint_32>(cols);
  layout.channels = static_cast<int>(channels);
  const bool wide = image.type() == ScalarType::UInt16;
  layout.bit_depth = wide ? 16 : 8;
  const std::int64_t bytes_per_sample = wide ? 2 : 1;
  layout.row_bytes = static_cast<png_size_t>(cols * channels * bytes_per_sample);

  // Interleave the planes into PNG rows (16-bit samples big-endian).
  std::vector<png_byte> pixels(layout.row_bytes * layout.rows);
  std::vector<png_bytep> row_pointers(layout.rows);
  const std::int64_t plane = rows * cols;
  for (std::int64_t r = 0; r < rows; ++r) {
    png_byte* row = pixels.data() + static_cast<std::size_t>(r) * layout.row_bytes;
    row_pointers[static_cast<std::size_t>(r)] = row;
    for (std::int64_t col = 0; col < cols; ++col)
      for (std::int64_t c = 0; c < channels; ++c) {
        const std::int64_t sample = col * channels + c;
        const std::int64_t at = c * plane + r * cols + col;
        if (wide) {
          const std::uint16_t v = image.data<std::uint16_t>()[at];
          row[2 * sample] = static_cast<png_byte>(v >> 8);
          row[2 * sample + 1] = static_cast<png_byte>(v & 0xff);
        } else {
          row[sample] = image.data<std::uint8_t>()[at];
        }
      }
  }

  FilePtr file(std::fopen(path.c_str(), "wb"));
  if (!file) throw Error("cannot create PNG file " + quoted(path) + ": " + std::strerror(errno));
  PngErrorState error;
  WriteStructs s;
  s.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &error, on_png_error, on_png_warning);
  if (s.png) s.info = png_create_info_struct(s.png);
  if (!s.png || !s.info) throw Error("cannot write PNG file " + quoted(path) + ": out of memory");
  if (!write_png_rows(s.png, s.info, file.get(), &layout, row_pointers.data()))
    throw Error("cannot write PNG file " + quoted(path) + ": " + error.message);
  if (std::fflush(file.get()) != 0)
    throw Error("cannot write PNG file " + quoted(path) + ": " + std::strerror(errno));
}

Buffer to_float(const Buffer& image, ScalarType float_type) {
  if (!is_float(float_type))
    throw Error("to_float: the target type " + std::string(type_name(float_type)) +
                " is not float32 or float64");
  if (!image.defined() || (image.type() != ScalarType::UInt8 && image.type() != ScalarType::UInt16))
    throw Error("to_float: expected a uint8 or uint16 image, got " +
                (image.defined() ? image.describe() : std::string("an empty buffer")));
  const double scale = image.type() == ScalarType::UInt8 ? 255.0 : 65535.0;
  Buffer out(float_type, image.extents());
  const std::int64_t n = image.size();
  for (std::int64_t i = 0; i < n; ++i)
    out.set_from_double(i, image.get_as_double(i) / scale);
  return out;
}

Buffer from_float(const Buffer& image, ScalarType int_type) {
  if (int_type != ScalarType::UInt8 && int_type != ScalarType::UInt16)
    throw Error("from_float: the target type " + std::string(type_name(int_type)) +
                " is not uint8 or uint16");
  if (!image.defined() || !is_float(image.type()))
    throw Error("from_float: expected a float32 or float64 image, got " +
                (image.defined() ? image.describe() : std::string("an empty buffer")));
  const double scale = int_type == ScalarType::UInt8 ? 255.0 : 65535.0;
  Buffer out(int_type, image.extents());
  const std::int64_t n = image.size();
  for (std::int64_t i = 0; i < n; ++i) {
    const double v = image.get_as_double(i);
    // NaN maps to 0; everything else is clamped to [0, 1] and rounded to nearest.
    const double clamped = std::isnan(v) ? 0.0 : std::clamp(v, 0.0, 1.0);
    out.set_from_double(i, std::floor(clamped * scale + 0.5));
  }
  return out;
}

} // namespace trapeze
