trapeze_add_gtest(unit_text_form unit
  text_form_test.cpp
)
