// trapeze bench's Halide rows for local_laplacian: the three AOT-compiled
// versions of local_laplacian_generator.cpp, run on trapeze's buffers
// (wrapped, not copied; on grown copies below the default size, see
// call_grown: R and C are passed as scalars, so the ghost zones stay where
// trapeze has them) with the bound alpha, beta, R and C.
#include "halide_peer_support.h"

#include "halide_local_laplacian_adams2019.h"
#include "halide_local_laplacian_manual.h"
#include "halide_local_laplacian_mullapudi2016.h"

namespace trapeze::bench {

std::vector<Variant> halide_local_laplacian_variants(const PeerContext& ctx) {
  using Function = int (*)(halide_buffer_t*, float, float, int, int, halide_buffer_t*);
  // alpha and beta are float32 parameters of the trapeze pipeline.
  const auto alpha = static_cast<float>(ctx.bound.at("alpha").f);
  const auto beta = static_cast<float>(ctx.bound.at("beta").f);
  const auto rows = static_cast<int>(ctx.bound.at("R").i);
  const auto cols = static_cast<int>(ctx.bound.at("C").i);
  const std::vector<int> min_extents = default_output_extents(ctx, "laplacian");
  return halide_variants_of<Function>(
      ctx,
      {{"manual", halide_local_laplacian_manual},
       {"mullapudi2016", halide_local_laplacian_mullapudi2016},
       {"adams2019", halide_local_laplacian_adams2019}},
      [=](Function f, const BufferMap& in, BufferMap& out) {
        // Both start at 0.
        return call_grown({halide_view(in.at("img_colour"))}, halide_view(out.at("laplacian")),
                          min_extents, [&](auto& inputs, auto& laplacian) {
                            return f(inputs[0], alpha, beta, rows, cols, laplacian);
                          });
      });
}

} // namespace trapeze::bench
