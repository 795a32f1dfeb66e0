// Deterministic synthetic test images: smooth gradients, shapes with sharp
// edges and fine texture, the same bits on every machine.
//
// Everything is computed in double with +, -, *, / and floor only (correctly
// rounded in IEEE arithmetic, so identical everywhere) from an integer hash;
// no libm transcendental and no std:: random distribution (both differ between
// libraries). Contraction into fused multiply-adds would change the last bits
// on machines that have them, so src/runtime/CMakeLists.txt compiles this file
// with -ffp-contract=off.
#include "trapeze/image_io.h"

#include "trapeze/error.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace trapeze {

namespace {

/// The splitmix64 finaliser: a bijective, well-mixing 64-bit hash.
std::uint64_t mix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

std::uint64_t hash4(std::uint64_t seed, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  return mix64(mix64(mix64(mix64(seed) ^ a) ^ b) ^ c);
}

/// A hash as a double in [0, 1) (its top 53 bits).
double unit(std::uint64_t h) { return static_cast<double>(h >> 11) * 0x1.0p-53; }

/// Cubic smoothstep of t in [0, 1].
double smooth(double t) { return t * t * (3.0 - 2.0 * t); }

/// The per-image (and per-channel) constants of the picture.
class Picture {
public:
  Picture(std::uint64_t seed, std::int64_t rows, std::int64_t cols)
      : seed_(seed), rows_(static_cast<double>(rows)), cols_(static_cast<double>(cols)),
        scale_(static_cast<double>(std::min(rows, cols))) {}

  /// The unnormalised value of channel c at (x, y); roughly in [-0.6, 1.6].
  double value(std::int64_t c, std::int64_t x, std::int64_t y) const {
    const auto channel = static_cast<std::uint64_t>(c);
    // Per-channel variation, so that the channels of a colour image differ.
    const double p0 = unit(hash4(seed_, channel, 0xC0FFEEull, 0));
    const double p1 = unit(hash4(seed_, channel, 0xC0FFEEull, 1));
    const double p2 = unit(hash4(seed_, channel, 0xC0FFEEull, 2));

    const double xd = static_cast<double>(x), yd = static_cast<double>(y);
    const double u = (xd + 0.5) / rows_; // position in (0, 1), scales with the size
    const double v = (yd + 0.5) / cols_;

    // Smooth part: a tilted gradient and a broad rational bump.
    double value = (0.15 + 0.2 * p0) * u + (0.35 - 0.2 * p0) * v + 0.2 * u * v;
    const double bu = u - (0.25 + 0.5 * p1), bv = v - (0.7 - 0.4 * p1);
    value += 0.25 / (1.0 + 12.0 * (bu * bu + bv * bv));

    // Shapes with sharp edges, placed relative to the size.
    const double dx = xd - 0.38 * rows_, dy = yd - 0.3 * cols_;
    const double radius = 0.2 * scale_;
    if (dx * dx + dy * dy < radius * radius) value += 0.3 + 0.1 * p2; // bright disc
    const double ex = xd - 0.72 * rows_, ey = yd - 0.78 * cols_;
    const double small_radius = 0.1 * scale_;
    if (ex * ex + ey * ey < small_radius * small_radius) value -= 0.35;         // dark disc
    if (u > 0.55 && u < 0.85 && v > 0.12 && v < 0.42) value -= 0.25 + 0.1 * p1; // rectangle
    if (u + 0.8 * v > 1.25) value += 0.2;                                       // diagonal edge

    // Texture: value noise on a 4-pixel lattice (correlated over a few pixels)
    // plus a faint per-pixel grain.
    const std::int64_t lx = x / 4, ly = y / 4;
    const double fx = smooth(static_cast<double>(x % 4) / 4.0);
    const double fy = smooth(static_cast<double>(y % 4) / 4.0);
    const auto corner = [&](std::int64_t i, std::int64_t j) {
      return unit(hash4(seed_, channel, static_cast<std::uint64_t>(i),
                        static_cast<std::uint64_t>(j) ^ 0x5555555555555555ull));
    };
    const double top = corner(lx, ly) + fy * (corner(lx, ly + 1) - corner(lx, ly));
    const double bottom = corner(lx + 1, ly) + fy * (corner(lx + 1, ly + 1) - corner(lx + 1, ly));
    value += 0.08 * (top + fx * (bottom - top));
    value += 0.02 * unit(hash4(seed_ ^ 0xA5A5A5A5ull, channel, static_cast<std::uint64_t>(x),
                               static_cast<std::uint64_t>(y)));
    return value;
  }

private:
  std::uint64_t seed_;
  double rows_, cols_, scale_;
};

} // namespace

Buffer synthetic_image(const SyntheticSpec& spec) {
  for (std::int64_t e : spec.extents)
    if (e < 0) throw Error("synthetic_image: negative extent " + std::to_string(e));
  if (!(spec.lo <= spec.hi))
    throw Error("synthetic_image: the range [" + std::to_string(spec.lo) + ", " +
                std::to_string(spec.hi) + "] is empty");
  Buffer image(spec.type, spec.extents);
  const std::int64_t n = image.size();
  if (n == 0) return image;

  // The last two dimensions are rows and columns; the leading ones, flattened, the channel.
  const std::size_t dims = spec.extents.size();
  const std::int64_t cols = dims >= 1 ? spec.extents[dims - 1] : 1;
  const std::int64_t rows = dims >= 2 ? spec.extents[dims - 2] : 1;
  const std::int64_t plane = rows * cols;
  const Picture picture(spec.seed, rows, cols);
  const auto at = [&](std::int64_t i) {
    return picture.value(i / plane, i % plane / cols, i % cols);
  };

  // Two passes instead of a buffer of doubles: the range first, then the values.
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (std::int64_t i = 0; i < n; ++i) {
    const double v = at(i);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  const double span = hi > lo ? hi - lo : 1.0;
  const bool integer = is_integer(spec.type);
  // Integer images take the integers of [lo, hi].
  const double out_lo = integer ? std::ceil(spec.lo) : spec.lo;
  const double out_hi = integer ? std::floor(spec.hi) : spec.hi;
  if (out_lo > out_hi)
    throw Error("synthetic_image: the range [" + std::to_string(spec.lo) + ", " +
                std::to_string(spec.hi) + "] holds no value of type " +
                std::string(type_name(spec.type)));
  const double range = out_hi - out_lo;
  for (std::int64_t i = 0; i < n; ++i) {
    const double t = (at(i) - lo) / span; // in [0, 1]; exactly 0 and 1 at the extremes
    double v = t >= 1.0 ? out_hi : std::min(out_lo + t * range, out_hi);
    if (integer) v = std::clamp(std::floor(v + 0.5), out_lo, out_hi);
    image.set_from_double(i, v);
  }
  return image;
}

} // namespace trapeze
