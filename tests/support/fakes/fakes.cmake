# In-memory fakes of every port (perfsweep_fakes): the use-case tests and the benchmarks run the
# application layer in-process with them. Included from tests/CMakeLists.txt (so a sanitizer build
# compiles them like the rest of the test code) and, without the tests, from bench/CMakeLists.txt.
if(NOT TARGET perfsweep_fakes)
  file(GLOB _fakes CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/*.cpp)
  add_library(perfsweep_fakes STATIC ${_fakes})
  target_include_directories(perfsweep_fakes PUBLIC ${PROJECT_SOURCE_DIR}/tests)
  target_link_libraries(perfsweep_fakes PUBLIC perfsweep_app perfsweep_adapters
                                        PRIVATE perfsweep_warnings)
  perfsweep_forbid(perfsweep_fakes rapidjson curl git2 cli11)
endif()
