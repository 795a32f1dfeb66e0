// compute_tile_sizes: Alg. 2's tile-size determination.
#include "autoschedule/tile_sizes.h"

#include "trapeze/error.h"

#include <algorithm>
#include <cmath>

namespace trapeze::autoschedule {

std::vector<std::int64_t> compute_tile_sizes(const TileSizeRequest& request) {
  const std::size_t n = request.sizes.size();
  TRAPEZE_ASSERT(n > 0 && request.reuse.size() == n, "tile sizes of a space without dimensions");
  const std::size_t inner_dim = request.inner < 0 ? n - 1 : static_cast<std::size_t>(request.inner);
  TRAPEZE_ASSERT(inner_dim < n, "an innermost dimension outside the space");
  if (inner_dim + 1 != n) {
    // Solve with the innermost dimension moved last, then put it back.
    TileSizeRequest last = request;
    last.inner = -1;
    std::rotate(last.sizes.begin() + static_cast<std::ptrdiff_t>(inner_dim),
                last.sizes.begin() + static_cast<std::ptrdiff_t>(inner_dim) + 1, last.sizes.end());
    std::rotate(last.reuse.begin() + static_cast<std::ptrdiff_t>(inner_dim),
                last.reuse.begin() + static_cast<std::ptrdiff_t>(inner_dim) + 1, last.reuse.end());
    if (!last.whole.empty())
      std::rotate(last.whole.begin() + static_cast<std::ptrdiff_t>(inner_dim),
                  last.whole.begin() + static_cast<std::ptrdiff_t>(inner_dim) + 1,
                  last.whole.end());
    std::vector<std::int64_t> tiles = compute_tile_sizes(last);
    std::rotate(tiles.begin() + static_cast<std::ptrdiff_t>(inner_dim), tiles.end() - 1,
                tiles.end());
    return tiles;
  }
  const TileSizeRequest& r = request;
  std::vector<std::int64_t> tiles(n, 1);
  const std::int64_t inner_size = std::max<std::int64_t>(1, r.sizes.back());
  std::int64_t inner = std::min(inner_size, std::max<std::int64_t>(1, r.innermost));
  if (inner < inner_size && r.vector_points > 1)
    inner = std::max(r.vector_points, inner / r.vector_points * r.vector_points);
  tiles.back() = std::min(inner, inner_size);
  if (n == 1) return even_out(tiles, r.sizes, inner_dim, r.vector_points);

  // The outer dimensions: tau * gamma_i each, product = volume / inner; a
  // dimension pinned at 1 or at its size leaves the rest to the others.
  const std::size_t outer = n - 1;
  double max_reuse = 0;
  for (std::size_t i = 0; i < outer; ++i)
    max_reuse = std::max(max_reuse, r.reuse[i]);
  std::vector<double> share(outer, 0);
  std::vector<bool> pinned(outer, false);
  for (std::size_t i = 0; i < outer; ++i) {
    if (i < r.whole.size() && r.whole[i]) {
      pinned[i] = true;
      share[i] = static_cast<double>(std::max<std::int64_t>(1, r.sizes[i]));
    } else if (r.reuse[i] <= 1 && max_reuse > 1) {
      // Nothing is reused along it: a larger tile there only adds streams.
      pinned[i] = true;
      share[i] = 1;
    }
  }
  for (bool changed = true; changed;) {
    changed = false;
    double volume = r.volume / static_cast<double>(tiles.back());
    double gammas = 1;
    std::size_t free = 0;
    for (std::size_t i = 0; i < outer; ++i) {
      if (pinned[i]) {
        volume /= share[i];
      } else {
        gammas *= r.reuse[i] / max_reuse;
        ++free;
      }
    }
    if (free == 0) break;
    const double tau = std::pow(std::max(volume, 0.0) / gammas, 1.0 / static_cast<double>(free));
    for (std::size_t i = 0; i < outer; ++i)
      if (!pinned[i]) share[i] = tau * r.reuse[i] / max_reuse;
    // Pin one dimension at a time, the furthest out of [1, size], and solve again.
    std::size_t worst = outer;
    double worst_excess = 1;
    for (std::size_t i = 0; i < outer; ++i) {
      if (pinned[i]) continue;
      const double size = static_cast<double>(std::max<std::int64_t>(1, r.sizes[i]));
      const double excess = share[i] < 1 ? 1 / share[i] : share[i] / size;
      if (excess > worst_excess) {
        worst_excess = excess;
        worst = i;
      }
    }
    if (worst < outer) {
      const double size = static_cast<double>(std::max<std::int64_t>(1, r.sizes[worst]));
      share[worst] = share[worst] < 1 ? 1 : size;
      pinned[worst] = true;
      changed = true;
    }
  }
  // Dimensions pinned at a bound or kept whole are done; round the others
  // smallest share first, giving what rounding frees or takes to those still
  // open (a channel dimension of 1.4 becomes 1, and the rows take the rest).
  std::vector<std::size_t> open;
  for (std::size_t i = 0; i < outer; ++i) {
    if (!pinned[i]) {
      open.push_back(i);
      continue;
    }
    tiles[i] =
        std::clamp<std::int64_t>(std::llround(share[i]), 1, std::max<std::int64_t>(1, r.sizes[i]));
  }
  std::stable_sort(open.begin(), open.end(),
                   [&](std::size_t a, std::size_t b) { return share[a] < share[b]; });
  for (std::size_t k = 0; k < open.size(); ++k) {
    const std::size_t i = open[k];
    const std::int64_t size = std::max<std::int64_t>(1, r.sizes[i]);
    tiles[i] = std::clamp<std::int64_t>(std::llround(share[i]), 1, size);
    if (k + 1 == open.size() || share[i] <= 0) continue;
    const double factor = std::pow(share[i] / static_cast<double>(tiles[i]),
                                   1.0 / static_cast<double>(open.size() - k - 1));
    for (std::size_t j = k + 1; j < open.size(); ++j)
      share[open[j]] = std::min(share[open[j]] * factor,
                                static_cast<double>(std::max<std::int64_t>(1, r.sizes[open[j]])));
  }
  return even_out(tiles, r.sizes, inner_dim, r.vector_points);
}

std::vector<std::int64_t> even_out(std::vector<std::int64_t> tiles,
                                   const std::vector<std::int64_t>& sizes, std::size_t inner,
                                   std::int64_t vector_points) {
  TRAPEZE_ASSERT(tiles.size() == sizes.size(), "tile sizes for another space");
  for (std::size_t i = 0; i < tiles.size(); ++i) {
    const std::int64_t size = std::max<std::int64_t>(1, sizes[i]);
    const std::int64_t tile = std::clamp<std::int64_t>(tiles[i], 1, size);
    const std::int64_t count = (size + tile - 1) / tile;
    std::int64_t even = (size + count - 1) / count;
    // Rounding up to whole vectors keeps the count: `tile` is at least
    // `even` and, when the innermost is split, a multiple of the vector.
    if (i == inner && count > 1 && vector_points > 1 && tile % vector_points == 0)
      even = (even + vector_points - 1) / vector_points * vector_points;
    tiles[i] = std::min(even, tile);
  }
  return tiles;
}

} // namespace trapeze::autoschedule
