trapeze_add_gtest(unit_apps2 unit
  apps_bilateral_camera_test.cpp
)
