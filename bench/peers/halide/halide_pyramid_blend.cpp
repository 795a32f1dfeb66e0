// trapeze bench's Halide rows for pyramid_blend: the three AOT-compiled
// versions of pyramid_blend_generator.cpp, run on trapeze's buffers (wrapped,
// not copied; on grown copies below the default size, see call_grown: the
// generator clamps to the images' own extents, passed as rows and cols, so
// the original region's values do not change).
#include "halide_peer_support.h"

#include "halide_pyramid_blend_adams2019.h"
#include "halide_pyramid_blend_manual.h"
#include "halide_pyramid_blend_mullapudi2016.h"

namespace trapeze::bench {

std::vector<Variant> halide_pyramid_blend_variants(const PeerContext& ctx) {
  using Function =
      int (*)(halide_buffer_t*, halide_buffer_t*, halide_buffer_t*, int, int, halide_buffer_t*);
  const std::vector<int> min_extents = default_output_extents(ctx, "blend");
  return halide_variants_of<Function>(
      ctx,
      {{"manual", halide_pyramid_blend_manual},
       {"mullapudi2016", halide_pyramid_blend_mullapudi2016},
       {"adams2019", halide_pyramid_blend_adams2019}},
      [min_extents](Function f, const BufferMap& in, BufferMap& out) {
        // The images' own extents: the boundary condition clamps to them, not
        // to the grown copies' (call_grown).
        const Buffer& img1 = in.at("img1");
        const int rows = static_cast<int>(img1.extent(1)), cols = static_cast<int>(img1.extent(2));
        return call_grown(
            {halide_view(img1), halide_view(in.at("img2")), halide_view(in.at("mask"))},
            // blend's domain is [0, 2] x [31, R+30] x [31, C+30].
            halide_view(out.at("blend"), {0, 31, 31}), min_extents, [&](auto& inputs, auto& blend) {
              return f(inputs[0], inputs[1], inputs[2], rows, cols, blend);
            });
      });
}

} // namespace trapeze::bench
