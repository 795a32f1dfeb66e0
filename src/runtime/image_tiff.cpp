// TIFF files <-> planar buffers, through libtiff.
//
// libtiff reports errors by return codes plus a handler; the handler set per
// file (TIFFOpenExt, libtiff 4.5) keeps the first message for the Error
// instead of printing it, and warnings are dropped. libtiff converts the
// file's byte order to the host's, so the samples are only moved here: by
// their size, whatever their type.
#include "image_codecs.h"

#include <tiffio.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <vector>

namespace trapeze::image_codecs {

namespace {

struct TiffMessages {
  char first_error[512] = {};
};

int on_tiff_error(TIFF*, void* user_data, const char* module, const char* format, va_list args) {
  auto* messages = static_cast<TiffMessages*>(user_data);
  if (messages->first_error[0] == '\0') {
    char text[400];
    std::vsnprintf(text, sizeof text, format, args);
    if (module && *module)
      std::snprintf(messages->first_error, sizeof messages->first_error, "%s (%s)", text, module);
    else
      std::snprintf(messages->first_error, sizeof messages->first_error, "%s", text);
  }
  return 1; // handled: libtiff's global handler would print to stderr
}

int on_tiff_warning(TIFF*, void*, const char*, const char*, va_list) { return 1; }

struct TiffCloser {
  void operator()(TIFF* tif) const { TIFFClose(tif); }
};
using TiffPtr = std::unique_ptr<TIFF, TiffCloser>;

std::string reason(const TiffMessages& messages, const char* otherwise) {
  return messages.first_error[0] ? messages.first_error : otherwise;
}

/// `path` opened by libtiff for reading or writing, its messages kept in
/// `messages`. Throws Error: "cannot open (create) TIFF file 'x': <errno
/// text>" when the file itself cannot be, "<what>: <libtiff's reason>" when
/// libtiff refuses it.
TiffPtr open_tiff(const std::string& path, bool write, TiffMessages* messages,
                  const std::string& what) {
  // stdio first, for the system's reason (libtiff's would name no errno).
  if (std::FILE* f = std::fopen(path.c_str(), write ? "wb" : "rb"))
    std::fclose(f);
  else
    throw Error(std::string(write ? "cannot create" : "cannot open") + " TIFF file " +
                quoted(path) + ": " + std::strerror(errno));
  TIFFOpenOptions* options = TIFFOpenOptionsAlloc();
  if (!options) throw Error(what + ": out of memory");
  TIFFOpenOptionsSetErrorHandlerExtR(options, on_tiff_error, messages);
  TIFFOpenOptionsSetWarningHandlerExtR(options, on_tiff_warning, nullptr);
  TiffPtr tif(TIFFOpenExt(path.c_str(), write ? "w" : "r", options));
  TIFFOpenOptionsFree(options); // the handlers were copied into the TIFF
  if (!tif) throw Error(what + ": " + reason(*messages, "libtiff cannot open it"));
  return tif;
}

/// The trapeze type of samples of `bits` bits in libtiff's sample format.
std::optional<ScalarType> sample_type(int format, int bits) {
  if (format == SAMPLEFORMAT_UINT && bits == 8) return ScalarType::UInt8;
  if (format == SAMPLEFORMAT_UINT && bits == 16) return ScalarType::UInt16;
  if (format == SAMPLEFORMAT_INT && bits == 16) return ScalarType::Int16;
  if (format == SAMPLEFORMAT_INT && bits == 32) return ScalarType::Int32;
  if (format == SAMPLEFORMAT_IEEEFP && bits == 32) return ScalarType::Float32;
  if (format == SAMPLEFORMAT_IEEEFP && bits == 64) return ScalarType::Float64;
  return std::nullopt;
}

/// How the samples lie in the file: strips or tiles of `block_rows` x
/// `block_cols` pixels, all samples together or one plane per sample.
struct TiffLayout {
  std::int64_t rows = 0, cols = 0, block_rows = 0, block_cols = 0;
  int samples = 1;
  bool tiled = false, planar = false;
};

/// Reads every strip or tile into the planes of `image`, whose samples are
/// moved as T (an unsigned type of their size). False on a read error.
template <typename T> bool read_blocks(TIFF* tif, const TiffLayout& l, Buffer& image) {
  const int per_block = l.planar ? 1 : l.samples;
  const std::int64_t block_elements = l.block_rows * l.block_cols * per_block;
  const tmsize_t block_bytes = static_cast<tmsize_t>(block_elements * sizeof(T));
  std::vector<T> block(static_cast<std::size_t>(block_elements));
  T* planes = static_cast<T*>(image.raw());
  const std::int64_t plane = l.rows * l.cols;
  for (int s = 0; s < (l.planar ? l.samples : 1); ++s)
    for (std::int64_t y0 = 0; y0 < l.rows; y0 += l.block_rows)
      for (std::int64_t x0 = 0; x0 < l.cols; x0 += l.block_cols) {
        const auto sample = static_cast<std::uint16_t>(s);
        const tmsize_t got =
            l.tiled
                ? TIFFReadEncodedTile(tif,
                                      TIFFComputeTile(tif, static_cast<std::uint32_t>(x0),
                                                      static_cast<std::uint32_t>(y0), 0, sample),
                                      block.data(), block_bytes)
                : TIFFReadEncodedStrip(
                      tif, TIFFComputeStrip(tif, static_cast<std::uint32_t>(y0), sample),
                      block.data(), block_bytes);
        const std::int64_t rows = std::min(l.block_rows, l.rows - y0);
        const std::int64_t cols = std::min(l.block_cols, l.cols - x0);
        // A last strip may be short; it must still hold its rows.
        if (got < 0 || got < static_cast<tmsize_t>(((rows - 1) * l.block_cols + cols) * per_block *
                                                   static_cast<std::int64_t>(sizeof(T))))
          return false;
        for (std::int64_t r = 0; r < rows; ++r)
          deinterleave_row<T>(block.data() + r * l.block_cols * per_block, cols, per_block,
                              planes + s * plane + (y0 + r) * l.cols + x0, plane);
      }
  return true;
}

template <typename T> bool write_rows(TIFF* tif, const Buffer& image, const PlanarShape& shape) {
  const int channels = static_cast<int>(shape.channels);
  std::vector<T> row(static_cast<std::size_t>(shape.cols * channels));
  const T* planes = static_cast<const T*>(image.raw());
  for (std::int64_t r = 0; r < shape.rows; ++r) {
    interleave_row<T>(planes + r * shape.cols, shape.rows * shape.cols, shape.cols, channels,
                      row.data());
    if (TIFFWriteScanline(tif, row.data(), static_cast<std::uint32_t>(r), 0) != 1) return false;
  }
  return TIFFFlush(tif) == 1;
}

} // namespace

Buffer read_tiff_file(const std::string& path) {
  const std::string what = "cannot read TIFF file " + quoted(path);
  TiffMessages messages;
  const TiffPtr tif = open_tiff(path, /*write=*/false, &messages, what);

  std::uint32_t width = 0, height = 0;
  std::uint16_t samples = 1, bits = 1, format = SAMPLEFORMAT_UINT, config = PLANARCONFIG_CONTIG,
                photometric = PHOTOMETRIC_MINISBLACK, compression = COMPRESSION_NONE;
  if (!TIFFGetField(tif.get(), TIFFTAG_IMAGEWIDTH, &width) ||
      !TIFFGetField(tif.get(), TIFFTAG_IMAGELENGTH, &height))
    throw Error(what + ": it has no image size");
  TIFFGetFieldDefaulted(tif.get(), TIFFTAG_SAMPLESPERPIXEL, &samples);
  TIFFGetFieldDefaulted(tif.get(), TIFFTAG_BITSPERSAMPLE, &bits);
  TIFFGetFieldDefaulted(tif.get(), TIFFTAG_SAMPLEFORMAT, &format);
  TIFFGetFieldDefaulted(tif.get(), TIFFTAG_PLANARCONFIG, &config);
  TIFFGetFieldDefaulted(tif.get(), TIFFTAG_COMPRESSION, &compression);
  TIFFGetField(tif.get(), TIFFTAG_PHOTOMETRIC, &photometric);
  if (photometric == PHOTOMETRIC_YCBCR && compression == COMPRESSION_JPEG) {
    // libtiff's JPEG codec converts YCbCr to RGB itself when asked.
    TIFFSetField(tif.get(), TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
    photometric = PHOTOMETRIC_RGB;
  }
  if (photometric != PHOTOMETRIC_MINISBLACK && photometric != PHOTOMETRIC_RGB)
    throw Error(what + ": its photometric interpretation " + std::to_string(photometric) +
                " (palette, CMYK, YCbCr, ...) is not supported; trapeze reads gray and RGB, "
                "with or without alpha");
  if (samples < 1 || samples > 4)
    throw Error(what + ": it has " + std::to_string(samples) +
                " samples per pixel; trapeze reads 1 to 4");
  const std::optional<ScalarType> type = sample_type(format, bits);
  if (!type)
    throw Error(what + ": its " + std::to_string(bits) + "-bit " +
                (format == SAMPLEFORMAT_IEEEFP ? "float"
                 : format == SAMPLEFORMAT_INT  ? "signed"
                                               : "unsigned") +
                " samples have no trapeze type (uint8, uint16, int16, int32, float32, float64)");

  TiffLayout layout;
  layout.rows = height;
  layout.cols = width;
  layout.samples = samples;
  layout.planar = config == PLANARCONFIG_SEPARATE && samples > 1;
  layout.tiled = TIFFIsTiled(tif.get()) != 0;
  if (layout.tiled) {
    std::uint32_t tile_width = 0, tile_length = 0;
    TIFFGetField(tif.get(), TIFFTAG_TILEWIDTH, &tile_width);
    TIFFGetField(tif.get(), TIFFTAG_TILELENGTH, &tile_length);
    layout.block_cols = tile_width;
    layout.block_rows = tile_length;
  } else {
    std::uint32_t rows_per_strip = 0;
    TIFFGetFieldDefaulted(tif.get(), TIFFTAG_ROWSPERSTRIP, &rows_per_strip);
    layout.block_cols = width;
    layout.block_rows = std::min<std::int64_t>(rows_per_strip, height);
  }
  if (layout.block_rows < 1 || layout.block_cols < 1 || layout.rows < 1 || layout.cols < 1)
    throw Error(what + ": its strip or tile size is missing or zero");

  const PlanarShape shape{samples, layout.rows, layout.cols};
  Buffer image = allocate_image(*type, shape, what);
  bool ok = false;
  try {
    switch (byte_size(*type)) {
    case 1: ok = read_blocks<std::uint8_t>(tif.get(), layout, image); break;
    case 2: ok = read_blocks<std::uint16_t>(tif.get(), layout, image); break;
    case 4: ok = read_blocks<std::uint32_t>(tif.get(), layout, image); break;
    case 8: ok = read_blocks<std::uint64_t>(tif.get(), layout, image); break;
    default: TRAPEZE_ASSERT(false, "unexpected TIFF sample size");
    }
  } catch (const std::bad_alloc&) {
    throw Error(what + ": its strips or tiles are larger than can be allocated");
  }
  if (!ok) throw Error(what + ": " + reason(messages, "the data is truncated"));
  return image;
}

void write_tiff_file(const Buffer& image, const std::string& path) {
  const std::string what = "cannot write TIFF file " + quoted(path);
  std::uint16_t format = SAMPLEFORMAT_UINT;
  switch (image.type()) {
  case ScalarType::UInt8:
  case ScalarType::UInt16: format = SAMPLEFORMAT_UINT; break;
  case ScalarType::Int16:
  case ScalarType::Int32: format = SAMPLEFORMAT_INT; break;
  case ScalarType::Float32:
  case ScalarType::Float64: format = SAMPLEFORMAT_IEEEFP; break;
  default:
    throw Error(what + ": buffer " + image.describe() +
                " has no TIFF sample type (uint8, uint16, int16, int32, float32, float64); write "
                "a .npy file");
  }
  const PlanarShape shape = planar_shape(image, what, 0b11110);
  if (shape.rows > UINT32_MAX || shape.cols > UINT32_MAX)
    throw Error(what + ": a TIFF cannot hold an image of " + image.describe());

  TiffMessages messages;
  const TiffPtr tif = open_tiff(path, /*write=*/true, &messages, what);
  const auto channels = static_cast<std::uint16_t>(shape.channels);
  TIFFSetField(tif.get(), TIFFTAG_IMAGEWIDTH, static_cast<std::uint32_t>(shape.cols));
  TIFFSetField(tif.get(), TIFFTAG_IMAGELENGTH, static_cast<std::uint32_t>(shape.rows));
  TIFFSetField(tif.get(), TIFFTAG_SAMPLESPERPIXEL, channels);
  TIFFSetField(tif.get(), TIFFTAG_BITSPERSAMPLE,
               static_cast<std::uint16_t>(8 * byte_size(image.type())));
  TIFFSetField(tif.get(), TIFFTAG_SAMPLEFORMAT, format);
  TIFFSetField(tif.get(), TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField(tif.get(), TIFFTAG_PHOTOMETRIC,
               channels >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
  if (channels == 2 || channels == 4) {
    const std::uint16_t alpha[] = {EXTRASAMPLE_UNASSALPHA};
    TIFFSetField(tif.get(), TIFFTAG_EXTRASAMPLES, 1, alpha);
  }
  TIFFSetField(tif.get(), TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
  TIFFSetField(tif.get(), TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(tif.get(), 0));
  bool ok = false;
  switch (byte_size(image.type())) {
  case 1: ok = write_rows<std::uint8_t>(tif.get(), image, shape); break;
  case 2: ok = write_rows<std::uint16_t>(tif.get(), image, shape); break;
  case 4: ok = write_rows<std::uint32_t>(tif.get(), image, shape); break;
  case 8: ok = write_rows<std::uint64_t>(tif.get(), image, shape); break;
  default: TRAPEZE_ASSERT(false, "unexpected TIFF sample size");
  }
  if (!ok) throw Error(what + ": " + reason(messages, "the write failed"));
}

} // namespace trapeze::image_codecs
