#pragma once
// Many series in one investigation (pure): which regressions of which series are narrowed
// together (one sweep measures all of them: one benchmark run prints every metric), and the
// sweep result of a series measured by another series' sweep.

#include "core/daily_result.hpp"
#include "core/narrow.hpp"
#include "core/series.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace perfsweep::core {

/// Regressions of one or more series narrowed by one sweep.
struct NarrowGroup {
    std::string last_before; ///< the window's last good nightly (detect's label)
    std::string first_after; ///< its first bad nightly
    /// Indices into the series list, the largest drop first: the first (the lead) drives the
    /// sweep; the others are read from the same runs.
    std::vector<std::size_t> series;
};

/// The one rule for which regressions are narrowed and which together. Per regressed series
/// (verdict regression) the `narrow` rule picks its change points (regressions_to_narrow);
/// regressions of different series whose windows are the same pair of nightlies (last_before,
/// first_after) form one group, narrowed by one sweep. Groups are ordered latest first (by
/// first_after, then last_before); within a group the largest relative drop leads (ties: series
/// order).
std::vector<NarrowGroup> narrow_groups(const std::vector<SeriesDetect>& series, Narrow narrow);

/// The sweep result of a series that did not drive its sweep: the lead's candidates and options,
/// fed with `points` (this series' records of the sweep's dates, from the same runs or reused
/// from the history; other labels are ignored). No run is counted (the lead's sweep counts
/// them); `metric`, `unit` and `direction` name the series.
DailyResult shared_sweep(const DailyResult& lead, const std::string& metric,
                         const std::string& unit, Direction direction,
                         const std::vector<Measurement>& points);

} // namespace perfsweep::core
