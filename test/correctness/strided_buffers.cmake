trapeze_add_gtest(correctness_strided_buffers correctness
  strided_buffers_test.cpp
)
