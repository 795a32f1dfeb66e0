// NumPy .npy files <-> buffers of any rank.
//
// The format (numpy.lib.format) is a magic string, a version, a header that is
// a Python dict literal of three keys, and the raw array. Debian packages no
// maintained C or C++ library for it, and reading that header takes a small
// parser of its own: the literal numpy writes, with the few spellings other
// writers use (either quote, spaces, a trailing comma).
#include "image_codecs.h"

#include "trapeze/pipeline.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace trapeze::image_codecs {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicBytes = 6;

/// The header's three keys.
struct NpyHeader {
  std::string descr;
  bool fortran_order = false;
  std::vector<std::int64_t> shape;
};

/// A reader of the header's dict literal; every failure names what it expected.
class HeaderParser {
public:
  HeaderParser(const std::string& text, const std::string& what) : text_(text), what_(what) {}

  NpyHeader parse() {
    NpyHeader h;
    bool descr = false, order = false, shape = false;
    expect('{');
    while (!peek('}')) {
      const std::string key = string_literal();
      expect(':');
      if (key == "descr") {
        if (peek('[')) fail("a structured dtype is not supported; trapeze reads plain arrays");
        h.descr = string_literal();
        descr = true;
      } else if (key == "fortran_order") {
        h.fortran_order = boolean();
        order = true;
      } else if (key == "shape") {
        h.shape = tuple();
        shape = true;
      } else {
        fail("its header has an unknown key '" + key + "'");
      }
      if (!peek('}')) expect(',');
    }
    if (!descr || !order || !shape) fail("its header lacks 'descr', 'fortran_order' or 'shape'");
    return h;
  }

private:
  [[noreturn]] void fail(const std::string& message) const { throw Error(what_ + ": " + message); }
  void skip_space() {
    while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\n' || text_[at_] == '\t'))
      ++at_;
  }
  bool peek(char c) {
    skip_space();
    return at_ < text_.size() && text_[at_] == c;
  }
  void expect(char c) {
    if (!peek(c)) fail(std::string("its header is malformed (expected '") + c + "')");
    ++at_;
  }
  std::string string_literal() {
    skip_space();
    if (at_ >= text_.size() || (text_[at_] != '\'' && text_[at_] != '"'))
      fail("its header is malformed (expected a string)");
    const char quote = text_[at_++];
    const std::size_t end = text_.find(quote, at_);
    if (end == std::string::npos) fail("its header is malformed (an unterminated string)");
    std::string s = text_.substr(at_, end - at_);
    at_ = end + 1;
    return s;
  }
  bool boolean() {
    skip_space();
    for (const auto& [word, value] : {std::pair{"True", true}, std::pair{"False", false}})
      if (text_.compare(at_, std::strlen(word), word) == 0) {
        at_ += std::strlen(word);
        return value;
      }
    fail("its header is malformed (expected True or False)");
  }
  std::vector<std::int64_t> tuple() {
    expect('(');
    std::vector<std::int64_t> values;
    while (!peek(')')) {
      skip_space();
      std::int64_t v = 0;
      bool digits = false;
      while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') {
        if (v > (INT64_MAX - 9) / 10) fail("its shape has an extent beyond int64");
        v = v * 10 + (text_[at_++] - '0');
        digits = true;
      }
      if (at_ < text_.size() && text_[at_] == 'L') ++at_; // Python 2 longs
      if (!digits) fail("its header is malformed (expected an extent in 'shape')");
      values.push_back(v);
      if (!peek(')')) expect(',');
    }
    ++at_;
    return values;
  }

  const std::string& text_;
  const std::string& what_;
  std::size_t at_ = 0;
};

/// The trapeze type of a dtype string ("<f4") and whether its bytes need
/// swapping on this host.
struct NpyType {
  ScalarType type;
  bool swap;
};

std::optional<NpyType> npy_type(const std::string& descr) {
  if (descr.size() < 3) return std::nullopt;
  const char order = descr[0];
  const std::string code = descr.substr(1);
  static const std::pair<const char*, ScalarType> codes[] = {
      {"b1", ScalarType::Bool},    {"u1", ScalarType::UInt8},   {"u2", ScalarType::UInt16},
      {"i2", ScalarType::Int16},   {"i4", ScalarType::Int32},   {"i8", ScalarType::Int64},
      {"f4", ScalarType::Float32}, {"f8", ScalarType::Float64},
  };
  for (const auto& [name, type] : codes)
    if (code == name) {
      const bool little = std::endian::native == std::endian::little;
      if (order == '<' || order == '|' || order == '=')
        return NpyType{type, order == '<' && !little};
      if (order == '>') return NpyType{type, little && byte_size(type) > 1};
      return std::nullopt;
    }
  return std::nullopt;
}

/// The dtype string numpy writes for `type` in this host's byte order.
std::string npy_descr(ScalarType type) {
  const char order = byte_size(type) == 1                         ? '|'
                     : std::endian::native == std::endian::little ? '<'
                                                                  : '>';
  switch (type) {
  case ScalarType::Bool: return std::string(1, order) + "b1";
  case ScalarType::UInt8: return std::string(1, order) + "u1";
  case ScalarType::UInt16: return std::string(1, order) + "u2";
  case ScalarType::Int16: return std::string(1, order) + "i2";
  case ScalarType::Int32: return std::string(1, order) + "i4";
  case ScalarType::Int64: return std::string(1, order) + "i8";
  case ScalarType::Float32: return std::string(1, order) + "f4";
  case ScalarType::Float64: return std::string(1, order) + "f8";
  }
  TRAPEZE_ASSERT(false, "unknown scalar type");
}

void swap_bytes(unsigned char* data, std::int64_t count, int size) {
  for (std::int64_t i = 0; i < count; ++i)
    std::reverse(data + i * size, data + (i + 1) * size);
}

/// C-order copy of a Fortran-order array: element (i0, i1, ...) lies at
/// i0 + e0 * (i1 + e1 * ...) in `from`.
void transpose_fortran(const unsigned char* from, unsigned char* to,
                       const std::vector<std::int64_t>& shape, int size) {
  const std::size_t rank = shape.size();
  std::vector<std::int64_t> c_stride(rank, 1), index(rank, 0);
  for (std::size_t d = rank; d-- > 1;)
    c_stride[d - 1] = c_stride[d] * shape[d];
  std::int64_t n = 1;
  for (std::int64_t e : shape)
    n *= e;
  std::int64_t at = 0; // the C-order offset of `index`
  for (std::int64_t i = 0; i < n; ++i) {
    std::memcpy(to + at * size, from + i * size, static_cast<std::size_t>(size));
    for (std::size_t d = 0; d < rank; ++d) { // next index, first dimension fastest
      ++index[d];
      at += c_stride[d];
      if (index[d] < shape[d]) break;
      at -= index[d] * c_stride[d];
      index[d] = 0;
    }
  }
}

std::uint32_t little_endian(const unsigned char* p, int bytes) {
  std::uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i)
    v = v << 8 | p[i];
  return v;
}

} // namespace

Buffer read_npy_file(const std::string& path) {
  FilePtr file(std::fopen(path.c_str(), "rb"));
  if (!file) throw Error("cannot open .npy file " + quoted(path) + ": " + std::strerror(errno));
  const std::string what = "cannot read .npy file " + quoted(path);
  unsigned char prelude[12] = {};
  if (std::fread(prelude, 1, 8, file.get()) != 8 || std::memcmp(prelude, kMagic, kMagicBytes) != 0)
    throw Error(what + ": its first bytes are not the .npy magic string");
  const int major = prelude[6];
  if (major < 1 || major > 3)
    throw Error(what + ": format version " + std::to_string(major) + "." +
                std::to_string(prelude[7]) + " is not 1.0, 2.0 or 3.0");
  const int length_bytes = major == 1 ? 2 : 4;
  if (std::fread(prelude + 8, 1, static_cast<std::size_t>(length_bytes), file.get()) !=
      static_cast<std::size_t>(length_bytes))
    throw Error(what + ": the file is truncated in its header");
  const std::uint32_t header_length = little_endian(prelude + 8, length_bytes);
  if (header_length > (1u << 20)) // numpy itself refuses headers beyond 10 KB by default
    throw Error(what + ": its header claims " + std::to_string(header_length) + " bytes");
  std::string text(header_length, '\0');
  if (std::fread(text.data(), 1, header_length, file.get()) != header_length)
    throw Error(what + ": the file is truncated in its header");
  const NpyHeader header = HeaderParser(text, what).parse();

  const std::optional<NpyType> type = npy_type(header.descr);
  if (!type)
    throw Error(what + ": its dtype '" + header.descr +
                "' has no trapeze type (b1, u1, u2, i2, i4, i8, f4, f8 in either byte order)");
  const int size = byte_size(type->type);
  std::int64_t count = 1;
  for (std::int64_t e : header.shape)
    if (__builtin_mul_overflow(count, e, &count) || count > max_buffer_bytes / size)
      throw Error(what + ": its shape is too large");
  // Compare with the file before allocating what a header may merely claim.
  const long data_start = std::ftell(file.get());
  std::fseek(file.get(), 0, SEEK_END);
  const long file_end = std::ftell(file.get());
  std::fseek(file.get(), data_start, SEEK_SET);
  const std::int64_t expected = count * size, present = file_end - data_start;
  if (present != expected)
    throw Error(what + ": " +
                (present < expected ? "the data is truncated" : "it has bytes after the data") +
                " (" + std::to_string(present) + " bytes where its shape needs " +
                std::to_string(expected) + ")");

  Buffer array(type->type, header.shape);
  auto* bytes = static_cast<unsigned char*>(array.raw());
  std::vector<unsigned char> fortran;
  unsigned char* target = bytes;
  if (header.fortran_order && header.shape.size() > 1) {
    fortran.resize(static_cast<std::size_t>(expected));
    target = fortran.data();
  }
  if (std::fread(target, 1, static_cast<std::size_t>(expected), file.get()) !=
      static_cast<std::size_t>(expected))
    throw Error(what + ": the data is truncated");
  if (type->swap) swap_bytes(target, count, size);
  if (target != bytes) transpose_fortran(target, bytes, header.shape, size);
  if (type->type == ScalarType::Bool) // any nonzero byte is true; a C++ bool must be 0 or 1
    for (std::int64_t i = 0; i < count; ++i)
      bytes[i] = bytes[i] != 0;
  return array;
}

void write_npy_file(const Buffer& image, const std::string& path) {
  const std::string what = "cannot write .npy file " + quoted(path);
  if (!image.defined()) throw Error(what + ": the buffer is empty");
  std::string shape = "(";
  for (std::int64_t e : image.extents())
    shape += std::to_string(e) + ", ";
  if (image.dimensions() > 1) shape.resize(shape.size() - 2);
  if (image.dimensions() == 1) shape.resize(shape.size() - 1); // "(5,)"
  shape += ")";
  std::string header = "{'descr': '" + npy_descr(image.type()) +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // numpy pads the header with spaces and a newline so that the data starts on
  // a multiple of 64 bytes; version 2.0 only when the length needs 4 bytes.
  const bool v2 = header.size() + 1 + 10 + 64 > 65535;
  const std::size_t prelude = v2 ? 12 : 10;
  header.append((64 - (prelude + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out(kMagic, kMagicBytes);
  out += static_cast<char>(v2 ? 2 : 1);
  out += '\0';
  const std::size_t length = header.size();
  for (std::size_t i = 0; i < prelude - 8; ++i)
    out += static_cast<char>(length >> (8 * i) & 0xff);
  out += header;

  FilePtr file(std::fopen(path.c_str(), "wb"));
  if (!file) throw Error("cannot create .npy file " + quoted(path) + ": " + std::strerror(errno));
  const auto bytes = static_cast<std::size_t>(image.size() * byte_size(image.type()));
  if (std::fwrite(out.data(), 1, out.size(), file.get()) != out.size() ||
      std::fwrite(image.raw(), 1, bytes, file.get()) != bytes || std::fflush(file.get()) != 0)
    throw Error(what + ": " + std::strerror(errno));
}

} // namespace trapeze::image_codecs
