trapeze_add_gtest(unit_jit unit COST 14
  buffer_pool_test.cpp
  jit_cache_test.cpp
  module_loader_test.cpp
)
