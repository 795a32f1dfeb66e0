trapeze_add_gtest(fuzz_pipelines fuzz
  fuzz_test.cpp
  random_pipeline.cpp
  random_schedule.cpp
)
