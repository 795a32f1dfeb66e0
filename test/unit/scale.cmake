trapeze_add_gtest(unit_scale unit
  scale_test.cpp
)
