trapeze_add_gtest(unit_codegen unit
  codegen_test.cpp
)
target_link_libraries(unit_codegen PRIVATE ${CMAKE_DL_LIBS})
