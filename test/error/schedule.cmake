trapeze_add_gtest(error_schedule error
  schedule_test.cpp
)
