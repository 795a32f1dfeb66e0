// Dense typed buffers.
#include "trapeze/buffer.h"

#include "trapeze/error.h"
#include "trapeze/pipeline.h"

#include <cstdlib>
#include <cstring>

namespace trapeze {

Buffer::Buffer(ScalarType type, std::vector<std::int64_t> extents)
    : type_(type), extents_(std::move(extents)) {
  for (std::size_t d = 0; d < extents_.size(); ++d)
    if (extents_[d] < 0)
      throw Error("buffer dimension " + std::to_string(d) + " has negative extent " +
                  std::to_string(extents_[d]));
  const std::optional<std::int64_t> bytes = buffer_bytes(type_, extents_);
  if (!bytes)
    throw Error("a buffer " + describe() + " would be larger than " +
                std::to_string(max_buffer_bytes) + " bytes");
  // 64-byte alignment lets generated code use aligned vector loads.
  const auto n = static_cast<std::size_t>((*bytes + 63) / 64 * 64);
  void* p = std::aligned_alloc(64, n == 0 ? 64 : n);
  if (!p)
    throw Error("out of memory: cannot allocate " + std::to_string(n) + " bytes for a buffer " +
                describe());
  std::memset(p, 0, n == 0 ? 64 : n);
  storage_ =
      std::shared_ptr<std::byte>(static_cast<std::byte*>(p), [](std::byte* q) { std::free(q); });
}

std::int64_t Buffer::size() const {
  std::int64_t n = 1;
  for (std::int64_t e : extents_)
    n *= e;
  return n;
}

std::size_t Buffer::bytes() const {
  return static_cast<std::size_t>(size()) * static_cast<std::size_t>(byte_size(type_));
}

std::int64_t Buffer::offset(std::initializer_list<std::int64_t> index) const {
  if (index.size() != extents_.size())
    throw Error("buffer " + describe() + " indexed with " + std::to_string(index.size()) +
                " indices");
  std::int64_t off = 0;
  std::size_t d = 0;
  for (std::int64_t i : index) {
    if (i < 0 || i >= extents_[d])
      throw Error("index " + std::to_string(i) + " of dimension " + std::to_string(d) +
                  " is outside buffer " + describe());
    off = off * extents_[d] + i;
    ++d;
  }
  return off;
}

double Buffer::get_as_double(std::int64_t i) const {
  const void* p = raw();
  switch (type_) {
  case ScalarType::Bool: return static_cast<const bool*>(p)[i] ? 1.0 : 0.0;
  case ScalarType::UInt8: return static_cast<const std::uint8_t*>(p)[i];
  case ScalarType::UInt16: return static_cast<const std::uint16_t*>(p)[i];
  case ScalarType::Int16: return static_cast<const std::int16_t*>(p)[i];
  case ScalarType::Int32: return static_cast<const std::int32_t*>(p)[i];
  case ScalarType::Int64: return static_cast<double>(static_cast<const std::int64_t*>(p)[i]);
  case ScalarType::Float32: return static_cast<const float*>(p)[i];
  case ScalarType::Float64: return static_cast<const double*>(p)[i];
  }
  TRAPEZE_ASSERT(false, "unknown type");
}

void Buffer::set_from_double(std::int64_t i, double v) {
  void* p = raw();
  switch (type_) {
  case ScalarType::Bool: static_cast<bool*>(p)[i] = v != 0; return;
  case ScalarType::UInt8: static_cast<std::uint8_t*>(p)[i] = static_cast<std::uint8_t>(v); return;
  case ScalarType::UInt16:
    static_cast<std::uint16_t*>(p)[i] = static_cast<std::uint16_t>(v);
    return;
  case ScalarType::Int16: static_cast<std::int16_t*>(p)[i] = static_cast<std::int16_t>(v); return;
  case ScalarType::Int32: static_cast<std::int32_t*>(p)[i] = static_cast<std::int32_t>(v); return;
  case ScalarType::Int64: static_cast<std::int64_t*>(p)[i] = static_cast<std::int64_t>(v); return;
  case ScalarType::Float32: static_cast<float*>(p)[i] = static_cast<float>(v); return;
  case ScalarType::Float64: static_cast<double*>(p)[i] = v; return;
  }
}

Buffer Buffer::clone() const {
  Buffer b(type_, extents_);
  if (bytes() > 0) std::memcpy(b.raw(), raw(), bytes());
  return b;
}

std::string Buffer::describe() const {
  std::string s(type_name(type_));
  for (std::int64_t e : extents_)
    s += "[" + std::to_string(e) + "]";
  return s;
}

void Buffer::check_type(ScalarType t) const {
  if (t != type_) throw Error("buffer " + describe() + " accessed as " + std::string(type_name(t)));
}

} // namespace trapeze
