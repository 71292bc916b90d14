#pragma once
// Plain-text rendering of a daily sweep (pure).

#include "core/daily_result.hpp"

#include <string>

namespace perfsweep::report {

/// Table of every date (value +- spread, repeats, status), the boundaries with old/new levels
/// and relative change, skipped dates with their logs, and runs used vs the exhaustive count.
std::string render_daily(const core::DailyResult& r);

} // namespace perfsweep::report
