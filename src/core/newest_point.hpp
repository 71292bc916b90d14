#pragma once
// A newest point that stands alone off the level (pure): the first bad night of a regression or a
// transient outlier. One point cannot tell them apart; the same nightly measured again can: an
// image does not change, so a new level reproduces and a transient does not.

#include "core/detect.hpp"

#include <optional>
#include <string>
#include <vector>

namespace perfsweep::core {

/// The lone newest point `detect` left undecided, when it is one.
struct LoneNewest {
    std::string label;          ///< the newest point, e.g. the nightly of today
    std::string last_before;    ///< the ok point before it
    std::vector<double> values; ///< its recorded values
    std::vector<double> level;  ///< the values of the level before it (its reference)
    double level_value = 0;     ///< that level (detect's)
    double relative_change = 0; ///< (median(values) - level_value) / |level_value|
};

/// The newest point of `points` (detect's order) when `result` is inconclusive because that point
/// alone is off the level (a lone outlier at least the threshold away); nullopt otherwise.
std::optional<LoneNewest> lone_newest_point(const DetectResult& result,
                                            const std::vector<SeriesPoint>& points);

/// What the newest nightly measured again says.
enum class NewestOutcome {
    new_level, ///< it measures off the level again: the first point of a new level
    transient, ///< it measures at the level: the recorded point was an outlier
    undecided, ///< the runs so far cannot tell (more runs may)
};

/// Decide `lone` with `again` (fresh values of the same nightly) at level `alpha`; on new_level
/// and transient, `result` becomes the decided verdict (a change point last_before → label for a
/// new level at least the threshold away, the way detect reports one) and reason.
NewestOutcome decide_newest_point(DetectResult& result, const LoneNewest& lone,
                                  const std::vector<double>& again, double alpha = 0.01);

} // namespace perfsweep::core
