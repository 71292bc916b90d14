#pragma once
// Test hook for the kill/resume suite: named points where perfsweep can SIGKILL itself, to crash
// at a precise moment (between a temp write and its rename, mid-append, mid-checkout, ...).
// $PERFSWEEP_CRASH_AT="NAME:N" kills the process at the N-th hit of point NAME (N >= 1); the
// variable is read once per process.
//
// Only test builds have it: with PERFSWEEP_TEST_HOOKS (CMake option, on when the tests are built,
// as the suites run the binary of the same build tree) crash_point.cpp holds the hook; a
// production build (tests off: the README's first command, the action's cached binary) compiles
// crash_point() to an empty function that never reads the variable.

#include <string_view>

namespace perfsweep::util {

/// SIGKILL this process if $PERFSWEEP_CRASH_AT names `name` and this is its N-th hit; else no-op.
/// Always a no-op in a build without PERFSWEEP_TEST_HOOKS.
void crash_point(std::string_view name);

} // namespace perfsweep::util
