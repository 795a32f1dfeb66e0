trapeze_add_gtest(error_catalog error
  catalog_test.cpp
)
target_compile_definitions(error_catalog PRIVATE
  TRAPEZE_CLI_PATH="$<TARGET_FILE:trapeze_cli>")
add_dependencies(error_catalog trapeze_cli)
