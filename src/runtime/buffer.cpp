// Typed buffers: dense storage of their own, or strided views.
#include "trapeze/buffer.h"

#include "trapeze/error.h"
#include "trapeze/pipeline.h"

#include <cstdlib>
#include <cstring>

namespace trapeze {

namespace {

void check_extents(const std::vector<std::int64_t>& extents) {
  for (std::size_t d = 0; d < extents.size(); ++d)
    if (extents[d] < 0)
      throw Error("buffer dimension " + std::to_string(d) + " has negative extent " +
                  std::to_string(extents[d]));
}

std::string shape_text(ScalarType type, const std::vector<std::int64_t>& extents) {
  std::string s(type_name(type));
  for (std::int64_t e : extents)
    s += "[" + std::to_string(e) + "]";
  return s;
}

std::string list_text(const std::vector<std::int64_t>& values) {
  std::string s;
  for (std::int64_t v : values)
    s += (s.empty() ? "" : ", ") + std::to_string(v);
  return "{" + s + "}";
}

// Calls f(offset_of_a, offset_of_b) for every element, in row-major order of
// the extents, stepping both layouts' offsets without multiplying.
template <typename F> void for_each_element(const std::vector<std::int64_t>& extents,
                                            const std::vector<std::int64_t>& stride_a,
                                            const std::vector<std::int64_t>& stride_b, F f) {
  const std::size_t dims = extents.size();
  for (std::int64_t e : extents)
    if (e == 0) return;
  if (dims == 0) return f(std::int64_t{0}, std::int64_t{0});
  std::vector<std::int64_t> index(dims, 0);
  std::int64_t a = 0, b = 0;
  const std::size_t last = dims - 1;
  for (;;) {
    for (std::int64_t i = 0; i < extents[last]; ++i)
      f(a + i * stride_a[last], b + i * stride_b[last]);
    // The next row: carry through the outer dimensions.
    std::size_t d = last;
    for (;;) {
      if (d == 0) return;
      --d;
      ++index[d];
      a += stride_a[d];
      b += stride_b[d];
      if (index[d] < extents[d]) break;
      a -= index[d] * stride_a[d];
      b -= index[d] * stride_b[d];
      index[d] = 0;
    }
  }
}

} // namespace

Buffer::Buffer(ScalarType type, std::vector<std::int64_t> extents)
    : type_(type), extents_(std::move(extents)), owns_(true), writable_(true) {
  check_extents(extents_);
  strides_ = dense_strides(extents_);
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

Buffer Buffer::view(ScalarType type, void* data, std::vector<std::int64_t> extents,
                    std::vector<std::int64_t> strides) {
  Buffer b = view(type, static_cast<const void*>(data), std::move(extents), std::move(strides));
  b.writable_ = true;
  return b;
}

Buffer Buffer::view(ScalarType type, const void* data, std::vector<std::int64_t> extents,
                    std::vector<std::int64_t> strides) {
  Buffer b;
  b.type_ = type;
  b.extents_ = std::move(extents);
  b.strides_ = std::move(strides);
  check_extents(b.extents_);
  if (b.strides_.size() != b.extents_.size())
    throw Error("a view " + shape_text(type, b.extents_) + " needs " +
                std::to_string(b.extents_.size()) + " strides, one per dimension; got " +
                std::to_string(b.strides_.size()));
  if (!buffer_bytes(type, b.extents_))
    throw Error("a view " + b.describe() + " would be larger than " +
                std::to_string(max_buffer_bytes) + " bytes");
  // Every element's byte offset must be representable (byte_span relies on it).
  std::int64_t reach = 0;
  for (std::size_t d = 0; d < b.extents_.size(); ++d) {
    std::int64_t step = 0;
    if (b.extents_[d] > 0 &&
        (__builtin_mul_overflow(b.extents_[d] - 1, b.strides_[d], &step) ||
         __builtin_mul_overflow(step < 0 ? -step : step, std::int64_t{byte_size(type)}, &step) ||
         __builtin_add_overflow(reach, step, &reach) || reach > max_buffer_bytes))
      throw Error("a view " + b.describe() + " reaches further than " +
                  std::to_string(max_buffer_bytes) + " bytes from its first element");
  }
  if (!data && b.size() > 0)
    throw Error("a view " + b.describe() + " of a null pointer; views need memory");
  // The caller owns the memory: the view's deleter does nothing.
  b.storage_ = std::shared_ptr<std::byte>(static_cast<std::byte*>(const_cast<void*>(data)),
                                          [](std::byte*) {});
  if (!b.storage_) b.storage_ = std::shared_ptr<std::byte>(nullptr, [](std::byte*) {});
  return b;
}

std::vector<std::int64_t> Buffer::dense_strides(const std::vector<std::int64_t>& extents) {
  std::vector<std::int64_t> strides(extents.size(), 1);
  for (std::size_t d = extents.size(); d-- > 1;)
    strides[d - 1] = strides[d] * extents[d];
  return strides;
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

bool Buffer::is_dense() const {
  // A dimension of extent 1 may have any stride: no two elements differ in it.
  std::int64_t expected = 1;
  for (std::size_t d = extents_.size(); d-- > 0;) {
    if (extents_[d] != 1 && strides_[d] != expected) return size() == 0;
    expected *= extents_[d];
  }
  return true;
}

std::pair<const std::byte*, const std::byte*> Buffer::byte_span() const {
  const auto* base = static_cast<const std::byte*>(raw());
  if (size() == 0) return {base, base};
  std::int64_t lo = 0, hi = 0;
  for (std::size_t d = 0; d < extents_.size(); ++d) {
    const std::int64_t step = (extents_[d] - 1) * strides_[d];
    (step < 0 ? lo : hi) += step;
  }
  const std::int64_t element = byte_size(type_);
  return {base + lo * element, base + (hi + 1) * element};
}

void* Buffer::raw() {
  if (defined() && !writable_)
    throw Error("buffer " + describe() + " is a read-only view (of const memory); it cannot be " +
                "written, e.g. as a pipeline's output");
  return storage_.get();
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
    off += i * strides_[d];
    ++d;
  }
  return off;
}

std::int64_t Buffer::element_offset(std::int64_t i) const {
  if (is_dense()) return i;
  std::int64_t off = 0;
  for (std::size_t d = extents_.size(); d-- > 0;) {
    off += (i % extents_[d]) * strides_[d];
    i /= extents_[d];
  }
  return off;
}

double Buffer::get_as_double(std::int64_t i) const {
  const void* p = raw();
  i = element_offset(i);
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
  i = element_offset(i);
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

void Buffer::copy_from(const Buffer& source) {
  if (source.type() != type_ || source.extents() != extents_)
    throw Error("cannot copy buffer " + source.describe() + " into buffer " + describe() +
                ": the types or extents differ");
  if (size() == 0) return;
  auto* to = static_cast<std::byte*>(raw());
  const auto* from = static_cast<const std::byte*>(source.raw());
  const std::int64_t element = byte_size(type_);
  if (is_dense() && source.is_dense()) {
    std::memmove(to, from, bytes());
    return;
  }
  for_each_element(extents_, strides_, source.strides(), [&](std::int64_t a, std::int64_t b) {
    std::memcpy(to + a * element, from + b * element, static_cast<std::size_t>(element));
  });
}

Buffer Buffer::clone() const {
  Buffer b(type_, extents_);
  b.copy_from(*this);
  return b;
}

Buffer Buffer::dense() const { return is_dense() ? *this : clone(); }

std::string Buffer::describe() const {
  std::string s = shape_text(type_, extents_);
  if (!is_dense()) s += " strides " + list_text(strides_);
  return s;
}

void Buffer::check_type(ScalarType t) const {
  if (t != type_) throw Error("buffer " + describe() + " accessed as " + std::string(type_name(t)));
}

} // namespace trapeze
