trapeze_add_gtest(unit_autoschedule unit COST 75
  autoschedule_test.cpp
)
