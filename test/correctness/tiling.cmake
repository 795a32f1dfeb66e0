trapeze_add_gtest(correctness_tiling correctness COST 35
  tiling_test.cpp
)
