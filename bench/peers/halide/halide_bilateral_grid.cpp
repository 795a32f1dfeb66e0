// trapeze bench's Halide rows for bilateral_grid: the three AOT-compiled
// versions of bilateral_grid_generator.cpp, run on trapeze's buffers
// (wrapped, not copied; on grown copies below the default size, see
// call_grown).
#include "halide_peer_support.h"

#include "halide_bilateral_grid_adams2019.h"
#include "halide_bilateral_grid_manual.h"
#include "halide_bilateral_grid_mullapudi2016.h"

namespace trapeze::bench {

std::vector<Variant> halide_bilateral_grid_variants(const PeerContext& ctx) {
  using Function = int (*)(halide_buffer_t*, int, int, halide_buffer_t*);
  const std::vector<int> min_extents = default_output_extents(ctx, "filtered");
  return halide_variants_of<Function>(
      ctx,
      {{"manual", halide_bilateral_grid_manual},
       {"mullapudi2016", halide_bilateral_grid_mullapudi2016},
       {"adams2019", halide_bilateral_grid_adams2019}},
      [min_extents](Function f, const BufferMap& in, BufferMap& out) {
        // The image's own extents: the boundary condition clamps to them, not
        // to the grown copy's (call_grown).
        const Buffer& input = in.at("input");
        const int rows = static_cast<int>(input.extent(0)),
                  cols = static_cast<int>(input.extent(1));
        return call_grown(
            {halide_view(input)}, halide_view(out.at("filtered")), min_extents,
            [&](auto& inputs, auto& filtered) { return f(inputs[0], rows, cols, filtered); });
      });
}

} // namespace trapeze::bench
