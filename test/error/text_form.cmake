trapeze_add_gtest(error_text_form error
  text_form_test.cpp
)
