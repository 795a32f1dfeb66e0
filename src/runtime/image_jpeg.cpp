// JPEG files <-> planar uint8 buffers, through libjpeg-turbo's TurboJPEG API.
//
// TurboJPEG returns errors as codes with a message per handle instead of
// libjpeg's longjmp and stderr output, so nothing here jumps or prints.
// Warnings (a truncated scan, data after the end) are errors here
// (TJFLAG_STOPONWARNING): libjpeg would fill the missing rows with grey.
#include "image_codecs.h"

#include <turbojpeg.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

namespace trapeze::image_codecs {

namespace {

struct HandleCloser {
  void operator()(void* handle) const { tjDestroy(handle); }
};
using Handle = std::unique_ptr<void, HandleCloser>;

struct JpegFree {
  void operator()(unsigned char* p) const { tjFree(p); }
};

std::string last_error(void* handle) { return tjGetErrorStr2(handle); }

} // namespace

Buffer read_jpeg_file(const std::string& path) {
  const std::vector<unsigned char> bytes = read_file_bytes(path, "JPEG");
  const std::string what = "cannot read JPEG file " + quoted(path);
  Handle handle(tjInitDecompress());
  if (!handle) throw Error(what + ": " + tjGetErrorStr2(nullptr));
  int width = 0, height = 0, subsampling = 0, colorspace = 0;
  if (tjDecompressHeader3(handle.get(), bytes.data(), bytes.size(), &width, &height, &subsampling,
                          &colorspace) != 0)
    throw Error(what + ": " + last_error(handle.get()));
  if (colorspace == TJCS_CMYK || colorspace == TJCS_YCCK)
    throw Error(what + ": it is a CMYK image; trapeze reads gray and RGB JPEG files");
  const bool gray = colorspace == TJCS_GRAY;
  const int channels = gray ? 1 : 3;
  const PlanarShape shape{channels, height, width};
  Buffer image = allocate_image(ScalarType::UInt8, shape, what);

  int flags = TJFLAG_STOPONWARNING | TJFLAG_ACCURATEDCT;
#ifdef TJFLAG_LIMITSCANS
  flags |= TJFLAG_LIMITSCANS; // a progressive file of many tiny scans takes forever
#endif
  auto* planes = image.data<std::uint8_t>();
  if (gray) { // one channel: the planar layout is the interleaved one
    if (tjDecompress2(handle.get(), bytes.data(), bytes.size(), planes, width, 0, height, TJPF_GRAY,
                      flags) != 0)
      throw Error(what + ": " + last_error(handle.get()));
    return image;
  }
  std::vector<std::uint8_t> pixels;
  try {
    pixels.resize(static_cast<std::size_t>(shape.rows * shape.cols * channels));
  } catch (const std::bad_alloc&) {
    throw Error(what + ": its header claims " + std::to_string(width) + " x " +
                std::to_string(height) + " pixels, more than can be allocated");
  }
  if (tjDecompress2(handle.get(), bytes.data(), bytes.size(), pixels.data(), width, 0, height,
                    TJPF_RGB, flags) != 0)
    throw Error(what + ": " + last_error(handle.get()));
  for (std::int64_t r = 0; r < shape.rows; ++r)
    deinterleave_row<std::uint8_t>(pixels.data() + r * shape.cols * channels, shape.cols, channels,
                                   planes + r * shape.cols, shape.rows * shape.cols);
  return image;
}

void write_jpeg_file(const Buffer& image, const std::string& path) {
  const std::string what = "cannot write JPEG file " + quoted(path);
  if (image.type() != ScalarType::UInt8)
    throw Error(what + ": buffer " + image.describe() +
                " is not uint8 (JPEG holds 8-bit samples; convert a float image with "
                "from_float(), or write a .png, .tif or .npy file)");
  const PlanarShape shape = planar_shape(image, what, 0b1010);
  if (shape.rows > 65535 || shape.cols > 65535)
    throw Error(what + ": a JPEG cannot hold an image of " + image.describe());
  const int channels = static_cast<int>(shape.channels);
  const auto* planes = image.data<std::uint8_t>();
  std::vector<std::uint8_t> pixels(static_cast<std::size_t>(image.size()));
  for (std::int64_t r = 0; r < shape.rows; ++r)
    interleave_row<std::uint8_t>(planes + r * shape.cols, shape.rows * shape.cols, shape.cols,
                                 channels, pixels.data() + r * shape.cols * channels);

  Handle handle(tjInitCompress());
  if (!handle) throw Error(what + ": " + tjGetErrorStr2(nullptr));
  unsigned char* out = nullptr;
  unsigned long size = 0;
  const int width = static_cast<int>(shape.cols), height = static_cast<int>(shape.rows);
  // Quality 95 without chroma subsampling: files for checking results, not for the web.
  const int failed = tjCompress2(handle.get(), pixels.data(), width, 0, height,
                                 channels == 1 ? TJPF_GRAY : TJPF_RGB, &out, &size,
                                 channels == 1 ? TJSAMP_GRAY : TJSAMP_444, 95, TJFLAG_ACCURATEDCT);
  std::unique_ptr<unsigned char, JpegFree> owned(out);
  if (failed != 0) throw Error(what + ": " + last_error(handle.get()));

  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw Error("cannot create JPEG file " + quoted(path) + ": " + std::strerror(errno));
  const bool written = std::fwrite(out, 1, size, f) == size;
  const int error = errno;
  if (std::fclose(f) != 0 || !written)
    throw Error(what + ": " + std::strerror(written ? errno : error));
}

} // namespace trapeze::image_codecs
