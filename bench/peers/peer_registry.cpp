// Dispatch from a peer's name to its implementations, and the skipped lines
// for the peers this build does not have.
#include "peers.h"

#include "trapeze/error.h"

#include <algorithm>

namespace trapeze::bench {

std::vector<Variant> peer_variants(const std::string& peer, [[maybe_unused]] const PeerContext& ctx,
                                   std::vector<std::string>& skipped) {
  if (peer == "halide") {
#ifdef TRAPEZE_HAVE_HALIDE
    return halide_variants(ctx, skipped);
#else
    skipped.push_back("halide: this trapeze was built without its Halide 14 peers "
                      "(scripts/build_peers.sh builds them, once: about 20 minutes on 2 cores)");
    return {};
#endif
  }
  if (peer == "opencv") {
#ifdef TRAPEZE_HAVE_OPENCV
    return opencv_variants(ctx, skipped);
#else
    skipped.push_back("opencv: this trapeze was built without its OpenCV 4 peers "
                      "(scripts/build_peers.sh builds them, once)");
    return {};
#endif
  }
  throw Error("unknown peer '" + peer + "' (known: halide, opencv)");
}

std::string fixed_size_note(const std::vector<std::int64_t>& extents,
                            const std::vector<std::int64_t>& least) {
  const auto shape = [](const std::vector<std::int64_t>& e) {
    std::string s;
    for (const std::int64_t n : e)
      s += "[" + std::to_string(n) + "]";
    return s;
  };
  std::vector<std::int64_t> computed = extents;
  for (std::size_t d = 0; d < computed.size() && d < least.size(); ++d)
    computed[d] = std::max(computed[d], least[d]);
  if (computed == extents) return "";
  return "timed at Halide's fixed size: computes " + shape(computed) + " (its tiles fit no " +
         "smaller output) and keeps the " + shape(extents) + " asked for";
}

std::vector<std::string> app_names(const PeerMakers& makers) {
  std::vector<std::string> names;
  for (const auto& [name, maker] : makers)
    names.push_back(name);
  return names;
}

std::vector<std::string> peer_apps(const std::string& peer) {
  if (peer == "halide") {
#ifdef TRAPEZE_HAVE_HALIDE
    return halide_apps();
#else
    return {};
#endif
  }
  if (peer == "opencv") {
#ifdef TRAPEZE_HAVE_OPENCV
    return opencv_apps();
#else
    return {};
#endif
  }
  throw Error("unknown peer '" + peer + "' (known: halide, opencv)");
}

} // namespace trapeze::bench
