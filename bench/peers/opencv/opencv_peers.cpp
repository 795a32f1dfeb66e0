// The dispatch from an app to its OpenCV version; the apps without one are
// listed as skipped.
#include "opencv_peer_support.h"

#include <map>

namespace trapeze::bench {

namespace {

const PeerMakers& opencv_makers() {
  static const PeerMakers makers = {
      {"blur", opencv_blur_variants},
      {"harris", opencv_harris_variants},
      {"unsharp", opencv_unsharp_variants},
  };
  return makers;
}

} // namespace

std::vector<std::string> opencv_apps() { return app_names(opencv_makers()); }

std::vector<Variant> opencv_variants(const PeerContext& ctx, std::vector<std::string>& skipped) {
  const auto it = opencv_makers().find(ctx.app.name);
  if (it == opencv_makers().end()) {
    skipped.push_back("opencv: no OpenCV equivalent of " + ctx.app.name);
    return {};
  }
  return it->second(ctx);
}

} // namespace trapeze::bench
