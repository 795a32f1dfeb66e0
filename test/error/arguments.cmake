trapeze_add_gtest(error_arguments error
  arguments_test.cpp
)
