trapeze_add_gtest(unit_apps unit
  apps_test.cpp
)
