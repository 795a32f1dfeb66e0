trapeze_add_gtest(integration_schedules integration
  schedules_test.cpp
)
target_compile_definitions(integration_schedules PRIVATE
  TRAPEZE_CLI_PATH="$<TARGET_FILE:trapeze_cli>")
add_dependencies(integration_schedules trapeze_cli)
