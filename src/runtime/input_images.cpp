// image_for_input: an image read from a file as the buffer a pipeline input
// declares (its rank, channel count and element type).
#include "trapeze/input_images.h"

#include "analysis/affine.h"
#include "trapeze/error.h"
#include "trapeze/image_io.h"

#include <cstring>
#include <limits>
#include <optional>

namespace trapeze {

namespace {

template <typename T> struct Tag { using type = T; };

/// Calls fn(Tag<T>{}) for the C++ type T of `t`.
template <typename F> decltype(auto) with_type(ScalarType t, F&& fn) {
  switch (t) {
  case ScalarType::Bool: return fn(Tag<bool>{});
  case ScalarType::UInt8: return fn(Tag<std::uint8_t>{});
  case ScalarType::UInt16: return fn(Tag<std::uint16_t>{});
  case ScalarType::Int16: return fn(Tag<std::int16_t>{});
  case ScalarType::Int32: return fn(Tag<std::int32_t>{});
  case ScalarType::Int64: return fn(Tag<std::int64_t>{});
  case ScalarType::Float32: return fn(Tag<float>{});
  case ScalarType::Float64: return fn(Tag<double>{});
  }
  TRAPEZE_ASSERT(false, "unknown scalar type");
}

/// The value of a constant extent (`3`), or nullopt when it reads a parameter.
std::optional<std::int64_t> constant_extent(const Expr& e) {
  const std::optional<analysis::AffineIndex> f = analysis::affine_index(e);
  if (!f || !f->is_constant()) return std::nullopt;
  return f->offset().floor();
}

/// `image` with the same elements and other extents (the same count).
Buffer reshaped(const Buffer& image, std::vector<std::int64_t> extents) {
  Buffer out(image.type(), std::move(extents));
  TRAPEZE_ASSERT(out.size() == image.size(), "a reshape keeps the element count");
  std::memcpy(out.raw(), image.raw(),
              static_cast<std::size_t>(image.size()) *
                  static_cast<std::size_t>(byte_size(image.type())));
  return out;
}

/// Every element of `image` converted to `type` by static_cast.
Buffer cast_to(const Buffer& image, ScalarType type) {
  Buffer out(type, image.extents());
  with_type(image.type(), [&](auto from) {
    using From = typename decltype(from)::type;
    with_type(type, [&](auto to) {
      using To = typename decltype(to)::type;
      const From* in = static_cast<const From*>(image.raw());
      To* dst = out.data<To>();
      for (std::int64_t i = 0; i < image.size(); ++i)
        dst[i] = static_cast<To>(in[i]);
    });
  });
  return out;
}

/// The smallest and largest value of an integer image.
std::pair<std::int64_t, std::int64_t> integer_range(const Buffer& image) {
  return with_type(image.type(), [&](auto tag) -> std::pair<std::int64_t, std::int64_t> {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_floating_point_v<T>) {
      TRAPEZE_ASSERT(false, "integer_range of a float image");
    } else {
      const T* in = static_cast<const T*>(image.raw());
      std::int64_t lo = std::numeric_limits<std::int64_t>::max();
      std::int64_t hi = std::numeric_limits<std::int64_t>::min();
      for (std::int64_t i = 0; i < image.size(); ++i) {
        lo = std::min<std::int64_t>(lo, in[i]);
        hi = std::max<std::int64_t>(hi, in[i]);
      }
      return {lo, hi};
    }
  });
}

std::pair<std::int64_t, std::int64_t> type_range(ScalarType t) {
  return with_type(t, [](auto tag) -> std::pair<std::int64_t, std::int64_t> {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>)
      return {0, 1};
    else if constexpr (std::is_floating_point_v<T>)
      return {0, 0};
    else
      return {std::numeric_limits<T>::min(), std::numeric_limits<T>::max()};
  });
}

} // namespace

Buffer image_for_input(const Pipeline& p, const std::string& name, const Buffer& any_image,
                       const std::string& source) {
  // The conversions read the elements in row-major order: a strided view is copied first.
  const Buffer image = any_image.dense();
  const ir::InputImage* input = p.input(name).get();
  const std::string declared =
      "input '" + name + "' of pipeline '" + p.name() + "' is " + input_declaration(*input);
  const auto channels_text = [](std::int64_t c) {
    return std::to_string(c) + (c == 1 ? " channel" : " channels");
  };

  // Shape: a gray image for a [1][rows][cols] input; the channel count of a colour one.
  const int dims = input->dimensions();
  // -1: the first extent reads a parameter, and infer_params checks it.
  const std::int64_t first = dims > 0 ? constant_extent(input->extents().front()).value_or(-1) : -1;
  Buffer shaped = image;
  if (image.dimensions() == 2 && dims == 3 && first == 1) {
    shaped = reshaped(image, {1, image.extent(0), image.extent(1)});
  } else if (image.dimensions() == 2 && dims == 3) {
    throw Error(declared + "; " + source + " has 1 channel (a gray image)");
  } else if (image.dimensions() == 3 && dims == 2) {
    throw Error(declared + " (one channel); " + source + " has " + channels_text(image.extent(0)));
  } else if (image.dimensions() == 3 && dims == 3 && first >= 0 && first != image.extent(0)) {
    throw Error(declared + "; " + source + " has " + channels_text(image.extent(0)));
  } else if (image.dimensions() != dims) {
    throw Error(declared + " (" + std::to_string(dims) + " dimensions); " + source + " is " +
                image.describe() + " (" + std::to_string(image.dimensions()) + ")");
  }

  // Type.
  const ScalarType from = shaped.type(), to = input->type();
  if (from == to) return shaped;
  if (is_float(to)) {
    if (from == ScalarType::UInt8 || from == ScalarType::UInt16) return to_float(shaped, to);
    return cast_to(shaped, to);
  }
  if (is_float(from))
    throw Error(declared + "; " + source + " holds " + std::string(type_name(from)) +
                " samples, which are not converted to integers (give an integer image or "
                "declare the input float)");
  const auto [lo, hi] = integer_range(shaped);
  const auto [min, max] = type_range(to);
  if (shaped.size() > 0 && (lo < min || hi > max))
    throw Error(declared + "; " + source + " holds values from " + std::to_string(lo) + " to " +
                std::to_string(hi) + ", beyond " + std::string(type_name(to)) + "'s [" +
                std::to_string(min) + ", " + std::to_string(max) + "]");
  return cast_to(shaped, to);
}

} // namespace trapeze
