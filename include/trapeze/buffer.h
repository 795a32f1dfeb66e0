// Typed multi-dimensional buffers: dense ones of their own, or views of
// memory the caller owns, with any strides.
#pragma once

#include "trapeze/type.h"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace trapeze {

/// An array of one ScalarType. Element (i_0, ..., i_n-1) lies at element
/// offset sum(i_d * stride_d) from data(). A buffer made with the constructor
/// owns dense storage (the last dimension contiguous, 64-byte aligned,
/// zeroed); Buffer::view wraps memory the caller owns, with any strides.
/// Copies share the memory (like a shared_ptr); use clone() for a deep copy.
class Buffer {
public:
  Buffer() = default;
  /// Dense storage of its own.
  Buffer(ScalarType type, std::vector<std::int64_t> extents);

  /// A view of memory the caller owns and keeps alive as long as the view or
  /// a copy of it is used (nothing is copied). `data` points at element
  /// (0, ..., 0); `strides` are in elements, one per extent, of any sign and
  /// in any order: an interleaved RGB image of H rows and W columns viewed as
  /// [3][H][W] has strides {1, 3 * W, 3}; rows padded to P elements, {P, 1}.
  /// A view of const memory is read-only: it can be a pipeline's input, not
  /// its output. Throws trapeze::Error on a null pointer with elements,
  /// negative extents, a stride count that differs from the extent count, or
  /// a layout whose byte offsets overflow.
  static Buffer view(ScalarType type, void* data, std::vector<std::int64_t> extents,
                     std::vector<std::int64_t> strides);
  static Buffer view(ScalarType type, const void* data, std::vector<std::int64_t> extents,
                     std::vector<std::int64_t> strides);
  /// The strides of dense storage of these extents (last dimension contiguous).
  static std::vector<std::int64_t> dense_strides(const std::vector<std::int64_t>& extents);

  bool defined() const { return storage_ != nullptr; }
  ScalarType type() const { return type_; }
  const std::vector<std::int64_t>& extents() const { return extents_; }
  /// In elements, one per dimension.
  const std::vector<std::int64_t>& strides() const { return strides_; }
  int dimensions() const { return static_cast<int>(extents_.size()); }
  std::int64_t extent(int dim) const { return extents_.at(static_cast<std::size_t>(dim)); }
  std::int64_t stride(int dim) const { return strides_.at(static_cast<std::size_t>(dim)); }
  /// Number of elements.
  std::int64_t size() const;
  /// size() times the element size: the bytes the elements take when dense.
  std::size_t bytes() const;
  /// Whether the strides are dense_strides(extents()): element i of the
  /// array data() is the i-th element in row-major order.
  bool is_dense() const;
  /// False for views.
  bool owns_memory() const { return owns_; }
  /// False for views of const memory.
  bool writable() const { return writable_; }
  /// The lowest and one past the highest byte address an element occupies
  /// (equal when the buffer has no elements): two buffers whose spans are
  /// disjoint share no element.
  std::pair<const std::byte*, const std::byte*> byte_span() const;

  /// Element (0, ..., 0). The non-const forms throw trapeze::Error on a
  /// read-only view.
  void* raw();
  const void* raw() const { return storage_.get(); }

  /// Typed access; throws trapeze::Error if T is not the buffer's type.
  template <typename T> T* data() {
    check_type(type_of<T>);
    return static_cast<T*>(raw());
  }
  template <typename T> const T* data() const {
    check_type(type_of<T>);
    return static_cast<const T*>(raw());
  }
  /// Element offset of a point; throws trapeze::Error if it is outside the buffer.
  std::int64_t offset(std::initializer_list<std::int64_t> index) const;
  template <typename T> T& at(std::initializer_list<std::int64_t> index) {
    return data<T>()[offset(index)];
  }
  template <typename T> const T& at(std::initializer_list<std::int64_t> index) const {
    return data<T>()[offset(index)];
  }

  /// Element offset of the i-th element in row-major order of the extents
  /// (i itself when dense).
  std::int64_t element_offset(std::int64_t i) const;
  /// The i-th element in row-major order, converted to double; and the
  /// reverse (C conversion).
  double get_as_double(std::int64_t i) const;
  void set_from_double(std::int64_t i, double v);

  /// A dense deep copy of its own.
  Buffer clone() const;
  /// This buffer if it is dense, else clone().
  Buffer dense() const;
  /// Copies the elements of `source` (same type and extents, any layouts)
  /// into this buffer; throws trapeze::Error if they differ or this is read-only.
  void copy_from(const Buffer& source);
  /// "float32[3][64][80]", with the strides of a buffer that is not dense:
  /// "uint8[3][64][80] strides {1, 240, 3}".
  std::string describe() const;

private:
  void check_type(ScalarType t) const;
  ScalarType type_ = ScalarType::Float32;
  std::vector<std::int64_t> extents_;
  std::vector<std::int64_t> strides_;
  /// Element (0, ..., 0); an owning buffer's deleter frees the storage, a
  /// view's does nothing.
  std::shared_ptr<std::byte> storage_;
  bool owns_ = false;
  bool writable_ = false;
};

} // namespace trapeze
