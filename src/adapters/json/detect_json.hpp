#pragma once
// JSON rendering of a detection result (`perfsweep detect --json`).

#include "core/detect.hpp"

#include <string>

namespace perfsweep::adapters {

/// `r` as one pretty-printed JSON object (docs/detection.md lists the fields).
std::string detect_to_json(const core::DetectResult& r);

} // namespace perfsweep::adapters
