// PNG reading and writing, integer <-> float conversion, synthetic images.
#include "support/temp_dir.h"
#include "trapeze/error.h"
#include "trapeze/image_io.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <png.h>

#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <unistd.h>
#include <vector>

namespace trapeze {
namespace {

using testing::HasSubstr;
namespace fs = std::filesystem;

using ImageIo = testing_support::TempDirTest;

/// A PNG written with libpng directly, to cover what write_png never writes
/// (palettes, low bit depths, interlacing, transparency chunks).
struct RawPng {
  int width = 0, height = 0, bit_depth = 8, color_type = PNG_COLOR_TYPE_GRAY;
  bool interlaced = false;
  std::vector<std::vector<png_byte>> rows; ///< packed, as stored in the file
  std::vector<png_color> palette;
  std::vector<png_byte> palette_alpha; ///< tRNS for palette images
};

bool write_raw_png_body(png_structp png, png_infop info, std::FILE* f, const RawPng* raw,
                        png_bytepp rows) {
  if (setjmp(png_jmpbuf(png))) return false;
  png_init_io(png, f);
  png_set_IHDR(png, info, static_cast<png_uint_32>(raw->width),
               static_cast<png_uint_32>(raw->height), raw->bit_depth, raw->color_type,
               raw->interlaced ? PNG_INTERLACE_ADAM7 : PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (!raw->palette.empty())
    png_set_PLTE(png, info, raw->palette.data(), static_cast<int>(raw->palette.size()));
  if (!raw->palette_alpha.empty())
    png_set_tRNS(png, info, raw->palette_alpha.data(), static_cast<int>(raw->palette_alpha.size()),
                 nullptr);
  png_write_info(png, info);
  png_set_interlace_handling(png);
  png_write_image(png, rows);
  png_write_end(png, info);
  return true;
}

void write_raw_png(const RawPng& raw, const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  std::vector<std::vector<png_byte>> copy = raw.rows;
  std::vector<png_bytep> pointers;
  for (auto& r : copy)
    pointers.push_back(r.data());
  const bool ok = write_raw_png_body(png, info, f, &raw, pointers.data());
  png_destroy_write_struct(&png, &info);
  std::fclose(f);
  ASSERT_TRUE(ok);
}

Buffer pattern(ScalarType type, std::vector<std::int64_t> extents) {
  SyntheticSpec spec;
  spec.type = type;
  spec.extents = std::move(extents);
  spec.lo = 0;
  spec.hi = type == ScalarType::UInt8 ? 255 : 65535;
  spec.seed = 7;
  return synthetic_image(spec);
}

void expect_same(const Buffer& a, const Buffer& b) {
  ASSERT_EQ(a.type(), b.type());
  ASSERT_EQ(a.extents(), b.extents()) << a.describe() << " vs " << b.describe();
  for (std::int64_t i = 0; i < a.size(); ++i)
    ASSERT_EQ(a.get_as_double(i), b.get_as_double(i)) << "element " << i;
}

TEST_F(ImageIo, RoundTripsEveryChannelCountAndDepth) {
  for (ScalarType type : {ScalarType::UInt8, ScalarType::UInt16})
    for (std::vector<std::int64_t> extents :
         {std::vector<std::int64_t>{7, 13}, {2, 7, 13}, {3, 7, 13}, {4, 7, 13}, {3, 1, 1}}) {
      const Buffer image = pattern(type, extents);
      const std::string file = path("image.png");
      write_png(image, file);
      SCOPED_TRACE(image.describe());
      expect_same(read_png(file), image);
    }
}

TEST_F(ImageIo, OneChannelPlanarImageReadsBackAsGray) {
  const Buffer image = pattern(ScalarType::UInt8, {1, 5, 6});
  write_png(image, path("gray.png"));
  const Buffer back = read_png(path("gray.png"));
  EXPECT_EQ(back.describe(), "uint8[5][6]");
  for (std::int64_t i = 0; i < image.size(); ++i)
    EXPECT_EQ(back.get_as_double(i), image.get_as_double(i));
}

TEST_F(ImageIo, SixteenBitValuesAreExact) {
  Buffer image(ScalarType::UInt16, {3, 2, 4});
  const std::uint16_t values[] = {0, 1, 255, 256, 257, 0x1234, 0xff00, 65534, 65535};
  for (std::int64_t i = 0; i < image.size(); ++i)
    image.data<std::uint16_t>()[i] = values[i % 9];
  write_png(image, path("wide.png"));
  expect_same(read_png(path("wide.png")), image);
}

TEST_F(ImageIo, SixteenBitSamplesAreBigEndianInTheFile) {
  RawPng raw;
  raw.width = 2;
  raw.height = 1;
  raw.bit_depth = 16;
  raw.rows = {{0x12, 0x34, 0xfe, 0x01}};
  write_raw_png(raw, path("be.png"));
  const Buffer image = read_png(path("be.png"));
  ASSERT_EQ(image.describe(), "uint16[1][2]");
  EXPECT_EQ(image.at<std::uint16_t>({0, 0}), 0x1234);
  EXPECT_EQ(image.at<std::uint16_t>({0, 1}), 0xfe01);
}

TEST_F(ImageIo, PaletteImagesAreExpanded) {
  RawPng raw;
  raw.width = 3;
  raw.height = 2;
  raw.color_type = PNG_COLOR_TYPE_PALETTE;
  raw.palette = {{10, 20, 30}, {200, 100, 0}, {1, 2, 3}};
  raw.rows = {{0, 1, 2}, {2, 2, 1}};
  write_raw_png(raw, path("palette.png"));
  const Buffer rgb = read_png(path("palette.png"));
  ASSERT_EQ(rgb.describe(), "uint8[3][2][3]");
  EXPECT_EQ(rgb.at<std::uint8_t>({0, 0, 0}), 10);
  EXPECT_EQ(rgb.at<std::uint8_t>({1, 0, 1}), 100);
  EXPECT_EQ(rgb.at<std::uint8_t>({2, 1, 0}), 3);

  raw.palette_alpha = {255, 128, 0};
  write_raw_png(raw, path("palette_alpha.png"));
  const Buffer rgba = read_png(path("palette_alpha.png"));
  ASSERT_EQ(rgba.describe(), "uint8[4][2][3]");
  EXPECT_EQ(rgba.at<std::uint8_t>({3, 0, 0}), 255);
  EXPECT_EQ(rgba.at<std::uint8_t>({3, 0, 1}), 128);
  EXPECT_EQ(rgba.at<std::uint8_t>({3, 1, 0}), 0);
  EXPECT_EQ(rgba.at<std::uint8_t>({0, 1, 2}), 200);
}

TEST_F(ImageIo, LowBitDepthGrayIsScaledToEightBits) {
  RawPng raw;
  raw.width = 8;
  raw.height = 1;
  raw.bit_depth = 1;
  raw.rows = {{0b10110000}};
  write_raw_png(raw, path("bits.png"));
  const Buffer image = read_png(path("bits.png"));
  ASSERT_EQ(image.describe(), "uint8[1][8]");
  const int expected[] = {1, 0, 1, 1, 0, 0, 0, 0};
  for (int i = 0; i < 8; ++i)
    EXPECT_EQ(image.at<std::uint8_t>({0, i}), expected[i] * 255) << i;
}

TEST_F(ImageIo, InterlacedImagesAreDeinterlaced) {
  for (int depth : {8, 16}) {
    RawPng raw;
    raw.width = 11;
    raw.height = 9;
    raw.bit_depth = depth;
    raw.color_type = PNG_COLOR_TYPE_RGB_ALPHA;
    raw.interlaced = true;
    const int bytes = depth / 8;
    for (int r = 0; r < raw.height; ++r) {
      std::vector<png_byte> row;
      for (int col = 0; col < raw.width; ++col)
        for (int c = 0; c < 4; ++c)
          for (int b = 0; b < bytes; ++b)
            row.push_back(static_cast<png_byte>(r * 31 + col * 7 + c * 50 + b * 3));
      raw.rows.push_back(row);
    }
    write_raw_png(raw, path("adam7.png"));
    const Buffer image = read_png(path("adam7.png"));
    ASSERT_EQ(image.dimensions(), 3);
    ASSERT_EQ(image.extent(0), 4);
    ASSERT_EQ(image.extent(1), 9);
    ASSERT_EQ(image.extent(2), 11);
    for (int r = 0; r < raw.height; ++r)
      for (int col = 0; col < raw.width; ++col)
        for (int c = 0; c < 4; ++c) {
          const auto byte = [&](int b) {
            return static_cast<png_byte>(r * 31 + col * 7 + c * 50 + b * 3);
          };
          const double expected = depth == 8 ? byte(0) : byte(0) * 256.0 + byte(1);
          ASSERT_EQ(image.get_as_double(image.offset({c, r, col})), expected)
              << "depth " << depth << " at " << c << "," << r << "," << col;
        }
  }
}

TEST_F(ImageIo, MissingFileIsAnErrorNamingIt) {
  const std::string file = path("does_not_exist.png");
  try {
    read_png(file);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot open PNG file"));
    EXPECT_THAT(e.what(), HasSubstr(file));
  }
}

TEST_F(ImageIo, GarbageFileIsAnErrorNamingIt) {
  const std::string file = path("garbage.png");
  std::ofstream(file) << "this is not an image at all";
  try {
    read_png(file);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("is not a PNG file"));
    EXPECT_THAT(e.what(), HasSubstr(file));
  }
  std::ofstream(path("short.png")) << "\x89PN";
  EXPECT_THROW(read_png(path("short.png")), Error);
}

TEST_F(ImageIo, TruncatedPngIsAnErrorNamingIt) {
  write_png(pattern(ScalarType::UInt8, {3, 20, 30}), path("whole.png"));
  std::ifstream in(path("whole.png"), std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string file = path("truncated.png");
  std::ofstream(file, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  try {
    read_png(file);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("cannot read PNG file"));
    EXPECT_THAT(e.what(), HasSubstr(file));
  }
}

TEST_F(ImageIo, UnsupportedWritesAreErrors) {
  const auto message_of = [](const Buffer& b, const std::string& file) {
    try {
      write_png(b, file);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string file = path("out.png");
  EXPECT_THAT(message_of(Buffer(ScalarType::Float32, {4, 4}), file),
              HasSubstr("is not uint8 or uint16"));
  EXPECT_THAT(message_of(Buffer(ScalarType::UInt8, {5, 4, 4}), file),
              HasSubstr("unsupported layout uint8[5][4][4]"));
  EXPECT_THAT(message_of(Buffer(ScalarType::UInt8, {4}), file), HasSubstr("unsupported layout"));
  EXPECT_THAT(message_of(Buffer(ScalarType::UInt8, {0, 4}), file), HasSubstr("cannot hold"));
  const std::string nowhere = path("no_such_dir/out.png");
  const std::string message = message_of(Buffer(ScalarType::UInt8, {4, 4}), nowhere);
  EXPECT_THAT(message, HasSubstr("cannot create PNG file"));
  EXPECT_THAT(message, HasSubstr(nowhere));
}

TEST(FloatConversion, ToFloatDividesByTheMaximum) {
  Buffer image(ScalarType::UInt8, {1, 3});
  image.data<std::uint8_t>()[1] = 51;
  image.data<std::uint8_t>()[2] = 255;
  const Buffer f = to_float(image);
  EXPECT_EQ(f.describe(), "float32[1][3]");
  EXPECT_EQ(f.data<float>()[0], 0.0f);
  EXPECT_EQ(f.data<float>()[1], 0.2f);
  EXPECT_EQ(f.data<float>()[2], 1.0f);
  Buffer wide(ScalarType::UInt16, {2});
  wide.data<std::uint16_t>()[1] = 65535;
  const Buffer d = to_float(wide, ScalarType::Float64);
  EXPECT_EQ(d.data<double>()[1], 1.0);
}

TEST(FloatConversion, FromFloatRoundsAndClamps) {
  Buffer f(ScalarType::Float32, {7});
  const float values[] = {-0.5f, 0.0f, 0.4f / 255, 0.6f / 255, 100.49f / 255, 1.0f, std::nanf("")};
  for (int i = 0; i < 7; ++i)
    f.data<float>()[i] = values[i];
  const Buffer b = from_float(f);
  const int expected[] = {0, 0, 0, 1, 100, 255, 0};
  for (int i = 0; i < 7; ++i)
    EXPECT_EQ(b.data<std::uint8_t>()[i], expected[i]) << i;
  f.data<float>()[0] = 7.0f;
  EXPECT_EQ(from_float(f, ScalarType::UInt16).data<std::uint16_t>()[0], 65535);
}

TEST(FloatConversion, RoundTripsEveryEightBitValue) {
  Buffer image(ScalarType::UInt8, {256});
  for (int i = 0; i < 256; ++i)
    image.data<std::uint8_t>()[i] = static_cast<std::uint8_t>(i);
  expect_same(from_float(to_float(image)), image);
}

TEST(FloatConversion, WrongTypesAreErrors) {
  try {
    to_float(Buffer(ScalarType::Float32, {2}));
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("expected a uint8 or uint16 image, got float32[2]"));
  }
  try {
    from_float(Buffer(ScalarType::UInt8, {2}));
    FAIL();
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), HasSubstr("expected a float32 or float64 image, got uint8[2]"));
  }
  EXPECT_THROW(from_float(Buffer(ScalarType::Float32, {2}), ScalarType::Int32), Error);
}

/// FNV-1a over the bytes of a buffer.
std::uint64_t checksum(const Buffer& b) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  const auto* p = static_cast<const unsigned char*>(b.raw());
  for (std::size_t i = 0; i < b.bytes(); ++i)
    h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

SyntheticSpec spec_of(ScalarType type, std::vector<std::int64_t> extents, double lo, double hi,
                      std::uint64_t seed = 1) {
  SyntheticSpec s;
  s.type = type;
  s.extents = std::move(extents);
  s.lo = lo;
  s.hi = hi;
  s.seed = seed;
  return s;
}

TEST(Synthetic, IsDeterministic) {
  // Fixed checksums: a change here changes every benchmark's input.
  EXPECT_EQ(checksum(synthetic_image(spec_of(ScalarType::Float32, {3, 17, 23}, 0, 1))),
            15991746583543931443ull);
  EXPECT_EQ(checksum(synthetic_image(spec_of(ScalarType::UInt16, {37, 61}, 0, 65535, 5))),
            3794459355685715772ull);
  const SyntheticSpec s = spec_of(ScalarType::Float32, {40, 50}, 0, 1, 3);
  expect_same(synthetic_image(s), synthetic_image(s));
  EXPECT_NE(checksum(synthetic_image(s)),
            checksum(synthetic_image(spec_of(ScalarType::Float32, {40, 50}, 0, 1, 4))));
}

struct Stats {
  double min = std::numeric_limits<double>::infinity(), max = -min;
};
Stats stats(const Buffer& b) {
  Stats s;
  for (std::int64_t i = 0; i < b.size(); ++i) {
    s.min = std::min(s.min, b.get_as_double(i));
    s.max = std::max(s.max, b.get_as_double(i));
  }
  return s;
}

TEST(Synthetic, FillsTheRange) {
  const Stats f = stats(synthetic_image(spec_of(ScalarType::Float32, {3, 37, 61}, 0, 1)));
  EXPECT_EQ(f.min, 0.0);
  EXPECT_EQ(f.max, 1.0);
  const Stats g = stats(synthetic_image(spec_of(ScalarType::Float64, {29, 31}, -2.5, 0.75)));
  EXPECT_EQ(g.min, -2.5);
  EXPECT_EQ(g.max, 0.75);
  const Stats i = stats(synthetic_image(spec_of(ScalarType::Int16, {64, 80}, -100, 923)));
  EXPECT_EQ(i.min, -100);
  EXPECT_EQ(i.max, 923);
  const Stats u = stats(synthetic_image(spec_of(ScalarType::UInt8, {1, 1}, 3, 9)));
  EXPECT_GE(u.min, 3);
  EXPECT_LE(u.max, 9);
  EXPECT_EQ(synthetic_image(spec_of(ScalarType::Float32, {0, 5}, 0, 1)).size(), 0);
}

TEST(Synthetic, IsNotConstantAndChannelsDiffer) {
  const Buffer b = synthetic_image(spec_of(ScalarType::Float32, {3, 37, 61}, 0, 1));
  const std::int64_t plane = 37 * 61;
  int distinct_channels = 0;
  for (std::int64_t i = 0; i < plane; ++i)
    if (b.get_as_double(i) != b.get_as_double(i + plane) ||
        b.get_as_double(i) != b.get_as_double(i + 2 * plane))
      ++distinct_channels;
  EXPECT_GT(distinct_channels, plane / 2);
  const Stats s = stats(b);
  EXPECT_LT(s.min, s.max);
}

TEST(Synthetic, NeighboursAreCorrelated) {
  // Mean |difference| of horizontal and vertical neighbours against that of
  // pixel pairs drawn from anywhere (a fixed linear congruential sequence).
  const std::int64_t rows = 64, cols = 80;
  const Buffer b = synthetic_image(spec_of(ScalarType::Float32, {rows, cols}, 0, 1));
  double neighbours = 0;
  std::int64_t n = 0;
  for (std::int64_t x = 0; x + 1 < rows; ++x)
    for (std::int64_t y = 0; y + 1 < cols; ++y) {
      neighbours += std::abs(b.at<float>({x, y}) - b.at<float>({x + 1, y}));
      neighbours += std::abs(b.at<float>({x, y}) - b.at<float>({x, y + 1}));
      n += 2;
    }
  neighbours /= static_cast<double>(n);
  double random_pairs = 0;
  std::uint64_t state = 12345;
  const auto next = [&] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::int64_t>((state >> 33) % static_cast<std::uint64_t>(rows * cols));
  };
  for (int k = 0; k < 4000; ++k)
    random_pairs += std::abs(b.data<float>()[next()] - b.data<float>()[next()]);
  random_pairs /= 4000;
  EXPECT_LT(neighbours, 0.25 * random_pairs) << neighbours << " vs " << random_pairs;
  // ...but the image is not smooth everywhere: it has sharp edges.
  double largest_step = 0;
  for (std::int64_t x = 0; x + 1 < rows; ++x)
    for (std::int64_t y = 0; y < cols; ++y)
      largest_step =
          std::max(largest_step, double(std::abs(b.at<float>({x, y}) - b.at<float>({x + 1, y}))));
  EXPECT_GT(largest_step, 10 * neighbours);
}

} // namespace
} // namespace trapeze
