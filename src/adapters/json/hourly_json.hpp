#pragma once
// JSON encoding of the hourly/commit stage result (`perfsweep hourly --json`).

#include "core/hourly_result.hpp"

#include <string>

namespace perfsweep::adapters {

/// Encode `r` as one pretty-printed JSON object: conclusion, message, metric, states, window,
/// changed, candidates, compare_urls, commit_steps, culprit (when found), builds, runs.
std::string hourly_to_json(const core::HourlyResult& r);

/// Read the regression window from a `perfsweep daily --json` result: the first boundary of kind
/// regression (else the first one) with its commits and commit times. Throws a usage error naming
/// `where` when the text is not such a result or the boundary has no recorded commit times.
core::DailyWindow daily_window_from_json(const std::string& text, const std::string& where);

} // namespace perfsweep::adapters
