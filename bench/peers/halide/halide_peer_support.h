// What every Halide peer shares: trapeze buffers seen as Halide buffers (same
// memory, no copy), and the three variants of one app's AOT functions.
#pragma once

#include "peers.h"

#include "HalideBuffer.h"
#include "HalideRuntime.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace trapeze::bench {

/// `b` as a Halide buffer over the same memory. Halide lists the innermost
/// dimension first, so trapeze's dimensions appear reversed; `mins` gives the
/// coordinate of index 0 per dimension in trapeze's order (empty: all 0), so
/// that a generator can use the trapeze pipeline's own coordinates.
Halide::Runtime::Buffer<> halide_view(const Buffer& b, const std::vector<int>& mins = {});

/// The extents of output `output` of ctx's pipeline at the app's default size,
/// in Halide's order (innermost first): the size the generators' estimates
/// describe.
std::vector<int> default_output_extents(const PeerContext& ctx, const std::string& output);

/// Calls `call(inputs, output)`, or, where `output` is smaller than
/// `min_extents` (Halide's order) in some dimension, calls it on zero-filled
/// copies of the inputs and the output grown at the high end of each such
/// dimension by the shortfall, and copies the original region of the output
/// back. Why: the autoschedulers split outputs into tiles sized for the
/// estimates, with tails shifted inwards, so an output narrower than one tile
/// makes Halide report an out-of-bounds access (as in the --small runs).
/// Input dimensions are matched to the output's innermost first; the
/// generator must compute the original region from the original inputs only
/// (sizes passed as scalars, not taken from the grown buffers). Returns
/// call's status.
int call_grown(std::vector<Halide::Runtime::Buffer<>> inputs, Halide::Runtime::Buffer<> output,
               const std::vector<int>& min_extents,
               const std::function<int(std::vector<Halide::Runtime::Buffer<>>& inputs,
                                       Halide::Runtime::Buffer<>& output)>& call);
/// Calls `run` with `out` seen as a Halide buffer (mins as for halide_view)
/// and returns its status. An autoscheduled pipeline's tiles are chosen for
/// the default size and may be larger than a small output, whose ShiftInwards
/// tails would then write before its start: where an extent of `out` is below
/// `min_extents` (trapeze's order; empty: never), the pipeline writes a
/// scratch buffer of at least those extents from the same mins instead (it
/// must clamp its input reads), and the part `out` covers is copied back.
int halide_run_padded(const Buffer& out, const std::vector<int>& mins,
                      const std::vector<int>& min_extents,
                      const std::function<int(halide_buffer_t*)>& run);

/// Gives every row of `variants` but "halide manual" the note that it computes
/// `output` at least `least` large (halide_run_padded's min_extents) where the
/// bound size is smaller (fixed_size_note).
void note_fixed_size(std::vector<Variant>& variants, const PeerContext& ctx,
                     const std::string& output, const std::vector<int>& least);

/// One Halide row (used by halide_variants_of).
Variant halide_variant(const PeerContext& ctx, const std::string& name,
                       std::function<int(const BufferMap& inputs, BufferMap& outputs)> call);

/// The Halide rows of one app: "halide <schedule>" for each AOT function in
/// `functions`; run() sets Halide's thread count to ctx.threads and calls
/// `call(function, inputs, outputs)`, which wraps the buffers with
/// halide_view and calls the function; a nonzero return is a trapeze::Error.
template <typename Function> std::vector<Variant>
halide_variants_of(const PeerContext& ctx,
                   const std::vector<std::pair<std::string, Function>>& functions,
                   std::function<int(Function, const BufferMap& inputs, BufferMap& outputs)> call) {
  std::vector<Variant> variants;
  for (const auto& [schedule, function] : functions) {
    variants.push_back(halide_variant(
        ctx, "halide " + schedule,
        [call, fn = function](const BufferMap& in, BufferMap& out) { return call(fn, in, out); }));
  }
  return variants;
}

/// The Halide rows of each app (halide_APP.cpp).
std::vector<Variant> halide_bilateral_grid_variants(const PeerContext& ctx);
std::vector<Variant> halide_blur_variants(const PeerContext& ctx);
std::vector<Variant> halide_camera_pipe_variants(const PeerContext& ctx);
std::vector<Variant> halide_harris_variants(const PeerContext& ctx);
std::vector<Variant> halide_interpolate_variants(const PeerContext& ctx);
std::vector<Variant> halide_local_laplacian_variants(const PeerContext& ctx);
std::vector<Variant> halide_pyramid_blend_variants(const PeerContext& ctx);
std::vector<Variant> halide_unsharp_variants(const PeerContext& ctx);

} // namespace trapeze::bench
