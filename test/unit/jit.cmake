trapeze_add_gtest(unit_jit unit
  jit_cache_test.cpp
  module_loader_test.cpp
)
