// trapeze bench's Halide rows for local_laplacian: the three AOT-compiled
// versions of local_laplacian_generator.cpp, run on trapeze's buffers
// (wrapped, not copied) with the bound alpha and beta.
#include "halide_peer_support.h"

#include "halide_local_laplacian_adams2019.h"
#include "halide_local_laplacian_manual.h"
#include "halide_local_laplacian_mullapudi2016.h"

namespace trapeze::bench {

std::vector<Variant> halide_local_laplacian_variants(const PeerContext& ctx) {
  using Function = int (*)(halide_buffer_t*, float, float, halide_buffer_t*);
  // alpha and beta are float32 parameters of the trapeze pipeline.
  const auto alpha = static_cast<float>(ctx.bound.at("alpha").f);
  const auto beta = static_cast<float>(ctx.bound.at("beta").f);
  return halide_variants_of<Function>(
      ctx,
      {{"manual", halide_local_laplacian_manual},
       {"mullapudi2016", halide_local_laplacian_mullapudi2016},
       {"adams2019", halide_local_laplacian_adams2019}},
      [alpha, beta](Function f, const BufferMap& in, BufferMap& out) {
        auto img_colour = halide_view(in.at("img_colour"));
        auto laplacian = halide_view(out.at("laplacian")); // both start at 0
        return f(img_colour, alpha, beta, laplacian);
      });
}

} // namespace trapeze::bench
