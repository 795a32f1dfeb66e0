// The list of apps. Each app file defines one function returning its App.
#include "app.h"

#include "trapeze/error.h"

namespace trapeze::apps {

const std::vector<App>& all_apps() {
  // One app a line, in the order of the suite (kept so: easy to extend).
  // clang-format off
  static const std::vector<App> apps = {
      make_blur_app(),
      make_unsharp_app(),
      make_harris_app(),
      make_bilateral_grid_app(),
      make_camera_pipe_app(),
      make_pyramid_blend_app(),
      make_interpolate_app(),
      make_local_laplacian_app(),
      // The eight multigrid cycles: (dimensions, cycle, nu1, nu2, nuc).
      make_multigrid_app({2, 'V', 4, 4, 4}),
      make_multigrid_app({2, 'V', 10, 0, 0}),
      make_multigrid_app({2, 'W', 4, 4, 4}),
      make_multigrid_app({2, 'W', 10, 0, 0}),
      make_multigrid_app({3, 'V', 4, 4, 4}),
      make_multigrid_app({3, 'V', 10, 0, 0}),
      make_multigrid_app({3, 'W', 4, 4, 4}),
      make_multigrid_app({3, 'W', 10, 0, 0}),
  };
  // clang-format on
  return apps;
}

const App& find_app(const std::string& name) {
  std::string names;
  for (const App& a : all_apps()) {
    if (a.name == name) return a;
    names += (names.empty() ? "" : ", ") + a.name;
  }
  throw Error("no app named '" + name + "'; the apps are: " + names);
}

} // namespace trapeze::apps
