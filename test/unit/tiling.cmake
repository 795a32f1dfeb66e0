trapeze_add_gtest(unit_tiling unit
  tiling_test.cpp
)
