trapeze_add_gtest(correctness_apps correctness
  apps_jit_vs_interpreter_test.cpp
)
