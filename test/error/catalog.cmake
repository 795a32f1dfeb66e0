# The catalog runs the command line, so it is built and run with the Release
# build's tests (label integration): the sanitizer build builds the library's
# tests only, and building the whole CLI there would cost CI minutes.
trapeze_add_gtest(error_catalog integration
  catalog_test.cpp
)
target_compile_definitions(error_catalog PRIVATE
  TRAPEZE_CLI_PATH="$<TARGET_FILE:trapeze_cli>")
add_dependencies(error_catalog trapeze_cli)
