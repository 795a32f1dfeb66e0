trapeze_add_gtest(unit_analysis unit
  analysis_test.cpp
)
