trapeze_add_gtest(correctness_parallel_loops correctness COST 12
  parallel_loops_test.cpp
)
