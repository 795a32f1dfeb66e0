trapeze_add_gtest(error_dsl error
  dsl_errors_test.cpp
)
