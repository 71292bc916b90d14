#pragma once
// The verdict of a daily sweep over an explicit --from/--to range (pure): that range is the
// question asked (e.g. between two releases), so its sweep decides, not detect on the history.

#include "core/daily_result.hpp"
#include "core/detect.hpp"

#include <string>

namespace perfsweep::core {

/// A verdict with its one-sentence reason.
struct RangeVerdict {
    Verdict verdict = Verdict::inconclusive;
    std::string reason;
};

/// regression when a regression boundary was decided; inconclusive for an undecided boundary, a
/// sweep stopped early or fewer than 2 measured points; else improvement or no_regression.
RangeVerdict range_verdict(const DailyResult& daily);

} // namespace perfsweep::core
