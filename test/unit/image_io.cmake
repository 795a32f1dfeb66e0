trapeze_add_gtest(unit_image_io unit
  image_io_test.cpp
)
# The test writes palette, low-bit-depth and interlaced files with libpng itself.
target_link_libraries(unit_image_io PRIVATE PNG::PNG)
