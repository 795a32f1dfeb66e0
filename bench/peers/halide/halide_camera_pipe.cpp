// trapeze bench's Halide rows for camera_pipe: the three AOT-compiled
// versions of camera_pipe_generator.cpp, run on trapeze's buffers (wrapped,
// not copied) with the bound colour temperature, gamma and contrast.
#include "halide_peer_support.h"

#include "halide_camera_pipe_adams2019.h"
#include "halide_camera_pipe_manual.h"
#include "halide_camera_pipe_mullapudi2016.h"

namespace trapeze::bench {

std::vector<Variant> halide_camera_pipe_variants(const PeerContext& ctx) {
  using Function = int (*)(halide_buffer_t*, halide_buffer_t*, halide_buffer_t*, float, float,
                           float, halide_buffer_t*);
  const auto colour_temp = static_cast<float>(ctx.bound.at("colour_temp").f);
  const auto gamma = static_cast<float>(ctx.bound.at("gamma").f);
  const auto contrast = static_cast<float>(ctx.bound.at("contrast").f);
  // process's domain starts at (c, x, y) = (0, 12, 16). The autoschedulers'
  // tiles fit outputs of the default size ([3][1920][2528]); smaller ones are
  // computed padded to it (the generator clamps its reads of img), and their
  // rows say so.
  static const std::vector<int> autoscheduled_least = {3, 1920, 2528};
  const auto call = [=](Function f, const BufferMap& in, BufferMap& out) {
    auto img = halide_view(in.at("img"));
    auto m3200 = halide_view(in.at("matrix_3200"));
    auto m7000 = halide_view(in.at("matrix_7000"));
    const std::vector<int> least =
        f == halide_camera_pipe_manual ? std::vector<int>{} : autoscheduled_least;
    return halide_run_padded(out.at("process"), {0, 12, 16}, least, [&](halide_buffer_t* process) {
      return f(img, m3200, m7000, colour_temp, gamma, contrast, process);
    });
  };
  std::vector<Variant> variants =
      halide_variants_of<Function>(ctx,
                                   {{"manual", halide_camera_pipe_manual},
                                    {"mullapudi2016", halide_camera_pipe_mullapudi2016},
                                    {"adams2019", halide_camera_pipe_adams2019}},
                                   call);
  note_fixed_size(variants, ctx, "process", autoscheduled_least);
  return variants;
}

} // namespace trapeze::bench
