// Dispatch from a peer's name to its implementations, and the skipped lines
// for the peers this build does not have.
#include "peers.h"

#include "trapeze/error.h"

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
