trapeze_add_gtest(correctness_reductions correctness
  reductions_test.cpp
)
