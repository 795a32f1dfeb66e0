# docs/tutorial.md, run as a new user would type it: every code block, in
# order, against this build installed into a scratch home (scripts/run_tutorial.sh).
# Not in a sanitized build: the tutorial's programs are built without the
# sanitizer runtime a sanitized libtrapeze needs.
if(NOT TRAPEZE_SANITIZE)
  add_test(NAME Integration.Tutorial
           COMMAND ${PROJECT_SOURCE_DIR}/scripts/run_tutorial.sh ${PROJECT_BINARY_DIR}
                   ${PROJECT_SOURCE_DIR}/docs/tutorial.md)
  set_tests_properties(Integration.Tutorial PROPERTIES LABELS integration TIMEOUT 600 COST 22)
endif()
# A block without a marker is refused, naming its line, before anything runs.
add_test(NAME Integration.TutorialRefusesAnUnmarkedBlock
         COMMAND ${PROJECT_SOURCE_DIR}/scripts/run_tutorial.sh ${PROJECT_BINARY_DIR}
                 ${CMAKE_CURRENT_SOURCE_DIR}/data/unmarked_block.md)
set_tests_properties(Integration.TutorialRefusesAnUnmarkedBlock PROPERTIES LABELS integration
  PASS_REGULAR_EXPRESSION "unmarked_block.md:8: a code block without a <!-- tutorial: ... --> marker")
# The README's first program, with its install and build lines.
if(NOT TRAPEZE_SANITIZE)
  add_test(NAME Integration.ReadmeProgram
           COMMAND ${PROJECT_SOURCE_DIR}/scripts/run_tutorial.sh ${PROJECT_BINARY_DIR}
                   ${PROJECT_SOURCE_DIR}/README.md)
  set_tests_properties(Integration.ReadmeProgram PROPERTIES LABELS integration TIMEOUT 600)
endif()
