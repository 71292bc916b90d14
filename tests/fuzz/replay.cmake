# The deterministic fuzz gate of the ordinary test build (included from tests/CMakeLists.txt):
# one executable, fuzz_replay, holding every fuzz target's entry point (each compiled under its
# own name, perfsweep_fuzz_one_NAME) and a standalone driver (replay_main.cpp); one ctest entry
# per target, "fuzz: NAME replays its corpus", that runs the target on every input of its
# committed corpus. No libFuzzer and no clang: the gcc build with its sanitizers runs it, in
# seconds, and the same tree always gives the same result. Mutation fuzzing (libFuzzer, clang)
# is bench/fuzz-long.sh; its findings go into the corpus, so this gate replays them from then on.
include(${CMAKE_CURRENT_LIST_DIR}/targets.cmake)

set(_replay_srcs ${CMAKE_CURRENT_LIST_DIR}/replay_main.cpp)
set(_replay_inc "")
foreach(name IN LISTS _fuzz_names)
  set(_src ${CMAKE_CURRENT_LIST_DIR}/fuzz_${name}.cpp)
  list(APPEND _replay_srcs ${_src})
  set_source_files_properties(${_src} PROPERTIES
    COMPILE_DEFINITIONS LLVMFuzzerTestOneInput=perfsweep_fuzz_one_${name})
  string(APPEND _replay_inc "PERFSWEEP_FUZZ_TARGET(${name})\n")
endforeach()
# Written only when the list changes (no rebuild on every configure).
file(CONFIGURE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/fuzz_replay_include/fuzz_replay_targets.inc
     CONTENT "${_replay_inc}")

add_executable(fuzz_replay ${_replay_srcs})
target_include_directories(fuzz_replay PRIVATE ${CMAKE_CURRENT_LIST_DIR}
                           ${CMAKE_CURRENT_BINARY_DIR}/fuzz_replay_include ${RAPIDJSON_INCLUDE_DIRS})
target_link_libraries(fuzz_replay PRIVATE perfsweep_cli perfsweep_adapters perfsweep_warnings)
perfsweep_sanitized_executable(fuzz_replay)
foreach(name IN LISTS _fuzz_names)
  add_test(NAME "fuzz: ${name} replays its corpus"
           COMMAND fuzz_replay ${name} ${CMAKE_CURRENT_LIST_DIR}/corpus/${name})
  set_tests_properties("fuzz: ${name} replays its corpus" PROPERTIES TIMEOUT 120 LABELS fuzz)
endforeach()
