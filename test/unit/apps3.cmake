trapeze_add_gtest(unit_apps3 unit
  apps_interpolate_blend_test.cpp
)
