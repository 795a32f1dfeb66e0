trapeze_add_gtest(integration_cli integration
  cli_test.cpp
)
target_compile_definitions(integration_cli PRIVATE
  TRAPEZE_CLI_PATH="$<TARGET_FILE:trapeze_cli>")
add_dependencies(integration_cli trapeze_cli)
