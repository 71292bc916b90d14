#pragma once
// JSON rendering of a detection result (`perfsweep detect --json`).

#include "core/detect.hpp"

#include <string>

namespace perfsweep::adapters {

/// `r` as one pretty-printed JSON object (README "History and detection" lists the fields).
std::string detect_to_json(const core::DetectResult& r);

} // namespace perfsweep::adapters
