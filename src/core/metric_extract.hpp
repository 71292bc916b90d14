#pragma once
// Reading a metric out of benchmark output (pure).

#include <string>
#include <string_view>
#include <vector>

namespace perfsweep::core {

/// What an extraction found: every value in output order, or why none could be used.
struct Extraction {
    std::vector<double> values; ///< every matched finite number, in output order
    std::string reason;         ///< non-empty when `values` is empty or a match was unusable
};

/// The default regex for `metric`: "<METRIC>:\s*<number>" with the metric name escaped.
std::string default_metric_regex(std::string_view metric);

/// Extract values from `output` with `regex` (ECMAScript, exactly one capture group holding the
/// number). Terminal colour codes are stripped first; the regex is applied line by line. A match
/// whose capture is not a finite number (NaN, inf, garbage) makes the whole extraction fail with a
/// reason naming the line. A '\r' starts the line over (progress bars) and only the first 1,024
/// characters of each such segment are searched (std::regex recursion is bounded by that).
/// Throws perfsweep::Error (usage) if `regex` is invalid or has no group.
Extraction extract_metric(std::string_view output, const std::string& regex);

} // namespace perfsweep::core
