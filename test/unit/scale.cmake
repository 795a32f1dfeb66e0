trapeze_add_gtest(unit_scale unit COST 25
  scale_test.cpp
)
