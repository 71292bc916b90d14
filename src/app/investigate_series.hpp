#pragma once
// investigate over several series of one benchmark (the runner reads several metrics of the same
// runs): the daily stage's runner that hands the sweep one metric (the lead of the regressions
// narrowed together, core::narrow_groups) and records every other metric of the same runs.

#include "core/model.hpp"
#include "core/report_model.hpp"
#include "ports/history_store.hpp"
#include "ports/runner.hpp"
#include "ports/runner_config.hpp"

#include <map>
#include <string>
#include <vector>

namespace perfsweep::app {

/// Whether `runner` reads several metrics of each run (--metric repeated, or a --metric-regex
/// with a (?<name>...) group): then investigate checks and narrows every series of them.
bool reads_several_metrics(const ports::RunnerConfig& runner);

/// A PointRunner over a runner that gives one measurement per metric of each point: the caller
/// (the daily stage) gets the `lead` metric's measurement of each request, in request order (a
/// point without it: a failed measurement saying so); every other metric's measurement is
/// appended to `history` at once and kept in `others`, so that one run measures every series.
class LeadMetricRunner final : public ports::PointRunner {
public:
    /// Over `inner` (not owned), appending to `history` (not owned).
    LeadMetricRunner(ports::PointRunner& inner, ports::HistoryStore& history)
        : m_inner(inner), m_history(history) {}
    /// Run every request once through `inner`; see the class comment.
    std::vector<core::Measurement>
    run_points(const std::vector<ports::PointRequest>& requests) override;
    /// `inner`'s.
    int workers() const override { return m_inner.workers(); }
    /// `inner`'s.
    std::map<std::string, std::string> runner_fingerprint() override {
        return m_inner.runner_fingerprint();
    }

    std::string lead;                      ///< the metric handed to the caller
    std::vector<core::Measurement> others; ///< every other metric's measurement, in run order

private:
    ports::PointRunner& m_inner;
    ports::HistoryStore& m_history;
};

/// The sweep results of the series narrowed with `lead` (their metrics, units and directions in
/// `followers`): each from its points among `history` (core::points_of_series of `lead`'s
/// benchmark, measured on `lead`'s runner: the same runs and reused nights) and the failed ones
/// of `failed` (this sweep's points without its value). No run is counted twice.
std::vector<core::DailyResult> follower_sweeps(const core::DailyResult& lead,
                                               const std::vector<core::DetectResult>& followers,
                                               std::vector<core::Measurement> history,
                                               const std::vector<core::Measurement>& failed);

} // namespace perfsweep::app
