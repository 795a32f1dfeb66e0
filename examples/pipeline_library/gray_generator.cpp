// A generator: builds the pipeline with trapeze's C++ DSL and writes its C++
// into the directory it is given (trapeze_add_pipeline runs it at build time).
#include <trapeze/trapeze.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT_DIR\n", argv[0]);
    return 2;
  }
  using namespace trapeze;
  Param R("R"), C("C");
  Var c("c"), x("x"), y("y");
  // An 8-bit colour image, [channel][row][column]: a caller's interleaved
  // RGB pixels are the same image with strides {1, 3 * C, 3}.
  Image rgb("rgb", ScalarType::UInt8, {3, R, C});
  Func gray("gray", ScalarType::Float32, {x, y}, {{0, R - 1}, {0, C - 1}});
  gray.define((cast(ScalarType::Float32, rgb(0, x, y)) * 0.299f + rgb(1, x, y) * 0.587f +
               rgb(2, x, y) * 0.114f) /
              255.0f);
  Pipeline p({gray}, "gray");
  try {
    for (const std::string& file : emit_aot(p, argv[1]))
      std::printf("wrote %s\n", file.c_str());
  } catch (const Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
