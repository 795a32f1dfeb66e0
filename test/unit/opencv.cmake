# trapeze/opencv.h against OpenCV's core module (libopencv-core-dev, which has
# no CMake package of its own: found by its header and library).
find_path(TRAPEZE_OPENCV_CORE_INCLUDE opencv2/core.hpp PATH_SUFFIXES opencv4)
find_library(TRAPEZE_OPENCV_CORE_LIBRARY opencv_core)
if(TRAPEZE_OPENCV_CORE_INCLUDE AND TRAPEZE_OPENCV_CORE_LIBRARY)
  trapeze_add_gtest(unit_opencv unit
    opencv_test.cpp
  )
  # OpenCV's headers are not ours to keep warning-free.
  target_include_directories(unit_opencv SYSTEM PRIVATE ${TRAPEZE_OPENCV_CORE_INCLUDE})
  target_link_libraries(unit_opencv PRIVATE ${TRAPEZE_OPENCV_CORE_LIBRARY})
else()
  message(STATUS "OpenCV core not found: the tests of trapeze/opencv.h are skipped")
endif()
