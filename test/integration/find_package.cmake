# The installed package, used the way a user's project uses it: install into a
# temporary prefix, check pkg-config's flags, then configure, build and run
# examples/find_package (the library) and examples/pipeline_library
# (trapeze_add_pipeline, the typed AOT functions).
set(find_package_example_flags "")
if(TRAPEZE_SANITIZE)
  # A sanitized libtrapeze needs the sanitizer runtime in the program too.
  set(find_package_example_flags "-fsanitize=address,undefined")
endif()
add_test(NAME Integration.FindPackage
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/find_package.sh ${PROJECT_BINARY_DIR}
                 ${PROJECT_SOURCE_DIR}/examples/find_package:${PROJECT_SOURCE_DIR}/examples/pipeline_library
                 ${CMAKE_COMMAND} "${CMAKE_GENERATOR}"
                 ${CMAKE_CXX_COMPILER} "${find_package_example_flags}")
set_tests_properties(Integration.FindPackage PROPERTIES LABELS integration TIMEOUT 600 COST 16)
