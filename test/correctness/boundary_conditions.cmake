trapeze_add_gtest(correctness_boundary_conditions correctness COST 18
  boundary_conditions_test.cpp
)
