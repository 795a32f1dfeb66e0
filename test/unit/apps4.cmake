trapeze_add_gtest(unit_apps4 unit
  apps_laplacian_multigrid_test.cpp
)
