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
#include <vector>

namespace trapeze {

namespace {

/// The splitmix64 finaliser: a bijective, well-mixing 64-bit hash.
std::uint64_t mix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// A hash as a double in [0, 1) (its top 53 bits).
double unit(std::uint64_t h) { return static_cast<double>(h >> 11) * 0x1.0p-53; }

/// Cubic smoothstep of t in [0, 1].
double smooth(double t) { return t * t * (3.0 - 2.0 * t); }

/// Side of the texture lattice in pixels: the texture is correlated over a few pixels.
constexpr std::int64_t kLattice = 4;

/// The picture: a pure function of (seed, channel, x, y), evaluated a row at a
/// time so that hashes shared by neighbouring pixels are computed once.
class Picture {
public:
  Picture(std::uint64_t seed, std::int64_t rows, std::int64_t cols)
      : seed_(mix64(seed)), rows_(static_cast<double>(rows)), cols_(static_cast<double>(cols)),
        scale_(static_cast<double>(std::min(rows, cols))), cols_n_(cols),
        lattice_top_(static_cast<std::size_t>(cols / kLattice + 2)),
        lattice_bottom_(lattice_top_.size()) {}

  /// The unnormalised values of row x of channel c (roughly in [-0.6, 1.6]) into `out`.
  void row(std::int64_t c, std::int64_t x, double* out) {
    const std::uint64_t channel = mix64(seed_ ^ static_cast<std::uint64_t>(c));
    // Per-channel variation, so that the channels of a colour image differ.
    const double p0 = unit(mix64(channel ^ 0xC0FFEE00ull));
    const double p1 = unit(mix64(channel ^ 0xC0FFEE01ull));
    const double p2 = unit(mix64(channel ^ 0xC0FFEE02ull));

    // Texture lattice values of the two lattice rows around x.
    const std::int64_t lx = x / kLattice;
    const double fx = smooth(static_cast<double>(x % kLattice) / kLattice);
    const std::uint64_t top_key = mix64(channel ^ static_cast<std::uint64_t>(lx));
    const std::uint64_t bottom_key = mix64(channel ^ static_cast<std::uint64_t>(lx + 1));
    for (std::size_t j = 0; j < lattice_top_.size(); ++j) {
      lattice_top_[j] = unit(mix64(top_key ^ (j * 0x5555555555555555ull)));
      lattice_bottom_[j] = unit(mix64(bottom_key ^ (j * 0x5555555555555555ull)));
    }
    const std::uint64_t grain_key =
        mix64(channel ^ 0xA5A5A5A5ull ^ (static_cast<std::uint64_t>(x) << 32));

    const double xd = static_cast<double>(x);
    const double u = (xd + 0.5) / rows_; // position in (0, 1): shapes scale with the size
    const double dx = xd - 0.38 * rows_, ex = xd - 0.72 * rows_;
    const double radius = 0.2 * scale_, small_radius = 0.1 * scale_;
    const double bu = u - (0.25 + 0.5 * p1);
    const bool in_rectangle_rows = u > 0.55 && u < 0.85;
    for (std::int64_t y = 0; y < cols_n_; ++y) {
      const double yd = static_cast<double>(y);
      const double v = (yd + 0.5) / cols_;

      // Smooth part: a tilted gradient and a broad rational bump.
      double value = (0.15 + 0.2 * p0) * u + (0.35 - 0.2 * p0) * v + 0.2 * u * v;
      const double bv = v - (0.7 - 0.4 * p1);
      value += 0.25 / (1.0 + 12.0 * (bu * bu + bv * bv));

      // Shapes with sharp edges.
      const double dy = yd - 0.3 * cols_, ey = yd - 0.78 * cols_;
      if (dx * dx + dy * dy < radius * radius) value += 0.3 + 0.1 * p2;        // bright disc
      if (ex * ex + ey * ey < small_radius * small_radius) value -= 0.35;      // dark disc
      if (in_rectangle_rows && v > 0.12 && v < 0.42) value -= 0.25 + 0.1 * p1; // rectangle
      if (u + 0.8 * v > 1.25) value += 0.2;                                    // diagonal edge

      // Texture: bilinear (smoothstep) value noise on the lattice, plus a faint grain.
      const auto ly = static_cast<std::size_t>(y / kLattice);
      const double fy = smooth(static_cast<double>(y % kLattice) / kLattice);
      const double top = lattice_top_[ly] + fy * (lattice_top_[ly + 1] - lattice_top_[ly]);
      const double bottom =
          lattice_bottom_[ly] + fy * (lattice_bottom_[ly + 1] - lattice_bottom_[ly]);
      value += 0.08 * (top + fx * (bottom - top));
      value += 0.02 * unit(mix64(grain_key ^ static_cast<std::uint64_t>(y)));
      out[y] = value;
    }
  }

private:
  std::uint64_t seed_;
  double rows_, cols_, scale_;
  std::int64_t cols_n_;
  std::vector<double> lattice_top_, lattice_bottom_;
};

} // namespace

Buffer synthetic_image(const SyntheticSpec& spec) {
  for (std::int64_t e : spec.extents)
    if (e < 0) throw Error("synthetic_image: negative extent " + std::to_string(e));
  if (!(spec.lo <= spec.hi))
    throw Error("synthetic_image: the range [" + std::to_string(spec.lo) + ", " +
                std::to_string(spec.hi) + "] is empty");
  const bool integer = is_integer(spec.type);
  // Integer images take the integers of [lo, hi].
  const double out_lo = integer ? std::ceil(spec.lo) : spec.lo;
  const double out_hi = integer ? std::floor(spec.hi) : spec.hi;
  if (out_lo > out_hi)
    throw Error("synthetic_image: the range [" + std::to_string(spec.lo) + ", " +
                std::to_string(spec.hi) + "] holds no value of type " +
                std::string(type_name(spec.type)));
  Buffer image(spec.type, spec.extents);
  const std::int64_t n = image.size();
  if (n == 0) return image;

  // The last two dimensions are rows and columns; the leading ones, flattened, the channel.
  const std::size_t dims = spec.extents.size();
  const std::int64_t cols = dims >= 1 ? spec.extents[dims - 1] : 1;
  const std::int64_t rows = dims >= 2 ? spec.extents[dims - 2] : 1;
  Picture picture(spec.seed, rows, cols);
  std::vector<double> row(static_cast<std::size_t>(cols));
  const std::int64_t row_count = n / cols;

  // Two passes instead of a buffer of doubles: the range first, then the values.
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (std::int64_t r = 0; r < row_count; ++r) {
    picture.row(r / rows, r % rows, row.data());
    for (double v : row) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  const double span = hi > lo ? hi - lo : 1.0;
  const double range = out_hi - out_lo;
  for (std::int64_t r = 0; r < row_count; ++r) {
    picture.row(r / rows, r % rows, row.data());
    for (std::int64_t y = 0; y < cols; ++y) {
      // t is in [0, 1], exactly 0 and 1 at the extremes.
      const double t = (row[static_cast<std::size_t>(y)] - lo) / span;
      double v = t >= 1.0 ? out_hi : std::min(out_lo + t * range, out_hi);
      if (integer) v = std::clamp(std::floor(v + 0.5), out_lo, out_hi);
      image.set_from_double(r * cols + y, v);
    }
  }
  return image;
}

} // namespace trapeze
