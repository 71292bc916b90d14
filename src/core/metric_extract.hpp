#pragma once
// Reading a metric out of benchmark output (pure).

#include <memory>
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

/// `text` with each regex metacharacter (\ ^ $ . | ? * + ( ) [ ] { }) escaped: an ECMAScript regex
/// that matches `text` literally.
std::string escape_regex(std::string_view text);

/// The literal text every match of `regex` must contain, found conservatively from its start
/// (e.g. "MLUPS:" for the default regex of MLUPS); "" when none can be proven (an alternation, a
/// leading class or group). Lines without it cannot match and are skipped unread.
std::string required_literal(std::string_view regex);

/// Metric extraction over output that arrives in chunks, in bounded memory: the same rules as
/// extract_metric (which is built on it), applied to each line and carriage-return segment as it
/// completes. Of each segment only the first 64 KiB are kept (the regex sees 1,024 characters of
/// it after colour codes are stripped), so a benchmark printing gigabytes costs no memory.
class MetricStream {
public:
    /// Compile `regex` (ECMAScript, exactly one capture group). Throws perfsweep::Error (usage)
    /// naming --metric-regex when it is invalid or has no group.
    explicit MetricStream(const std::string& regex);
    ~MetricStream();
    MetricStream(MetricStream&&) noexcept;
    MetricStream& operator=(MetricStream&&) noexcept;
    /// Take the next piece of output (any size, any split point).
    void feed(std::string_view chunk);
    /// End of output: every value found in order, or the reason there is none.
    Extraction finish();

private:
    struct State;
    std::unique_ptr<State> m_state;
};

/// Extract values from `output` with `regex` (ECMAScript, exactly one capture group holding the
/// number). Terminal colour codes are stripped first; the regex is applied line by line. A match
/// whose capture is not a finite number (NaN, inf, garbage) makes the whole extraction fail with a
/// reason naming the line. A '\r' starts the line over (progress bars) and only the first 1,024
/// characters of each such segment are searched (std::regex recursion is bounded by that).
/// Colour codes are stripped per segment: an unterminated escape never hides later lines.
/// Throws perfsweep::Error (usage) if `regex` is invalid or has no group.
Extraction extract_metric(std::string_view output, const std::string& regex);

} // namespace perfsweep::core
