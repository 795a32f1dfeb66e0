// read_image / write_image: round trips through every format and type, files
// written by other tools' layouts (planar and tiled TIFF, big-endian and
// Fortran-order .npy), and bad files: each a one-line Error naming the file.
#include "support/temp_dir.h"
#include "trapeze/error.h"
#include "trapeze/image_io.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <tiffio.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace trapeze {
namespace {

using testing::HasSubstr;
using testing::Not;
namespace fs = std::filesystem;

class ImageFormats : public testing_support::TempDirTest {
protected:
  std::string dir_string() const { return dir().string(); }

  std::string bytes_of(const std::string& file) const {
    std::ifstream in(file, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  void write_bytes(const std::string& file, const std::string& bytes) const {
    std::ofstream(file, std::ios::binary) << bytes;
  }
  /// The message of the Error that reading `file` throws ("" if none).
  std::string read_error(const std::string& file) const {
    try {
      read_image(file);
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }
};

Buffer pattern(ScalarType type, std::vector<std::int64_t> extents, std::uint64_t seed = 7) {
  SyntheticSpec spec;
  spec.type = type;
  spec.extents = std::move(extents);
  spec.seed = seed;
  switch (type) {
  case ScalarType::Bool: spec.hi = 1; break;
  case ScalarType::UInt8: spec.hi = 255; break;
  case ScalarType::UInt16: spec.hi = 65535; break;
  case ScalarType::Int16: spec.lo = -32768, spec.hi = 32767; break;
  case ScalarType::Int32: spec.lo = -2e9, spec.hi = 2e9; break;
  case ScalarType::Int64: spec.lo = -1e15, spec.hi = 1e15; break;
  default: spec.lo = -3.5, spec.hi = 1e6; break;
  }
  return synthetic_image(spec);
}

void expect_identical(const Buffer& a, const Buffer& b) {
  ASSERT_EQ(a.describe(), b.describe());
  ASSERT_EQ(std::memcmp(a.raw(), b.raw(), a.bytes()), 0) << a.describe();
}

TEST_F(ImageFormats, PngRoundTripsThroughReadImage) {
  for (ScalarType type : {ScalarType::UInt8, ScalarType::UInt16})
    for (auto extents : {std::vector<std::int64_t>{9, 14}, {2, 9, 14}, {3, 9, 14}, {4, 9, 14}}) {
      const Buffer image = pattern(type, extents);
      write_image(image, path("a.PNG"));
      SCOPED_TRACE(image.describe());
      expect_identical(read_image(path("a.PNG")), image);
    }
}

TEST_F(ImageFormats, JpegRoundTripsWithinATolerance) {
  for (auto extents : {std::vector<std::int64_t>{24, 40}, {3, 24, 40}, {1, 5, 3}}) {
    SyntheticSpec spec;
    spec.type = ScalarType::UInt8;
    spec.extents = extents;
    spec.hi = 255;
    const Buffer image = synthetic_image(spec);
    for (const char* name : {"a.jpg", "b.JPEG"}) {
      write_image(image, path(name));
      const Buffer back = read_image(path(name));
      SCOPED_TRACE(image.describe());
      const std::vector<std::int64_t> expected =
          extents.size() == 3 && extents[0] == 1 ? std::vector<std::int64_t>{5, 3} : extents;
      ASSERT_EQ(back.extents(), expected);
      ASSERT_EQ(back.type(), ScalarType::UInt8);
      double total = 0;
      int worst = 0;
      for (std::int64_t i = 0; i < image.size(); ++i) {
        const int d = std::abs(image.data<std::uint8_t>()[i] - back.data<std::uint8_t>()[i]);
        total += d;
        worst = std::max(worst, d);
      }
      // Quality 95 without subsampling: small errors, larger only at sharp edges.
      EXPECT_LT(total / static_cast<double>(image.size()), 3.0);
      EXPECT_LT(worst, 64);
    }
  }
}

TEST_F(ImageFormats, TiffRoundTripsEveryTypeAndChannelCount) {
  for (ScalarType type : {ScalarType::UInt8, ScalarType::UInt16, ScalarType::Int16,
                          ScalarType::Int32, ScalarType::Float32, ScalarType::Float64})
    for (auto extents : {std::vector<std::int64_t>{17, 23}, {2, 17, 23}, {3, 17, 23}, {4, 5, 6}}) {
      const Buffer image = pattern(type, extents);
      write_image(image, path("a.tif"));
      SCOPED_TRACE(image.describe());
      expect_identical(read_image(path("a.tif")), image);
    }
  const Buffer big = pattern(ScalarType::Float32, {3, 300, 301});
  write_image(big, path("big.tiff")); // several strips
  expect_identical(read_image(path("big.tiff")), big);
}

TEST_F(ImageFormats, StridedViewsAreWrittenAndConvertedAsTheirElements) {
  const Buffer dense = pattern(ScalarType::UInt8, {3, 5, 7});
  // The same image interleaved (RGBRGB...), viewed as [3][5][7].
  std::vector<std::uint8_t> interleaved(3 * 5 * 7);
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 5; ++r)
      for (int x = 0; x < 7; ++x)
        interleaved[(r * 7 + x) * 3 + c] = dense.data<std::uint8_t>()[(c * 5 + r) * 7 + x];
  const Buffer view = Buffer::view(ScalarType::UInt8, interleaved.data(), {3, 5, 7}, {1, 7 * 3, 3});
  for (const char* name : {"v.png", "v.tif", "v.npy"}) {
    write_image(view, path(name));
    expect_identical(read_image(path(name)), dense);
  }
  expect_identical(to_float(view), to_float(dense));
}

/// A TIFF written with libtiff directly: planar (one plane per sample) and/or
/// tiled, the layouts write_image never writes.
void write_raw_tiff(const std::string& file, const Buffer& planar, bool separate, bool tiled) {
  TIFF* tif = TIFFOpen(file.c_str(), "w");
  ASSERT_NE(tif, nullptr);
  const std::uint32_t channels = static_cast<std::uint32_t>(planar.extent(0));
  const std::uint32_t rows = static_cast<std::uint32_t>(planar.extent(1));
  const std::uint32_t cols = static_cast<std::uint32_t>(planar.extent(2));
  TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, cols);
  TIFFSetField(tif, TIFFTAG_IMAGELENGTH, rows);
  TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, static_cast<std::uint16_t>(channels));
  TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, 32);
  TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_IEEEFP);
  TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_RGB);
  TIFFSetField(tif, TIFFTAG_PLANARCONFIG, separate ? PLANARCONFIG_SEPARATE : PLANARCONFIG_CONTIG);
  const float* data = planar.data<float>();
  const std::uint32_t plane = rows * cols;
  if (tiled) {
    const std::uint32_t tile = 16;
    TIFFSetField(tif, TIFFTAG_TILEWIDTH, tile);
    TIFFSetField(tif, TIFFTAG_TILELENGTH, tile);
    const std::uint32_t per = separate ? 1 : channels;
    std::vector<float> block(tile * tile * per);
    for (std::uint32_t s = 0; s < (separate ? channels : 1); ++s)
      for (std::uint32_t y = 0; y < rows; y += tile)
        for (std::uint32_t x = 0; x < cols; x += tile) {
          std::fill(block.begin(), block.end(), -1.0f);
          for (std::uint32_t r = 0; r < tile && y + r < rows; ++r)
            for (std::uint32_t c = 0; c < tile && x + c < cols; ++c)
              for (std::uint32_t k = 0; k < per; ++k)
                block[(r * tile + c) * per + k] =
                    data[(separate ? s : k) * plane + (y + r) * cols + x + c];
          TIFFWriteTile(tif, block.data(), x, y, 0, static_cast<std::uint16_t>(s));
        }
  } else {
    TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, 3);
    std::vector<float> row(cols * channels);
    if (separate) {
      for (std::uint32_t s = 0; s < channels; ++s)
        for (std::uint32_t r = 0; r < rows; ++r) {
          std::memcpy(row.data(), data + s * plane + r * cols, cols * sizeof(float));
          TIFFWriteScanline(tif, row.data(), r, static_cast<std::uint16_t>(s));
        }
    } else {
      for (std::uint32_t r = 0; r < rows; ++r) {
        for (std::uint32_t c = 0; c < cols; ++c)
          for (std::uint32_t k = 0; k < channels; ++k)
            row[c * channels + k] = data[k * plane + r * cols + c];
        TIFFWriteScanline(tif, row.data(), r, 0);
      }
    }
  }
  TIFFClose(tif);
}

TEST_F(ImageFormats, TiffReadsPlanarAndTiledFloatFiles) {
  const Buffer image = pattern(ScalarType::Float32, {3, 37, 21});
  for (bool separate : {false, true})
    for (bool tiled : {false, true}) {
      SCOPED_TRACE(std::string(separate ? "planar" : "contiguous") + (tiled ? " tiled" : ""));
      write_raw_tiff(path("raw.tif"), image, separate, tiled);
      expect_identical(read_image(path("raw.tif")), image);
    }
}

TEST_F(ImageFormats, NpyRoundTripsEveryTypeAndRanksOneToFour) {
  for (ScalarType type :
       {ScalarType::Bool, ScalarType::UInt8, ScalarType::UInt16, ScalarType::Int16,
        ScalarType::Int32, ScalarType::Int64, ScalarType::Float32, ScalarType::Float64})
    for (auto extents :
         {std::vector<std::int64_t>{11}, {5, 7}, {3, 4, 5}, {2, 3, 4, 5}, {0, 3}, {1, 1, 1, 1}}) {
      const Buffer array = pattern(type, extents);
      write_image(array, path("a.npy"));
      SCOPED_TRACE(array.describe());
      expect_identical(read_image(path("a.npy")), array);
      // numpy's own rule: the data starts on a multiple of 64 bytes.
      EXPECT_EQ((bytes_of(path("a.npy")).size() - array.bytes()) % 64, 0u);
    }
}

/// A .npy file made of its parts, as numpy or another writer could make it.
std::string npy_bytes(int major, const std::string& header, const std::string& data) {
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(major);
  out += '\0';
  const std::size_t n = header.size(), length_bytes = major == 1 ? 2 : 4;
  for (std::size_t i = 0; i < length_bytes; ++i)
    out += static_cast<char>(n >> (8 * i) & 0xff);
  return out + header + data;
}

TEST_F(ImageFormats, NpyReadsBigEndianFortranOrderAndEveryVersion) {
  // Big-endian int32 [2][3]: 0..5.
  std::string be;
  for (int v = 0; v < 6; ++v)
    be += std::string{'\0', '\0', '\0', static_cast<char>(v)};
  for (int major : {1, 2, 3}) {
    write_bytes(
        path("be.npy"),
        npy_bytes(major, "{'descr': '>i4', 'fortran_order': False, 'shape': (2, 3), }\n", be));
    const Buffer a = read_image(path("be.npy"));
    ASSERT_EQ(a.describe(), "int32[2][3]");
    for (int i = 0; i < 6; ++i)
      EXPECT_EQ(a.data<std::int32_t>()[i], i);
  }
  // Big-endian float64 and uint16.
  write_bytes(path("f8.npy"),
              npy_bytes(1, "{\"descr\": \">f8\", \"fortran_order\": False, \"shape\": (1,)}\n",
                        std::string("\x3f\xf8\0\0\0\0\0\0", 8)));
  EXPECT_EQ(read_image(path("f8.npy")).data<double>()[0], 1.5);
  write_bytes(path("u2.npy"),
              npy_bytes(1, "{'descr': '>u2', 'fortran_order': False, 'shape': (1,), }\n",
                        std::string("\x12\x34", 2)));
  EXPECT_EQ(read_image(path("u2.npy")).data<std::uint16_t>()[0], 0x1234);
  // Fortran order [2][3][2]: element (i, j, k) stored at i + 2 * (j + 3 * k).
  std::string fortran;
  for (int k = 0; k < 2; ++k)
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 2; ++i)
        fortran += static_cast<char>(100 * i + 10 * j + k);
  write_bytes(
      path("f.npy"),
      npy_bytes(1, "{'descr': '|u1', 'fortran_order': True, 'shape': (2, 3, 2), }\n", fortran));
  const Buffer f = read_image(path("f.npy"));
  ASSERT_EQ(f.describe(), "uint8[2][3][2]");
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 2; ++k)
        EXPECT_EQ(f.data<std::uint8_t>()[(i * 3 + j) * 2 + k], 100 * i + 10 * j + k);
}

TEST_F(ImageFormats, FormatIsChosenByContentOnReadAndByExtensionOnWrite) {
  const Buffer image = pattern(ScalarType::UInt16, {3, 4, 5});
  write_image(image, path("really_a_tiff.tif"));
  fs::rename(path("really_a_tiff.tif"), path("named.png"));
  expect_identical(read_image(path("named.png")), image);
  EXPECT_EQ(format_for_path("x/y.TIFF"), ImageFormat::Tiff);
  EXPECT_EQ(format_for_path("y.jpeg"), ImageFormat::Jpeg);
  try {
    write_image(image, path("out.bmp"));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("unknown extension '.bmp'"));
    EXPECT_THAT(e.what(), HasSubstr("out.bmp"));
  }
  EXPECT_THROW(write_image(image, path("no_extension")), Error);
}

TEST_F(ImageFormats, UnsupportedWritesAreErrors) {
  const auto message_of = [](const Buffer& b, const std::string& file) {
    try {
      write_image(b, file);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(message_of(Buffer(ScalarType::Float32, {4, 4}), path("a.jpg")),
              HasSubstr("is not uint8"));
  EXPECT_THAT(message_of(Buffer(ScalarType::UInt8, {4, 4, 4}), path("a.jpg")),
              HasSubstr("unsupported layout uint8[4][4][4]"));
  EXPECT_THAT(message_of(Buffer(ScalarType::Int64, {4, 4}), path("a.tif")),
              HasSubstr("no TIFF sample type"));
  EXPECT_THAT(message_of(Buffer(ScalarType::Float32, {5, 4, 4}), path("a.tif")),
              HasSubstr("unsupported layout"));
  EXPECT_THAT(message_of(Buffer(ScalarType::UInt8, {4, 4}), path("none/a.npy")),
              HasSubstr("cannot create .npy file"));
}

/// Every bad file gives one line that names it.
void expect_one_line_naming(const std::string& message, const std::string& file,
                            const std::string& words) {
  EXPECT_THAT(message, HasSubstr(file));
  EXPECT_THAT(message, HasSubstr(words));
  EXPECT_THAT(message, Not(HasSubstr("\n")));
}

TEST_F(ImageFormats, BadFilesAreOneLineErrors) {
  expect_one_line_naming(read_error(path("missing.png")), path("missing.png"),
                         "No such file or directory");
  write_bytes(path("text.png"), "just some text, not an image\n");
  expect_one_line_naming(read_error(path("text.png")), path("text.png"), "is not an image");
  write_bytes(path("empty.tif"), "");
  expect_one_line_naming(read_error(path("empty.tif")), path("empty.tif"), "the file is empty");
  expect_one_line_naming(read_error(dir_string()), dir_string(), "");

  const auto truncate = [&](const std::string& whole, const std::string& cut) {
    const std::string bytes = bytes_of(whole);
    write_bytes(cut, bytes.substr(0, bytes.size() * 2 / 3));
  };
  write_image(pattern(ScalarType::UInt8, {3, 40, 50}), path("whole.png"));
  truncate(path("whole.png"), path("cut.png"));
  expect_one_line_naming(read_error(path("cut.png")), path("cut.png"), "cannot read PNG file");

  // One byte changed inside the image data: the chunk's CRC-32 catches it
  // (read_png skips zlib's Adler-32, which would only repeat the check).
  std::string flipped = bytes_of(path("whole.png"));
  flipped[flipped.size() / 2] = static_cast<char>(flipped[flipped.size() / 2] ^ 0x10);
  write_bytes(path("flipped.png"), flipped);
  expect_one_line_naming(read_error(path("flipped.png")), path("flipped.png"), "CRC");

  write_image(pattern(ScalarType::UInt8, {3, 40, 50}), path("whole.jpg"));
  truncate(path("whole.jpg"), path("cut.jpg"));
  expect_one_line_naming(read_error(path("cut.jpg")), path("cut.jpg"), "cannot read JPEG file");
  write_bytes(path("head.jpg"), "\xff\xd8\xff");
  expect_one_line_naming(read_error(path("head.jpg")), path("head.jpg"), "cannot read JPEG file");

  write_image(pattern(ScalarType::Float32, {3, 400, 50}), path("whole.tif"));
  truncate(path("whole.tif"), path("cut.tif"));
  expect_one_line_naming(read_error(path("cut.tif")), path("cut.tif"), "cannot read TIFF file");
  write_bytes(path("head.tif"), std::string("II*\0\x08\0\0\0", 8));
  expect_one_line_naming(read_error(path("head.tif")), path("head.tif"), "cannot read TIFF file");

  write_image(pattern(ScalarType::Int32, {30, 40}), path("whole.npy"));
  truncate(path("whole.npy"), path("cut.npy"));
  expect_one_line_naming(read_error(path("cut.npy")), path("cut.npy"), "the data is truncated");
  write_bytes(path("f2.npy"),
              npy_bytes(1, "{'descr': '<f2', 'fortran_order': False, 'shape': (1,), }\n", "ab"));
  expect_one_line_naming(read_error(path("f2.npy")), path("f2.npy"), "'<f2' has no trapeze type");
  write_bytes(path("bad.npy"), npy_bytes(1, "{'descr': '<f4', 'shape': (1,)\n", "abcd"));
  expect_one_line_naming(read_error(path("bad.npy")), path("bad.npy"), "malformed");
}

TEST_F(ImageFormats, AHeaderClaimingHugeSizesIsAnErrorNotACrash) {
  write_bytes(
      path("huge.npy"),
      npy_bytes(1,
                "{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999, 99999999999), }\n",
                ""));
  EXPECT_THAT(read_error(path("huge.npy")), HasSubstr("too large"));
}

} // namespace
} // namespace trapeze
