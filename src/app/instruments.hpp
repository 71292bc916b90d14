#pragma once
// What a sweep stage measures with and records into: the instances its caller opened from the
// bundle (ports::Adapters: runners.make, histories.open), so that one runner serves several
// stages of one investigation.

#include "ports/history_store.hpp"
#include "ports/runner.hpp"

namespace perfsweep::app {

/// The opened instances a stage uses; the stage never owns them.
struct Instruments {
    ports::PointRunner* runner = nullptr;   ///< benchmark runs (null only for a plan)
    ports::Builder* builder = nullptr;      ///< source builds (hourly; null for daily)
    ports::CommandRunner* probe = nullptr;  ///< daily: the commits probe (null = none)
    ports::HistoryStore* history = nullptr; ///< daily: reuse and append points (null = none)
};

} // namespace perfsweep::app
