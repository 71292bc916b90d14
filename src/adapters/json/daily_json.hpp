#pragma once
// JSON rendering of a daily sweep (`perfsweep daily --json`).

#include "core/daily_result.hpp"

#include <string>

namespace perfsweep::adapters {

/// `r` as one pretty-printed JSON object (docs/daily.md lists the fields).
std::string daily_to_json(const core::DailyResult& r);

} // namespace perfsweep::adapters
