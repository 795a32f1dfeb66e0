trapeze_add_gtest(unit_tiling unit
  tiling_test.cpp
)
trapeze_add_gtest(unit_lowering_passes unit
  lowering_passes_test.cpp
)
