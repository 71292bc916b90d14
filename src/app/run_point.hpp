#pragma once
// Use case: measure one point (optionally building first) and record it in the history.

#include "core/model.hpp"
#include "ports/history_store.hpp"
#include "ports/runner.hpp"

namespace perfsweep::app {

/// Measure `request` with `runner`. When `builder` is given it builds first; a failed build is a
/// failed measurement (reason "build: ...", log = build log). When `history` is given the result
/// (whatever its status) is appended to it.
core::Measurement run_point(ports::PointRunner& runner, ports::Builder* builder,
                            const ports::PointRequest& request, ports::HistoryStore* history);

} // namespace perfsweep::app
