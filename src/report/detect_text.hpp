#pragma once
// Human-readable rendering of a detection result (pure).

#include "core/detect.hpp"

#include <string>

namespace perfsweep::report {

/// Verdict line, reason, a table of change points, segments, outliers and failed points.
std::string render_detect_text(const core::DetectResult& r);

/// A level in the metric's unit with the digits its size needs (1234.5, 56.78, 0.1234).
std::string level_number(double v);

/// A relative change as a signed percentage: "+1.25%", "-3.00%", "+inf".
std::string signed_percent(double r);

} // namespace perfsweep::report
