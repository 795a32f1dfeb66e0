// Helpers shared by the app files.
#include "app.h"

#include "trapeze/error.h"

namespace trapeze::apps {

std::vector<std::int64_t> input_extents(const Pipeline& p, const std::string& input,
                                        const ParamValues& params) {
  const Box box = concrete_domain(*p.input(input), p.bind(params));
  std::vector<std::int64_t> extents;
  for (int d = 0; d < box.dimensions(); ++d)
    extents.push_back(box.extent(d));
  return extents;
}

void require_image_size(const std::string& app, std::int64_t rows, std::int64_t cols,
                        std::int64_t min_rows, std::int64_t min_cols) {
  if (rows >= min_rows && cols >= min_cols) return;
  throw Error("app '" + app + "' needs an image of at least " + std::to_string(min_rows) + " x " +
              std::to_string(min_cols) + " pixels (rows x cols), got " + std::to_string(rows) +
              " x " + std::to_string(cols));
}

} // namespace trapeze::apps
