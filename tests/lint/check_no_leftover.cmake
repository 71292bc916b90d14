# Fails when DIR exists: something a test ran left it in the build tree (tests/CMakeLists.txt).
if(EXISTS "${DIR}")
  file(GLOB _left RELATIVE "${DIR}" "${DIR}/*")
  message(FATAL_ERROR "${DIR} was left by a test (entries: ${_left}); a perfsweep run in a test "
                      "needs --logs in the test's own directory")
endif()
