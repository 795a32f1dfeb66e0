trapeze_add_gtest(unit_image_io unit
  image_formats_test.cpp
  image_io_test.cpp
  input_images_test.cpp
)
# The tests write palette, low-bit-depth and interlaced PNG files and planar
# and tiled TIFF files with libpng and libtiff themselves.
target_link_libraries(unit_image_io PRIVATE PNG::PNG TIFF::TIFF)
