trapeze_add_gtest(unit_tiling unit COST 60
  tiling_test.cpp
)
trapeze_add_gtest(unit_lowering_passes unit COST 70
  lowering_passes_test.cpp
)
