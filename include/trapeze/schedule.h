// A schedule: everything lowering needs to know about how a pipeline runs,
// and nothing about what it computes. Printable and loadable as JSON
// (docs/schedule.md); a user can write one by hand, an autoscheduler writes
// one for them. The algorithm never changes when the schedule does.
#pragma once

#include "trapeze/pipeline.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace trapeze {

/// The shape of the overlapped tiles of a group (paper 000 §2-3).
enum class TileShape : std::uint8_t {
  Scalene,   ///< each stage computes exactly what its consumers in the group need (tight)
  PolyMage,  ///< every stage extended by the group-wide slopes (PolyMage's shape)
  Rectangle, ///< right-rectangle trapezoid: scalene's points, stages fused row by row, shifted
};
/// "scalene", "polymage", "rectangle".
const char* tile_shape_name(TileShape s);
std::optional<TileShape> parse_tile_shape(const std::string& name);

/// Where a stage's values live.
enum class Storage : std::uint8_t {
  Full,       ///< a buffer over the stage's whole domain
  Scratchpad, ///< a per-thread buffer sized to the largest per-tile region
  Inlined,    ///< not stored: the definition is substituted into its consumers
};
/// "full", "scratchpad", "inline".
/// How a group's parallel loop hands its iterations (tiles, or rows of an
/// untiled group) to the threads.
enum class ParallelSchedule : std::uint8_t {
  Static,  ///< equal shares fixed up front (OpenMP schedule(static))
  Dynamic, ///< one iteration at a time to whichever thread is free (schedule(dynamic))
  /// Runs of contiguous iterations, each an eighth of a thread's share, to
  /// whichever thread is free (schedule(dynamic, chunk) with the chunk from the
  /// iteration count and the threads at run time).
  Chunked,
};
/// How many chunks a Chunked loop gives each thread on average: a thread
/// slowed by another process holds back at most about 1/8 of its share.
inline constexpr int chunks_per_thread = 8;
/// "static", "dynamic", "chunked".
const char* parallel_schedule_name(ParallelSchedule s);
std::optional<ParallelSchedule> parse_parallel_schedule(const std::string& name);

const char* storage_name(Storage s);
std::optional<Storage> parse_storage(const std::string& name);

/// The most rows ahead a group may prefetch a live-in (GroupSchedule::prefetch).
inline constexpr int max_prefetch_rows = 8;

/// One group of fused stages, computed tile by tile.
struct GroupSchedule {
  /// The stages of the group (names); lowering orders them topologically.
  std::vector<std::string> stages;
  /// Tile size per dimension of the group's aligned and scaled space
  /// (analysis/alignment.h), outermost first. Empty: untiled (one tile).
  std::vector<std::int64_t> tile_sizes;
  TileShape shape = TileShape::Scalene;
  /// Optional inner (L1) tiles inside each outer tile (multi-level tiling,
  /// paper 001 §5.2); empty: none. Same dimensions as tile_sizes.
  std::vector<std::int64_t> inner_tile_sizes;
  /// How many of the outermost tile loops are collapsed and run in parallel.
  int parallel_tile_dims = 1;
  /// How the parallel loop hands out its iterations; unset: the default of
  /// default_parallel_schedule.
  std::optional<ParallelSchedule> parallel_schedule;
  /// Mark the innermost (contiguous) loop of every stage for vectorization.
  bool vectorize = true;
  /// The widest vectors, in bytes (16, 32 or 64), that the C++ compiler may
  /// use in a stage's loop nest, per stage of a fused group (the stages of a
  /// nest fused with others: the smallest of theirs); a stage not listed: the
  /// target's widest. 64-byte vectors that load a row at shifted points each
  /// straddle two cache lines, and a nest that streams memory with little
  /// arithmetic ran faster at 32 bytes on AMD Zen 5 (docs/performance.md,
  /// "Narrower vectors where a nest streams"). GCC only (a function
  /// attribute); other compilers, and the CUDA printer, ignore it.
  std::map<std::string, int> vector_bytes;
  /// Software prefetch of the group's live-ins (inputs, and stages of other
  /// groups, in memory): per live-in, how many rows ahead (1 to 8) each nest
  /// of a tile fetches the rows it is about to load, one cache line at a
  /// time, at the start of each row. A tile's rows are short runs, which the
  /// hardware's prefetchers follow late: Harris' 480-column tiles waited on
  /// the image's next row (docs/performance.md, "Prefetching a tile's next
  /// rows"). A hint: results do not change. Tiled groups only; empty: none.
  std::map<std::string, int> prefetch;
  /// Inside a tile, fuse the loop nests of stages that read a common producer
  /// over equal bounds (paper 001 §5.3), so the producer is loaded once for all.
  bool intra_tile_fusion = true;
  /// Let a float sum (a reduction) of the group run in parallel by partial
  /// results, which adds its terms in another order than the definition's:
  /// faster, but no longer the interpreter's result bit for bit (docs/dsl.md,
  /// "Float results"). Off: float sums run in order. No scheduler sets it.
  bool reassociate_float_sums = false;
  /// Why the scheduler chose this (printed by `trapeze explain`).
  std::vector<std::string> reasons;
};

/// The parallel schedule a group runs with: its own, or by default Dynamic
/// for a tiled group's tile loops (tiles differ in work: image borders,
/// cases, a down-sampled stage's zeros; and a thread slowed by another process
/// holds no share back) and Chunked for an untiled group's rows (runs of
/// contiguous rows keep the prefetchers' streams, as Static does, and a slowed
/// thread holds back at most a chunk; one row at a time was 5-240% slower on a
/// quiet machine: docs/performance.md).
ParallelSchedule effective_parallel_schedule(const GroupSchedule& g);

struct Schedule {
  /// The groups; every stage of the pipeline is in exactly one.
  std::vector<GroupSchedule> groups;
  /// Storage per stage; a stage not listed gets the default: live-outs of its
  /// group (outputs, and stages read by other groups) Full, others Scratchpad.
  std::map<std::string, Storage> storage;

  /// Every stage its own group, untiled, in full buffers: the naive schedule.
  static Schedule naive(const Pipeline& p);

  /// The storage of a stage after applying the defaults.
  Storage storage_of(const Pipeline& p, const std::string& stage) const;
  /// storage_of for every stage of `p`, in one pass over the pipeline (where
  /// storage_of scans the groups for each stage).
  std::map<std::string, Storage> storages(const Pipeline& p) const;
  /// The stages of group `group` that share its tiled space, in the group's
  /// order: all but the stages inlined into its reductions (inlined, and read
  /// only by reductions of the group or by other such stages, as a boundary
  /// condition read by a histogram). Those become part of the reductions'
  /// updates, which run over reduction domains, so they have no place in it.
  std::vector<std::string> aligned_stages(const Pipeline& p, std::size_t group) const;

  /// Throws trapeze::Error naming the stage or group if the schedule does not
  /// fit the pipeline: an unknown stage, a stage in two groups or in none, a
  /// group that would create a cycle between groups, a tile size of 0 or a
  /// wrong number of tile sizes, an inlined live-out, dependences within a
  /// group that cannot be made constant (with the analysis's reason).
  void validate(const Pipeline& p) const;

  /// JSON text (field names in docs/schedule.md); from_json reverses it and
  /// throws trapeze::Error with the JSON path of a malformed field.
  std::string to_json() const;
  static Schedule from_json(const std::string& text);
  static Schedule load(const std::string& path);
};

} // namespace trapeze
