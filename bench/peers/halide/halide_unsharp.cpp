// trapeze bench's Halide rows for unsharp: the three AOT-compiled versions of
// unsharp_generator.cpp, run on trapeze's buffers (wrapped, not copied; on
// grown copies below the default size, see call_grown) with the bound
// threshold and weight.
#include "halide_peer_support.h"

#include "halide_unsharp_adams2019.h"
#include "halide_unsharp_manual.h"
#include "halide_unsharp_mullapudi2016.h"

namespace trapeze::bench {

std::vector<Variant> halide_unsharp_variants(const PeerContext& ctx) {
  using Function = int (*)(halide_buffer_t*, float, float, halide_buffer_t*);
  const auto threshold = static_cast<float>(ctx.bound.at("threshold").f);
  const auto weight = static_cast<float>(ctx.bound.at("weight").f);
  const std::vector<int> min_extents = default_output_extents(ctx, "mask");
  return halide_variants_of<Function>(
      ctx,
      {{"manual", halide_unsharp_manual},
       {"mullapudi2016", halide_unsharp_mullapudi2016},
       {"adams2019", halide_unsharp_adams2019}},
      [threshold, weight, min_extents](Function f, const BufferMap& in, BufferMap& out) {
        return call_grown(
            {halide_view(in.at("img"))}, halide_view(out.at("mask")), min_extents,
            [&](auto& inputs, auto& mask) { return f(inputs[0], threshold, weight, mask); });
      });
}

} // namespace trapeze::bench
