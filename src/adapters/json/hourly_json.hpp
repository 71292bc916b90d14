#pragma once
// JSON encoding of the hourly/commit stage result (`perfsweep hourly --json`).

#include "core/hourly_result.hpp"

#include <string>

namespace perfsweep::adapters {

/// Encode `r` as one pretty-printed JSON object: conclusion, message, metric, states, window,
/// changed, candidates, compare_urls, commit_steps, culprit (when found), builds, runs.
std::string hourly_to_json(const core::HourlyResult& r);

} // namespace perfsweep::adapters
