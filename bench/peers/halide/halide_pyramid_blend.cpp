// trapeze bench's Halide rows for pyramid_blend: the three AOT-compiled
// versions of pyramid_blend_generator.cpp, run on trapeze's buffers (wrapped,
// not copied).
#include "halide_peer_support.h"

#include "halide_pyramid_blend_adams2019.h"
#include "halide_pyramid_blend_manual.h"
#include "halide_pyramid_blend_mullapudi2016.h"

namespace trapeze::bench {

std::vector<Variant> halide_pyramid_blend_variants(const PeerContext& ctx) {
  using Function = int (*)(halide_buffer_t*, halide_buffer_t*, halide_buffer_t*, halide_buffer_t*);
  return halide_variants_of<Function>(ctx,
                                      {{"manual", halide_pyramid_blend_manual},
                                       {"mullapudi2016", halide_pyramid_blend_mullapudi2016},
                                       {"adams2019", halide_pyramid_blend_adams2019}},
                                      [](Function f, const BufferMap& in, BufferMap& out) {
                                        auto img1 = halide_view(in.at("img1"));
                                        auto img2 = halide_view(in.at("img2"));
                                        auto mask = halide_view(in.at("mask"));
                                        // blend's domain is [0, 2] x [31, R-30] x [31, C-30].
                                        auto blend = halide_view(out.at("blend"), {0, 31, 31});
                                        return f(img1, img2, mask, blend);
                                      });
}

} // namespace trapeze::bench
