#pragma once
// What a sweep stage measures with and records into: the instances its caller opened from the
// bundle (ports::Adapters: runners.make, histories.open), so that one runner serves several
// stages of one investigation. The stage never owns them.

#include "ports/history_store.hpp"
#include "ports/runner.hpp"

namespace perfsweep::app {

/// The daily stage's instruments: the benchmark runner, and what is optional as a null pointer.
struct DailyInstruments {
    ports::PointRunner& runner;             ///< the benchmark runs
    ports::CommandRunner* probe = nullptr;  ///< the commits probe (null = none)
    ports::HistoryStore* history = nullptr; ///< reuse and append points (null = none)
};

/// The hourly and commit stages' instruments: one builder and one runner of source states, and
/// the evidence store.
struct SourceInstruments {
    ports::Builder& builder;    ///< builds a source state
    ports::PointRunner& runner; ///< runs the benchmark on the state built last
    /// the evidence (core/evidence): asked before a state is built or run, and every run is
    /// appended to it (null = none)
    ports::HistoryStore* evidence = nullptr;
};

} // namespace perfsweep::app
