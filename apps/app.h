// The benchmark applications: each is a pipeline written in the DSL exactly to
// ../shared/benchmarks.md, with its sizes and synthetic inputs.
#pragma once

#include "trapeze/pipeline.h"
#include "trapeze/runtime.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace trapeze::apps {

struct App {
  std::string name;        ///< "unsharp"
  std::string description; ///< one line
  /// Builds the pipeline (with its parameter defaults set to the default size).
  std::function<Pipeline()> build;
  /// Parameter values: the papers' size, and a small size for tests.
  ParamValues default_size;
  ParamValues small_size;
  /// Deterministic synthetic inputs for bound parameters.
  std::function<BufferMap(const Pipeline&, const ParamValues&)> make_inputs;
  /// Parameter values that give the pipeline an image of rows x cols
  /// (used for --input PNG files and odd test sizes).
  std::function<ParamValues(std::int64_t rows, std::int64_t cols)> size_for_image;
  /// The pipeline's inputs made from a user's image (read_png output: uint8 or
  /// uint16, [rows][cols] or [channels][rows][cols]) for the params
  /// size_for_image gave; throws trapeze::Error if the image does not fit the
  /// app (e.g. grey for a colour app).
  std::function<BufferMap(const Pipeline&, const ParamValues&, const Buffer& image)>
      inputs_from_image;
  /// Image sizes (rows, cols) the correctness tests run at besides small_size:
  /// odd ones, tiny ones and one that is not tiny. Empty for apps whose size
  /// is not an image's (multigrid).
  std::vector<std::pair<std::int64_t, std::int64_t>> test_sizes = {{37, 61}, {8, 9}, {200, 300}};
  /// Largest allowed |jit - interpreter| / max(1, |interpreter|) for float outputs.
  double tolerance = 1e-4;
  /// The app's hand-written schedule (`trapeze run APP --scheduler manual`);
  /// empty: the app has none yet.
  std::function<Schedule(const Pipeline&)> manual_schedule;
};

/// All apps, in the order of the benchmark suite.
const std::vector<App>& all_apps();
/// The app of this name; throws trapeze::Error listing the names if none.
const App& find_app(const std::string& name);

/// The apps, one file each (benchmarks.md section in brackets).
App make_blur_app();    ///< [0] 3x3 box blur, separable
App make_unsharp_app(); ///< [1] unsharp mask
App make_harris_app();  ///< [2] Harris corner detection
/// [3] bilateral grid
App make_bilateral_grid_app();
/// [4] camera pipeline
App make_camera_pipe_app();
/// [5] pyramid blending
App make_pyramid_blend_app();
/// [6] multiscale interpolation
App make_interpolate_app();

/// Hand-written schedules (fused, overlapped-tiled groups) for the apps' pipelines.
/// blur: one group, tiles of 32 whole rows ([32, 8192] over (x, y)), blurx inlined.
Schedule make_manual_schedule_blur(const Pipeline& p);
/// unsharp: one group of all four stages, sharpen inlined, tiles [1, 8, 512]
/// over (c, x, y), scalene, the c and x tile loops collapsed and parallel.
Schedule make_manual_schedule_unsharp(const Pipeline& p);
/// harris: one group of all eleven stages in scratchpads, tiles [32, 256]
/// over (x, y), scalene, both tile loops collapsed and parallel.
Schedule make_manual_schedule_harris(const Pipeline& p);
/// bilateral_grid: the grid reduction fused with blurz, tiles [2, 2, 4096,
/// 16] over (c, X, Y, z) (each tile the histogram of its two grid rows); blurx
/// and blury fused, tiles [1, 16, 64, 11]; interpolated and filtered fused,
/// tiles [2, 16, 1536] over (c, x, y).
Schedule make_manual_schedule_bilateral_grid(const Pipeline& p);
/// camera_pipe: matrix and curveLUT alone; the 25 image stages fused, tiles
/// [3, 32, 256, 4] over (c, x, y, deinterleaved.c), the four channel copies inlined.
Schedule make_manual_schedule_camera_pipe(const Pipeline& p);
/// pyramid_blend: per level, each down-sampling step's two passes fused and
/// each collapse step (Laplacians, blend, up-sampling) fused, tiles of 16
/// whole rows of one channel; the Laplacians and blends inlined.
Schedule make_manual_schedule_pyramid_blend(const Pipeline& p);
/// interpolate: levels 0-3 of the down pyramid fused, levels 3-0 of the up
/// pyramid fused (tiles [1, 64, 512]); the coarse levels and the output alone.
Schedule make_manual_schedule_interpolate(const Pipeline& p);
/// local_laplacian: per level the down step and the Laplacian, the input
/// pyramid's down step, and the output pyramid's up step fused (tiles [1, 32,
/// 256] over (k, x, y), [32, 256] over (x, y)); look-ups and data-dependent
/// stages alone.
Schedule make_manual_schedule_local_laplacian(const Pipeline& p);

// Local Laplacian and multigrid (helper apps4).
App make_local_laplacian_app(); ///< [7] local Laplacian filter
/// [8] one multigrid Jacobi pipeline: dims 2 or 3, cycle 'V' or 'W', nu1
/// pre- and nu2 post-smoothing steps, nuc steps on the coarsest level.
struct MultigridConfig {
  int dims = 2;
  char cycle = 'V';
  int nu1 = 4, nu2 = 4, nuc = 4;
  /// "mg_jacobi2d_v_444"
  std::string name() const;
};
/// The pipeline of `config` (finest level L = 3, coarsest size parameter n).
Pipeline build_multigrid(const MultigridConfig& config);
App make_multigrid_app(const MultigridConfig& config); ///< [8] multigrid Jacobi
/// Multigrid (any of the eight cycles): each run of consecutive stages on one
/// level (smoothing steps, the defect and its restriction; an interpolation
/// and the smoothing after it) fused and tiled, at most `max_run` stages a
/// group (2-D: 12, tiles [64, 512]; 3-D: 5, tiles [16, 32, 1024]).
Schedule make_manual_schedule_multigrid(const MultigridConfig& config, const Pipeline& p);

// Helpers shared by the app files (app_support.cpp).

/// The extents of input `input` of `p` for `params` (completed with the
/// pipeline's defaults).
std::vector<std::int64_t> input_extents(const Pipeline& p, const std::string& input,
                                        const ParamValues& params);
/// A user's image (read_png output) as one buffer of `input`'s type and extents:
/// converted to float in [0, 1], reduced to `channels` channels (1: luma
/// 0.299 R + 0.587 G + 0.114 B; 3: colour, grey replicated; alpha dropped),
/// and placed at (row0, col0) of a zero buffer ([rows][cols] for 1 channel,
/// [3][rows][cols] for 3).
/// A deterministic synthetic float32 image in [0, 1] filling the whole of
/// input `input` (for apps whose input is the image itself, no ghost zone).
BufferMap synthetic_float_input(const Pipeline& p, const ParamValues& params,
                                const std::string& input, std::uint64_t seed);
/// A schedule of one group holding every stage of `p`, tiled `tile_sizes`,
/// scalene, parallel over `parallel_tile_dims` collapsed tile loops.
Schedule fuse_all_stages(const Pipeline& p, std::vector<std::int64_t> tile_sizes,
                         int parallel_tile_dims, std::string reason);
/// One fused group of `stages`, tiled `tile_sizes` (empty: untiled), scalene,
/// parallel over `parallel_tile_dims` collapsed tile loops, with its reason.
GroupSchedule fused_group(std::vector<std::string> stages, std::vector<std::int64_t> tile_sizes,
                          int parallel_tile_dims, std::string reason);
/// Appends an untiled group of its own (the naive schedule's) for every stage
/// of `p` that no group of `s` holds yet, with `reason`.
void add_remaining_stages(const Pipeline& p, Schedule& s, const std::string& reason);
BufferMap image_input(const Pipeline& p, const ParamValues& params, const Buffer& image,
                      const std::string& input, int channels, std::int64_t row0, std::int64_t col0);
/// Throws trapeze::Error unless rows x cols is at least min_rows x min_cols.
void require_image_size(const std::string& app, std::int64_t rows, std::int64_t cols,
                        std::int64_t min_rows, std::int64_t min_cols);

} // namespace trapeze::apps
