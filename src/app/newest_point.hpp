#pragma once
// Use case step: decide a newest point that stands alone off the level by measuring that nightly
// again (core/newest_point), so the first bad night of a regression is named in the same run.

#include "core/detect.hpp"
#include "ports/history_store.hpp"
#include "ports/progress.hpp"

#include <functional>
#include <string>
#include <vector>

namespace perfsweep::app {

/// Measures nightly `label` again `runs` times (round `round` = 1, 2, ...), recording the runs
/// into the history, and returns their values (empty when nothing measured).
using MeasureAgain =
    std::function<std::vector<double>(const std::string& label, int runs, int round)>;

/// What settling the newest point did.
struct NewestPointRun {
    core::DetectResult detect; ///< the verdict after the new runs (unchanged when not applicable)
    long runs = 0;             ///< benchmark runs it spent
};

/// When `detected` is inconclusive only because the newest point of `history`'s series (its
/// benchmark and metric) is a lone outlier, measure that nightly again, `repeats` runs and then
/// doubling up to `max_repeats` in all while undecided, and decide: it reproduces (a regression
/// or improvement from the point before it, with a change point) or it is back at the level (no
/// regression). Otherwise returns `detected` unchanged and runs nothing.
NewestPointRun settle_newest_point(const core::DetectResult& detected, ports::HistoryStore& history,
                                   int repeats, int max_repeats, const MeasureAgain& measure,
                                   ports::Progress& progress);

} // namespace perfsweep::app
