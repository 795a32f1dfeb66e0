// Tile sizes from a cache budget and the reuse along each dimension: paper
// 001 §4.2, Alg. 2's ComputeTileSizes.
//
// The innermost tile is min(innermost, the dimension) points, a multiple of
// the vector width unless it is the whole dimension (prefetching and
// vectorization want long rows). The others share what the budget leaves,
// in proportion to their reuse: with gamma_i = reuse_i / max reuse, tile_i =
// gamma_i * tau and the product of the tiles is the volume; a dimension along
// which nothing is reused (reuse 1) gets 1 when another has reuse (it would
// only add memory streams: unsharp's channels). Unlike the
// printed algorithm, a dimension whose share is below one point or above its
// size is fixed there and tau is solved again over the others, so the budget
// is neither exceeded nor wasted; sizes are any integer, not powers of two.
#pragma once

#include <cstdint>
#include <vector>

namespace trapeze::autoschedule {

struct TileSizeRequest {
  std::vector<std::int64_t> sizes; ///< the space's extent per dimension
  std::vector<double> reuse;       ///< per dimension, > 0
  double volume = 0;               ///< the points one tile may hold
  std::int64_t innermost = 256;    ///< Alg. 2's InnerMostTileSize
  std::int64_t vector_points = 1;  ///< the innermost tile is a multiple of this
  /// The innermost (contiguous) dimension; -1: the last.
  int inner = -1;
  /// Dimensions to keep whole (empty: none).
  std::vector<bool> whole;
};

/// One tile size per dimension, each in [1, size], evened out.
std::vector<std::int64_t> compute_tile_sizes(const TileSizeRequest& request);

/// The same number of tiles per dimension, of equal size as far as the
/// space allows (the innermost still a multiple of `vector_points` where
/// `tiles` made it one): 257 points in tiles of 128 leave a last tile of one
/// point, a row too short to vectorize that still carries a whole halo; in
/// tiles of 96 the last has 65.
std::vector<std::int64_t> even_out(std::vector<std::int64_t> tiles,
                                   const std::vector<std::int64_t>& sizes, std::size_t inner,
                                   std::int64_t vector_points);

} // namespace trapeze::autoschedule
