trapeze_add_gtest(unit_interpreter unit
  interpreter_test.cpp
  interval_bounds_test.cpp
)
