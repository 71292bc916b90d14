#pragma once
// Use case: measure one point (optionally building first) and record it in the history.

#include "core/model.hpp"
#include "ports/history_store.hpp"
#include "ports/runner.hpp"

#include <vector>

namespace perfsweep::app {

/// Like run_point for a runner that reads several metrics of the same runs
/// (RunnerConfig::metrics): one measurement per metric, all appended to `history` at once.
std::vector<core::Measurement> run_point_metrics(ports::PointRunner& runner,
                                                 ports::Builder* builder,
                                                 const ports::PointRequest& request,
                                                 ports::HistoryStore* history);

/// Measure `request` with `runner`. When `builder` is given it builds first; a failed build is a
/// failed measurement (reason "build: ...", log = build log). When `history` is given the result
/// (whatever its status) is appended to it.
core::Measurement run_point(ports::PointRunner& runner, ports::Builder* builder,
                            const ports::PointRequest& request, ports::HistoryStore* history);

} // namespace perfsweep::app
