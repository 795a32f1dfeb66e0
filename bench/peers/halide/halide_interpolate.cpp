// trapeze bench's Halide rows for interpolate: the three AOT-compiled
// versions of interpolate_generator.cpp, run on trapeze's buffers (wrapped,
// not copied).
#include "halide_peer_support.h"

#include "halide_interpolate_adams2019.h"
#include "halide_interpolate_manual.h"
#include "halide_interpolate_mullapudi2016.h"

namespace trapeze::bench {

std::vector<Variant> halide_interpolate_variants(const PeerContext& ctx) {
  using Function = int (*)(halide_buffer_t*, halide_buffer_t*);
  // Both start at 0. The autoschedulers' tiles fit outputs of the default
  // size ([3][2560][1536]); smaller ones are computed padded to it (the
  // generator bounds its reads of img by a boundary condition), and their rows say so.
  static const std::vector<int> autoscheduled_least = {3, 2560, 1536};
  const auto call = [](Function f, const BufferMap& in, BufferMap& out) {
    auto img = halide_view(in.at("img"));
    const std::vector<int> least =
        f == halide_interpolate_manual ? std::vector<int>{} : autoscheduled_least;
    return halide_run_padded(out.at("interpolate"), {}, least,
                             [&](halide_buffer_t* interpolate) { return f(img, interpolate); });
  };
  std::vector<Variant> variants =
      halide_variants_of<Function>(ctx,
                                   {{"manual", halide_interpolate_manual},
                                    {"mullapudi2016", halide_interpolate_mullapudi2016},
                                    {"adams2019", halide_interpolate_adams2019}},
                                   call);
  note_fixed_size(variants, ctx, "interpolate", autoscheduled_least);
  return variants;
}

} // namespace trapeze::bench
