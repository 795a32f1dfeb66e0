// trapeze bench's Halide rows for blur: the three AOT-compiled versions of
// blur_generator.cpp, run on trapeze's buffers (wrapped, not copied; on
// grown copies below the default size, see call_grown).
#include "halide_peer_support.h"

#include "halide_blur_adams2019.h"
#include "halide_blur_manual.h"
#include "halide_blur_mullapudi2016.h"

namespace trapeze::bench {

std::vector<Variant> halide_blur_variants(const PeerContext& ctx) {
  using Function = int (*)(halide_buffer_t*, halide_buffer_t*);
  const std::vector<int> min_extents = default_output_extents(ctx, "blury");
  return halide_variants_of<Function>(
      ctx,
      {{"manual", halide_blur_manual},
       {"mullapudi2016", halide_blur_mullapudi2016},
       {"adams2019", halide_blur_adams2019}},
      [min_extents](Function f, const BufferMap& in, BufferMap& out) {
        return call_grown({halide_view(in.at("img"))},
                          halide_view(out.at("blury"), {1, 1}), // blury's domain starts at (1, 1)
                          min_extents,
                          [&](auto& inputs, auto& blury) { return f(inputs[0], blury); });
      });
}

} // namespace trapeze::bench
