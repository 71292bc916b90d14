# docs/commands.md is generated from the option table: fails when the file differs from what
# `perfsweep help --markdown` prints. With -DWRITE=ON it rewrites the file instead (the
# `docs_commands` target).
# Usage: cmake -DPERFSWEEP=<binary> -DDOC=<docs/commands.md> [-DWRITE=ON] -P check_commands_doc.cmake
cmake_minimum_required(VERSION 3.25)
execute_process(COMMAND ${PERFSWEEP} help --markdown OUTPUT_VARIABLE generated
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "perfsweep help --markdown failed (${rc}): ${err}")
endif()
if(WRITE)
  file(WRITE ${DOC} "${generated}")
  message(STATUS "wrote ${DOC}")
  return()
endif()
if(NOT EXISTS ${DOC})
  message(FATAL_ERROR "${DOC} is missing; generate it: cmake --build build --target docs_commands")
endif()
file(READ ${DOC} current)
if(NOT current STREQUAL generated)
  # Name the first line that differs, so the failure says what to look at.
  string(REPLACE "\n" ";" a "${current}")
  string(REPLACE "\n" ";" b "${generated}")
  list(LENGTH a na)
  list(LENGTH b nb)
  set(line 0)
  while(line LESS na AND line LESS nb)
    list(GET a ${line} la)
    list(GET b ${line} lb)
    if(NOT la STREQUAL lb)
      break()
    endif()
    math(EXPR line "${line} + 1")
  endwhile()
  math(EXPR shown "${line} + 1")
  message(FATAL_ERROR "${DOC} differs from `perfsweep help --markdown` (the option table) at "
                      "line ${shown}; regenerate it: cmake --build build --target docs_commands")
endif()
