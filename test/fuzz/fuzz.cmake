trapeze_add_gtest(fuzz_pipelines fuzz COST 60
  fuzz_test.cpp
  random_pipeline.cpp
  random_schedule.cpp
)
