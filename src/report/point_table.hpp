#pragma once
// Human-readable table of measured points (pure).

#include "core/model.hpp"

#include <string>
#include <vector>

namespace perfsweep::report {

/// One row per point: label, every raw value, median ± sample standard deviation with the unit,
/// status (with the reason when not ok) and log path.
std::string render_points(const std::vector<core::Measurement>& points);

} // namespace perfsweep::report
