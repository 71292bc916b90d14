#pragma once
// Test hook for the kill/resume suite: named points where perfsweep can SIGKILL itself, to crash
// at a precise moment (between a temp write and its rename, mid-append, mid-checkout, ...).
// $PERFSWEEP_CRASH_AT="NAME:N" kills the process at the N-th hit of point NAME (N >= 1). Unset
// (the normal case) it costs one branch per hit: the variable is read once per process.

#include <string_view>

namespace perfsweep::util {

/// SIGKILL this process if $PERFSWEEP_CRASH_AT names `name` and this is its N-th hit; else no-op.
void crash_point(std::string_view name);

} // namespace perfsweep::util
