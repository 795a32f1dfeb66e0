trapeze_add_gtest(unit_autoschedule unit
  autoschedule_test.cpp
)
