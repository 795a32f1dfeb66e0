// The OpenCV rows of trapeze bench: for now, every app is listed as skipped.
#include "peers.h"

namespace trapeze::bench {

std::vector<Variant> opencv_variants(const PeerContext& ctx, std::vector<std::string>& skipped) {
  skipped.push_back("opencv: no OpenCV version of " + ctx.app.name + " yet");
  return {};
}

} // namespace trapeze::bench
