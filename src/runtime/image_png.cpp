// PNG files <-> planar uint8/uint16 buffers, through libpng.
//
// libpng's low-level API, not its simplified one (png_image_*): the
// simplified API converts what it reads for display (sRGB <-> linear by the
// file's gAMA chunk, 16-bit colour premultiplied by alpha), and trapeze wants
// the samples as stored. Reading decodes one row at a time into a small
// buffer and deinterleaves it into the planes at once, while the row is in
// cache: one pass, no image-sized interleaved copy (docs/performance.md,
// "Reading images").
//
// libpng reports errors through longjmp. Every function that calls setjmp
// below holds only trivially destructible locals, so a longjmp never skips a
// destructor; the C++ objects (files, row storage, the buffer) live in the
// callers, which the jump does not leave. Messages are kept, never printed.
#include "image_codecs.h"

#include <png.h>

#include <bit>
#include <cerrno>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

namespace trapeze::image_codecs {

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

/// The decoded layout after the expansions set in read_png_header.
struct PngLayout {
  png_uint_32 rows = 0, cols = 0;
  int bit_depth = 8; ///< 8 or 16
  int channels = 1;  ///< 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA
  bool interlaced = false;
  png_size_t row_bytes = 0;
};

/// Where decoded rows go: the planes of the result.
struct PlanarTarget {
  void* planes = nullptr;
  std::int64_t plane = 0; ///< elements between planes
};
/// Where rows to encode come from.
struct PlanarSource {
  const void* planes = nullptr;
  std::int64_t plane = 0;
};

/// PNG stores 16-bit samples big-endian; swap them on little-endian hosts.
constexpr bool kSwap16 = std::endian::native == std::endian::little;

void store_row(const png_byte* row, png_uint_32 r, const PngLayout& layout,
               const PlanarTarget& target) {
  const std::int64_t cols = layout.cols, offset = static_cast<std::int64_t>(r) * cols;
  if (layout.bit_depth == 16)
    deinterleave_row<std::uint16_t, kSwap16>(
        reinterpret_cast<const std::uint16_t*>(row), cols, layout.channels,
        static_cast<std::uint16_t*>(target.planes) + offset, target.plane);
  else
    deinterleave_row<std::uint8_t>(row, cols, layout.channels,
                                   static_cast<std::uint8_t*>(target.planes) + offset,
                                   target.plane);
}

/// Reads the header and asks libpng to expand palettes, low bit depths and
/// transparency chunks and to de-interlace. False on a libpng error.
bool read_png_header(png_structp png, png_infop info, std::FILE* file, PngLayout* layout) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_init_io(png, file);
  png_set_sig_bytes(png, 8);
#ifdef PNG_IGNORE_ADLER32
  // Every IDAT chunk's CRC-32 is still checked, which catches a corrupt file;
  // zlib's Adler-32 over the same bytes decoded would only repeat it (3-4% of
  // the decode).
  png_set_option(png, PNG_IGNORE_ADLER32, PNG_OPTION_ON);
#endif
  png_read_info(png, info);
  const int color_type = png_get_color_type(png, info);
  const int depth = png_get_bit_depth(png, info);
  if (color_type == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
  if (color_type == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
  if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
  // 16-bit samples stay big-endian (the file's order); store_row swaps them
  // while it deinterleaves, which costs nothing more.
  layout->interlaced = png_set_interlace_handling(png) > 1;
  png_read_update_info(png, info);
  layout->rows = png_get_image_height(png, info);
  layout->cols = png_get_image_width(png, info);
  layout->bit_depth = png_get_bit_depth(png, info);
  layout->channels = png_get_channels(png, info);
  layout->row_bytes = png_get_rowbytes(png, info);
  return true;
}

/// A non-interlaced image, one row at a time through `row` into the planes.
bool read_png_rows(png_structp png, const PngLayout* layout, png_bytep row,
                   const PlanarTarget* target) {
  if (setjmp(png_jmpbuf(png))) return false;
  for (png_uint_32 r = 0; r < layout->rows; ++r) {
    png_read_row(png, row, nullptr);
    store_row(row, r, *layout, *target);
  }
  png_read_end(png, nullptr); // the chunks after the image, and their CRCs
  return true;
}

/// An interlaced image needs every row at once (each pass fills some of each).
bool read_png_interlaced(png_structp png, png_bytepp rows) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_read_image(png, rows);
  png_read_end(png, nullptr);
  return true;
}

bool write_png_rows(png_structp png, png_infop info, std::FILE* file, const PngLayout* layout,
                    const PlanarSource* source, png_bytep row) {
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
  const std::int64_t cols = layout->cols;
  for (png_uint_32 r = 0; r < layout->rows; ++r) {
    const std::int64_t offset = static_cast<std::int64_t>(r) * cols;
    if (layout->bit_depth == 16)
      interleave_row<std::uint16_t, kSwap16>(
          static_cast<const std::uint16_t*>(source->planes) + offset, source->plane, cols,
          layout->channels, reinterpret_cast<std::uint16_t*>(row));
    else
      interleave_row<std::uint8_t>(static_cast<const std::uint8_t*>(source->planes) + offset,
                                   source->plane, cols, layout->channels, row);
    png_write_row(png, row);
  }
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

/// Storage for rows of 16-bit samples that libpng fills through png_bytep (a
/// character pointer may alias it; the reverse would not be allowed).
std::vector<std::uint16_t> row_storage(png_size_t bytes) {
  return std::vector<std::uint16_t>((bytes + 1) / 2);
}

} // namespace

Buffer read_png_file(const std::string& path) {
  // stdio's buffer (declared first: it must outlive the FILE). glibc reads 4
  // KB at a time by default, whatever libpng asks for; 256 KB makes 22 read
  // calls of a 5.6 MB file instead of 1,377.
  std::vector<char> stdio_buffer(1 << 18);
  FilePtr file(std::fopen(path.c_str(), "rb"));
  if (!file) throw Error("cannot open PNG file " + quoted(path) + ": " + std::strerror(errno));
  std::setvbuf(file.get(), stdio_buffer.data(), _IOFBF, stdio_buffer.size());
  png_byte signature[8] = {};
  const std::size_t got = std::fread(signature, 1, sizeof signature, file.get());
  if (got != sizeof signature || png_sig_cmp(signature, 0, sizeof signature) != 0)
    throw Error(quoted(path) + " is not a PNG file (its first bytes are not the PNG signature)");

  const std::string what = "cannot read PNG file " + quoted(path);
  PngErrorState error;
  ReadStructs s;
  s.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &error, on_png_error, on_png_warning);
  if (s.png) s.info = png_create_info_struct(s.png);
  if (!s.png || !s.info) throw Error(what + ": out of memory");

  PngLayout layout;
  if (!read_png_header(s.png, s.info, file.get(), &layout))
    throw Error(what + ": " + error.message);
  if ((layout.bit_depth != 8 && layout.bit_depth != 16) || layout.channels < 1 ||
      layout.channels > 4)
    throw Error(what + ": unsupported layout (" + std::to_string(layout.channels) +
                " channels of " + std::to_string(layout.bit_depth) + " bits)");

  const PlanarShape shape{layout.channels, layout.rows, layout.cols};
  Buffer image =
      allocate_image(layout.bit_depth == 16 ? ScalarType::UInt16 : ScalarType::UInt8, shape, what);
  const PlanarTarget target{image.raw(), shape.rows * shape.cols};
  if (!layout.interlaced) {
    std::vector<std::uint16_t> row = row_storage(layout.row_bytes);
    if (!read_png_rows(s.png, &layout, reinterpret_cast<png_bytep>(row.data()), &target))
      throw Error(what + ": " + error.message);
    return image;
  }
  std::vector<std::uint16_t> pixels;
  std::vector<png_bytep> rows;
  try {
    pixels = row_storage(layout.row_bytes * layout.rows);
    rows.resize(layout.rows);
  } catch (const std::bad_alloc&) {
    throw Error(what + ": its header claims " + std::to_string(layout.cols) + " x " +
                std::to_string(layout.rows) + " interlaced pixels, more than can be allocated");
  }
  for (png_uint_32 r = 0; r < layout.rows; ++r)
    rows[r] = reinterpret_cast<png_bytep>(pixels.data()) + r * layout.row_bytes;
  if (!read_png_interlaced(s.png, rows.data())) throw Error(what + ": " + error.message);
  for (png_uint_32 r = 0; r < layout.rows; ++r)
    store_row(rows[r], r, layout, target);
  return image;
}

void write_png_file(const Buffer& image, const std::string& path) {
  const std::string what = "write_png(" + quoted(path) + ")";
  if (!image.defined()) throw Error(what + ": the buffer is empty");
  if (image.type() != ScalarType::UInt8 && image.type() != ScalarType::UInt16)
    throw Error(what + ": buffer " + image.describe() +
                " is not uint8 or uint16; convert a float image with from_float()");
  const PlanarShape shape = planar_shape(image, what, 0b11110);
  if (shape.rows > PNG_USER_HEIGHT_MAX || shape.cols > PNG_USER_WIDTH_MAX)
    throw Error(what + ": a PNG cannot hold an image of " + image.describe());

  PngLayout layout;
  layout.rows = static_cast<png_uint_32>(shape.rows);
  layout.cols = static_cast<png_uint_32>(shape.cols);
  layout.channels = static_cast<int>(shape.channels);
  layout.bit_depth = image.type() == ScalarType::UInt16 ? 16 : 8;
  layout.row_bytes = static_cast<png_size_t>(shape.cols * shape.channels * (layout.bit_depth / 8));
  std::vector<std::uint16_t> row = row_storage(layout.row_bytes);
  const PlanarSource source{image.raw(), shape.rows * shape.cols};

  FilePtr file(std::fopen(path.c_str(), "wb"));
  if (!file) throw Error("cannot create PNG file " + quoted(path) + ": " + std::strerror(errno));
  PngErrorState error;
  WriteStructs s;
  s.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &error, on_png_error, on_png_warning);
  if (s.png) s.info = png_create_info_struct(s.png);
  if (!s.png || !s.info) throw Error("cannot write PNG file " + quoted(path) + ": out of memory");
  if (!write_png_rows(s.png, s.info, file.get(), &layout, &source,
                      reinterpret_cast<png_bytep>(row.data())))
    throw Error("cannot write PNG file " + quoted(path) + ": " + error.message);
  if (std::fflush(file.get()) != 0)
    throw Error("cannot write PNG file " + quoted(path) + ": " + std::strerror(errno));
}

} // namespace trapeze::image_codecs
