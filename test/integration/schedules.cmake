trapeze_add_gtest(integration_schedules integration
  schedules_test.cpp
)
target_compile_definitions(integration_schedules PRIVATE
  TRAPEZE_CLI_PATH="$<TARGET_FILE:trapeze_cli>")
add_dependencies(integration_schedules trapeze_cli)

# The whole matrix (every app x every shape, the JIT's default flags): label slow.
trapeze_add_gtest(integration_schedules_every_shape slow
  schedules_test.cpp
)
target_compile_definitions(integration_schedules_every_shape PRIVATE
  TRAPEZE_CLI_PATH="$<TARGET_FILE:trapeze_cli>" TRAPEZE_EVERY_SHAPE=1)
add_dependencies(integration_schedules_every_shape trapeze_cli)
