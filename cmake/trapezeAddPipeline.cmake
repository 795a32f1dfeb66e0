# trapeze_add_pipeline: a pipeline compiled ahead of time into a static
# library, at build time. Part of the trapeze CMake package (find_package).
#
#   trapeze_add_pipeline(<target>
#     SOURCE <pipeline.tz | generator.cpp>
#     [PIPELINE <name>]                  # the pipeline's name; default <target>
#     [SCHEDULE <schedule.json> | SCHEDULER <dp|greedy|halide-greedy|naive>]
#     [PARAMS <NAME=VALUE>...]           # the sizes the schedule is made for
#     [MACHINE <machine.json>]           # the machine it is made for; default: this one
#     [TARGET_FLAGS <flag>...])          # default: -O3 -ffp-contract=off -fno-trapping-math
#
# A .tz source is a pipeline in the text form (docs/text-form.md); `trapeze
# emit` turns it into C++ under the schedule given (the dp scheduler by
# default). A C++ source is a generator: a program, linked with trapeze, that
# builds the pipeline with the DSL and calls trapeze::emit_aot(p, argv[1])
# (under the schedule it chooses itself). The automatic schedulers make a
# schedule for the build machine (its caches, and its row-run bandwidth
# measured once per build tree) unless MACHINE names a machine model file
# (`trapeze machine --json`): a build that should give the same code on every
# machine names one. Either way <target> is a static
# library of the generated code, OpenMP linked, whose include directory holds
# <name>.h: the C entry point trapeze_<name> and the typed C++ function
# trapeze_aot::<name> (docs/aot.md). Add -march=native (or another -march) to
# TARGET_FLAGS for the fastest code on the build machine's kind of CPU.
include_guard(GLOBAL)

function(trapeze_add_pipeline target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "SOURCE;PIPELINE;SCHEDULE;SCHEDULER;MACHINE"
                        "PARAMS;TARGET_FLAGS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "trapeze_add_pipeline(${target}): unknown arguments "
                        "'${arg_UNPARSED_ARGUMENTS}'")
  endif()
  if(NOT arg_SOURCE)
    message(FATAL_ERROR "trapeze_add_pipeline(${target}): SOURCE <file.tz|generator.cpp> is required")
  endif()
  if(arg_SCHEDULE AND arg_SCHEDULER)
    message(FATAL_ERROR "trapeze_add_pipeline(${target}): give SCHEDULE or SCHEDULER, not both")
  endif()
  if(NOT arg_PIPELINE)
    set(arg_PIPELINE ${target})
  endif()
  if(NOT DEFINED arg_TARGET_FLAGS)
    set(arg_TARGET_FLAGS -O3 -ffp-contract=off -fno-trapping-math)
  endif()
  # The files are named after the pipeline, as emit writes them.
  string(REGEX REPLACE "[^A-Za-z0-9_]" "_" file_name "${arg_PIPELINE}")
  get_filename_component(source "${arg_SOURCE}" ABSOLUTE)
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/${target}_generated")
  set(outputs "${dir}/${arg_PIPELINE}.h" "${dir}/${arg_PIPELINE}.cpp")

  if(source MATCHES "\\.(tz|txt)$")
    set(options "")
    set(schedule "") # not the caller's variable of that name
    set(machine "")
    if(arg_MACHINE)
      get_filename_component(machine "${arg_MACHINE}" ABSOLUTE)
      list(APPEND options --machine "${machine}")
    endif()
    if(arg_SCHEDULE)
      get_filename_component(schedule "${arg_SCHEDULE}" ABSOLUTE)
      list(APPEND options --schedule "${schedule}")
    elseif(arg_SCHEDULER)
      list(APPEND options --scheduler ${arg_SCHEDULER})
    endif()
    foreach(param IN LISTS arg_PARAMS)
      list(APPEND options --param ${param})
    endforeach()
    add_custom_command(
      OUTPUT ${outputs}
      # The automatic schedulers' cache stays in the build tree.
      COMMAND ${CMAKE_COMMAND} -E env "TRAPEZE_CACHE_DIR=${dir}/cache"
              $<TARGET_FILE:trapeze::cli> emit "${source}" --out "${dir}" ${options}
      DEPENDS "${source}" ${schedule} ${machine} trapeze::cli
      COMMENT "trapeze: generating pipeline '${arg_PIPELINE}' from ${arg_SOURCE}"
      VERBATIM)
  elseif(source MATCHES "\\.(cpp|cc|cxx|C)$")
    if(arg_SCHEDULE OR arg_SCHEDULER OR arg_PARAMS OR arg_MACHINE)
      message(FATAL_ERROR "trapeze_add_pipeline(${target}): SCHEDULE, SCHEDULER, PARAMS and "
                          "MACHINE apply to .tz sources; a generator passes its schedule (and "
                          "machine) to emit_aot")
    endif()
    add_executable(${target}_generator "${source}")
    target_link_libraries(${target}_generator PRIVATE trapeze::trapeze)
    add_custom_command(
      OUTPUT ${outputs}
      COMMAND ${CMAKE_COMMAND} -E env "TRAPEZE_CACHE_DIR=${dir}/cache"
              $<TARGET_FILE:${target}_generator> "${dir}"
      DEPENDS ${target}_generator
      COMMENT "trapeze: generating pipeline '${arg_PIPELINE}' with ${arg_SOURCE}"
      VERBATIM)
  else()
    message(FATAL_ERROR "trapeze_add_pipeline(${target}): SOURCE '${arg_SOURCE}' is neither a "
                        "pipeline text file (.tz) nor a generator (.cpp)")
  endif()

  find_package(OpenMP REQUIRED COMPONENTS CXX)
  add_library(${target} STATIC ${outputs})
  target_include_directories(${target} PUBLIC "${dir}")
  target_compile_features(${target} PUBLIC cxx_std_17)
  target_compile_options(${target} PRIVATE ${arg_TARGET_FLAGS})
  target_link_libraries(${target} PUBLIC OpenMP::OpenMP_CXX)
  set_target_properties(${target} PROPERTIES POSITION_INDEPENDENT_CODE ON)
endfunction()
