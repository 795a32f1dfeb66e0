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
std::vector<Variant> halide_blur_variants(const PeerContext& ctx);
std::vector<Variant> halide_local_laplacian_variants(const PeerContext& ctx);
std::vector<Variant> halide_pyramid_blend_variants(const PeerContext& ctx);

} // namespace trapeze::bench
