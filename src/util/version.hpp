#pragma once
// perfsweep's version, from CMake's project(VERSION) (the one place it is written).

#include <string_view>

namespace perfsweep::util {

/// The version, e.g. "0.1.0".
std::string_view version();

} // namespace perfsweep::util
