trapeze_add_gtest(correctness_parallel_loops correctness
  parallel_loops_test.cpp
)
