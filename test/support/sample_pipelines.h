// Small pipelines shared by tests.
#pragma once

#include "trapeze/dsl.h"
#include "trapeze/pipeline.h"

namespace trapeze::testing_support {

/// The two-stage blur of benchmarks.md section 0 (no parameter defaults):
/// blurx on [1, R] x [0, C + 1], blury (output) on [1, R] x [1, C].
inline Pipeline sample_blur() {
  Param R("R"), C("C");
  Var x("x"), y("y");
  Image img("img", ScalarType::Float32, {R + 2, C + 2});
  Func blurx("blurx", ScalarType::Float32, {x, y}, {{1, R}, {0, C + 1}});
  blurx.define((img(x - 1, y) + img(x, y) + img(x + 1, y)) / 3.0f);
  Func blury("blury", ScalarType::Float32, {x, y}, {{1, R}, {1, C}});
  blury.define((blurx(x, y - 1) + blurx(x, y) + blurx(x, y + 1)) / 3.0f);
  return Pipeline({blury}, "blur");
}

} // namespace trapeze::testing_support
