trapeze_add_gtest(unit_ir unit
  ir_test.cpp
)
