trapeze_add_gtest(unit_text_form unit
  text_form_apps_test.cpp
  text_form_test.cpp
)
# The example of docs/text-form.md is parsed by a test, so that it stays valid.
target_compile_definitions(unit_text_form PRIVATE TRAPEZE_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
