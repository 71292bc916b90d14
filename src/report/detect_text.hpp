#pragma once
// Human-readable rendering of a detection result (pure).

#include "core/detect.hpp"

#include <string>

namespace perfsweep::report {

/// Verdict line, reason, a table of change points, segments, outliers and failed points.
std::string render_detect_text(const core::DetectResult& r);

} // namespace perfsweep::report
