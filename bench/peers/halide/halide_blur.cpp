// trapeze bench's Halide rows for blur: the three AOT-compiled versions of
// blur_generator.cpp, run on trapeze's buffers (wrapped, not copied).
#include "halide_peer_support.h"

#include "halide_blur_adams2019.h"
#include "halide_blur_manual.h"
#include "halide_blur_mullapudi2016.h"

namespace trapeze::bench {

std::vector<Variant> halide_blur_variants(const PeerContext& ctx) {
  using Function = int (*)(halide_buffer_t*, halide_buffer_t*);
  return halide_variants_of<Function>(
      ctx,
      {{"manual", halide_blur_manual},
       {"mullapudi2016", halide_blur_mullapudi2016},
       {"adams2019", halide_blur_adams2019}},
      [](Function f, const BufferMap& in, BufferMap& out) {
        auto img = halide_view(in.at("img"));
        auto blury = halide_view(out.at("blury"), {1, 1}); // blury's domain starts at (1, 1)
        return f(img, blury);
      });
}

} // namespace trapeze::bench
