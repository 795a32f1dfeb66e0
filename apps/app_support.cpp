// Helpers shared by the app files.
#include "app.h"

#include "trapeze/image_io.h"

#include "trapeze/error.h"

#include <set>

namespace trapeze::apps {

std::vector<std::int64_t> input_extents(const Pipeline& p, const std::string& input,
                                        const ParamValues& params) {
  const Box box = concrete_domain(*p.input(input), p.bind(params));
  std::vector<std::int64_t> extents;
  for (int d = 0; d < box.dimensions(); ++d)
    extents.push_back(box.extent(d));
  return extents;
}

void require_image_size(const std::string& app, std::int64_t rows, std::int64_t cols,
                        std::int64_t min_rows, std::int64_t min_cols) {
  if (rows >= min_rows && cols >= min_cols) return;
  throw Error("app '" + app + "' needs an image of at least " + std::to_string(min_rows) + " x " +
              std::to_string(min_cols) + " pixels (rows x cols), got " + std::to_string(rows) +
              " x " + std::to_string(cols));
}

BufferMap image_input(const Pipeline& p, const ParamValues& params, const Buffer& image,
                      const std::string& input, int channels, std::int64_t row0,
                      std::int64_t col0) {
  const Buffer f = to_float(image, ScalarType::Float32);
  const int dims = f.dimensions();
  const std::int64_t planes = dims == 3 ? f.extent(0) : 1;
  const std::int64_t rows = f.extent(dims - 2), cols = f.extent(dims - 1);
  const float* src = f.data<float>();
  // Colour planes of the user's image: grey (and grey+alpha) has one.
  const std::int64_t colour_planes = planes >= 3 ? 3 : 1;
  const auto sample = [&](std::int64_t plane, std::int64_t x, std::int64_t y) {
    return src[(plane * rows + x) * cols + y];
  };
  const std::vector<std::int64_t> extents = input_extents(p, input, params);
  Buffer out(p.input(input)->type(), extents);
  if (static_cast<int>(extents.size()) != (channels == 1 ? 2 : 3))
    throw Error("input '" + input + "' has extents that do not fit a " + std::to_string(channels) +
                "-channel image");
  const std::int64_t out_rows = extents[extents.size() - 2], out_cols = extents.back();
  if (row0 + rows > out_rows || col0 + cols > out_cols)
    throw Error("a " + std::to_string(rows) + "x" + std::to_string(cols) +
                " image does not fit input '" + input + "' (" + out.describe() + ") at offset (" +
                std::to_string(row0) + ", " + std::to_string(col0) + ")");
  for (int ch = 0; ch < channels; ++ch) {
    for (std::int64_t x = 0; x < rows; ++x) {
      for (std::int64_t y = 0; y < cols; ++y) {
        double v;
        if (channels == 1 && colour_planes == 3)
          v = 0.299 * sample(0, x, y) + 0.587 * sample(1, x, y) + 0.114 * sample(2, x, y);
        else
          v = sample(colour_planes == 3 ? ch : 0, x, y);
        out.set_from_double((ch * out_rows + row0 + x) * out_cols + col0 + y, v);
      }
    }
  }
  return BufferMap{{input, out}};
}

BufferMap synthetic_float_input(const Pipeline& p, const ParamValues& params,
                                const std::string& input, std::uint64_t seed) {
  SyntheticSpec spec;
  spec.type = ScalarType::Float32;
  spec.extents = input_extents(p, input, params);
  spec.lo = 0.0;
  spec.hi = 1.0;
  spec.seed = seed;
  return {{input, synthetic_image(spec)}};
}

Schedule fuse_all_stages(const Pipeline& p, std::vector<std::int64_t> tile_sizes,
                         int parallel_tile_dims, std::string reason) {
  GroupSchedule g;
  for (const auto& f : p.stages())
    g.stages.push_back(f->name());
  g.tile_sizes = std::move(tile_sizes);
  g.shape = TileShape::Scalene;
  g.parallel_tile_dims = parallel_tile_dims;
  g.reasons = {std::move(reason)};
  Schedule s;
  s.groups = {std::move(g)};
  return s;
}

GroupSchedule fused_group(std::vector<std::string> stages, std::vector<std::int64_t> tile_sizes,
                          int parallel_tile_dims, std::string reason) {
  GroupSchedule g;
  g.stages = std::move(stages);
  g.tile_sizes = std::move(tile_sizes);
  g.shape = TileShape::Scalene;
  g.parallel_tile_dims = parallel_tile_dims;
  g.reasons = {std::move(reason)};
  return g;
}

void add_remaining_stages(const Pipeline& p, Schedule& s, const std::string& reason) {
  std::set<std::string> placed;
  for (const GroupSchedule& g : s.groups)
    placed.insert(g.stages.begin(), g.stages.end());
  for (const auto& f : p.stages())
    if (!placed.count(f->name())) s.groups.push_back(fused_group({f->name()}, {}, 1, reason));
}

} // namespace trapeze::apps
