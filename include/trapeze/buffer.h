// Typed, dense, multi-dimensional buffers (the last dimension contiguous).
#pragma once

#include "trapeze/type.h"

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

namespace trapeze {

/// A dense array of one ScalarType. Copies share the storage (like a
/// shared_ptr); use clone() for a deep copy. Storage is 64-byte aligned and
/// zero-initialised.
class Buffer {
public:
  Buffer() = default;
  Buffer(ScalarType type, std::vector<std::int64_t> extents);

  bool defined() const { return storage_ != nullptr; }
  ScalarType type() const { return type_; }
  const std::vector<std::int64_t>& extents() const { return extents_; }
  int dimensions() const { return static_cast<int>(extents_.size()); }
  std::int64_t extent(int dim) const { return extents_.at(static_cast<std::size_t>(dim)); }
  /// Number of elements.
  std::int64_t size() const;
  std::size_t bytes() const;

  void* raw() { return storage_.get(); }
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
  /// Linear offset of a point; throws trapeze::Error if it is outside the buffer.
  std::int64_t offset(std::initializer_list<std::int64_t> index) const;
  template <typename T> T& at(std::initializer_list<std::int64_t> index) {
    return data<T>()[offset(index)];
  }
  template <typename T> const T& at(std::initializer_list<std::int64_t> index) const {
    return data<T>()[offset(index)];
  }

  /// Element i (linear), converted to double; and the reverse (C conversion).
  double get_as_double(std::int64_t i) const;
  void set_from_double(std::int64_t i, double v);

  Buffer clone() const;
  /// "float32[3][64][80]".
  std::string describe() const;

private:
  void check_type(ScalarType t) const;
  ScalarType type_ = ScalarType::Float32;
  std::vector<std::int64_t> extents_;
  std::shared_ptr<std::byte> storage_;
};

} // namespace trapeze
