// trapeze bench's Halide rows for harris: the three AOT-compiled versions of
// harris_generator.cpp, run on trapeze's buffers (wrapped, not copied; on
// grown copies below the default size, see call_grown) with the bound R, C.
#include "halide_peer_support.h"

#include "halide_harris_adams2019.h"
#include "halide_harris_manual.h"
#include "halide_harris_mullapudi2016.h"

namespace trapeze::bench {

std::vector<Variant> halide_harris_variants(const PeerContext& ctx) {
  using Function = int (*)(halide_buffer_t*, int, int, halide_buffer_t*);
  const auto R = static_cast<int>(ctx.bound.at("R").i), C = static_cast<int>(ctx.bound.at("C").i);
  const std::vector<int> min_extents = default_output_extents(ctx, "harris");
  return halide_variants_of<Function>(
      ctx,
      {{"manual", halide_harris_manual},
       {"mullapudi2016", halide_harris_mullapudi2016},
       {"adams2019", halide_harris_adams2019}},
      [R, C, min_extents](Function f, const BufferMap& in, BufferMap& out) {
        // harris's domain starts at (0, 0)
        return call_grown({halide_view(in.at("img"))}, halide_view(out.at("harris")), min_extents,
                          [&](auto& inputs, auto& harris) { return f(inputs[0], R, C, harris); });
      });
}

} // namespace trapeze::bench
