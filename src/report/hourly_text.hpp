#pragma once
// Plain-text rendering of an hourly/commit stage result (pure).

#include "core/hourly_result.hpp"

#include <string>

namespace perfsweep::report {

/// Table of every source state (time, status, changed repos, commits, median), the window with its
/// candidate commits, the failure-rate change and first failing log (exit-code mode), the culprit,
/// and the conclusion line with builds and runs.
std::string render_hourly_text(const core::HourlyResult& r);

} // namespace perfsweep::report
