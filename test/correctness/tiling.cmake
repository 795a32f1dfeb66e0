trapeze_add_gtest(correctness_tiling correctness
  tiling_test.cpp
)
