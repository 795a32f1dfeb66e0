trapeze_add_gtest(correctness_apps correctness COST 90
  apps_jit_vs_interpreter_test.cpp
)
