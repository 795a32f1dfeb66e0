# trapeze bench with its peers, run through the CLI: every row checked, and the
# peers' rows present exactly for the apps this build's peers cover.
trapeze_add_gtest(integration_bench_peers integration COST 240
  bench_peers_test.cpp
)
target_compile_definitions(integration_bench_peers PRIVATE
  TRAPEZE_CLI_PATH="$<TARGET_FILE:trapeze_cli>"
  $<$<TARGET_EXISTS:trapeze_halide_peers>:TRAPEZE_TEST_HAVE_HALIDE=1>
  $<$<TARGET_EXISTS:trapeze_opencv_peers>:TRAPEZE_TEST_HAVE_OPENCV=1>)
target_link_libraries(integration_bench_peers PRIVATE trapeze_bench trapeze_bench_peers
                      nlohmann_json::nlohmann_json)
add_dependencies(integration_bench_peers trapeze_cli)
