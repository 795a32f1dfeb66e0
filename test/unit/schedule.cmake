trapeze_add_gtest(unit_schedule unit
  schedule_test.cpp
)
