# The installed package, used the way a user's project uses it: install into a
# temporary prefix, then configure, build and run examples/find_package.
add_test(NAME Integration.FindPackage
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/find_package.sh ${PROJECT_BINARY_DIR}
                 ${PROJECT_SOURCE_DIR}/examples/find_package ${CMAKE_COMMAND} "${CMAKE_GENERATOR}"
                 ${CMAKE_CXX_COMPILER})
set_tests_properties(Integration.FindPackage PROPERTIES LABELS integration TIMEOUT 600)
