// Writes DIR/blur.h and DIR/blur.cpp: the 3x3 box blur of the benchmark suite,
// as two separable stages (see docs/aot.md).
#include "trapeze/trapeze.h"

#include <exception>
#include <iostream>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " OUTPUT_DIR\n";
    return 2;
  }
  try {
    using namespace trapeze;
    Param R("R"), C("C");
    Var x("x"), y("y");
    Image img("img", ScalarType::Float32, {R + 2, C + 2});
    Func blurx("blurx", ScalarType::Float32, {x, y}, {{1, R}, {0, C + 1}});
    blurx.define((img(x - 1, y) + img(x, y) + img(x + 1, y)) / 3.0f);
    Func blury("blury", ScalarType::Float32, {x, y}, {{1, R}, {1, C}});
    blury.define((blurx(x, y - 1) + blurx(x, y) + blurx(x, y + 1)) / 3.0f);
    for (const std::string& path : emit_aot(Pipeline({blury}, "blur"), argv[1]))
      std::cout << "wrote " << path << "\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << e.what() << "\n";
    return 1;
  }
}
