#pragma once
// Use case: the pull-request verdict. The benchmark runs on the head and on its base on the same
// runner in one job, interleaved (core::head_first: base-head, head-base, ...), pair after pair
// until every series is decided (core/compare: a sequential test with a stated error rate) or the
// cap; or the head alone against the base level of a history.

#include "core/compare.hpp"
#include "core/series.hpp"
#include "ports/adapters.hpp"
#include "ports/runner_config.hpp"
#include "report/compare_text.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace perfsweep::app {

/// What `perfsweep compare` needs.
struct CompareRequest {
    ports::RunnerConfig head;                ///< the head's runner (--test, --workdir, metrics)
    std::optional<ports::RunnerConfig> base; ///< the base's runner; none with base_history
    std::string base_history;                ///< --base-history: the base level from it
    core::CompareOptions options;
};

/// One series' comparison.
struct CompareSeries {
    core::SeriesKey key;
    std::string unit;
    core::Direction direction = core::Direction::higher_is_better;
    std::vector<double> base;    ///< base values in run order (empty with a history base)
    std::vector<double> head;    ///< head values in run order
    double base_level = 0;       ///< the history's level (history base only)
    std::size_t base_points = 0; ///< points of that level (history base only)
    core::CompareEstimate estimate;
    core::CompareVerdict verdict = core::CompareVerdict::inconclusive;
    std::string reason;  ///< one sentence (core::describe, or why a run had no value)
    bool failed = false; ///< a run had no value of it: the comparison stopped
};

/// What a comparison found.
struct CompareResult {
    std::vector<CompareSeries> series;
    core::CompareOptions options;
    std::string base_source; ///< "interleaved runs" or "history H"
    std::size_t pairs = 0;   ///< pairs run (history base: head runs)
    long runs = 0;           ///< benchmark runs, base and head
};

/// Run the comparison. Usage errors (no base, a history without the series) are thrown before
/// any run; a run without a value stops it with that series failed.
CompareResult run_compare(const CompareRequest& request, ports::Adapters& adapters);

/// The worst verdict of `r`: regression, then inconclusive (or a failed run), improvement, same.
core::CompareVerdict worst_verdict(const CompareResult& r);

/// The exit code of `r`: 4 when a run had no value (the check fails: the benchmark is broken), 1
/// on a regression unless `report_only`, else 0 (an inconclusive series passes, said so).
int compare_exit_code(const CompareResult& r, bool report_only);

/// What the report shows of `r` (medians, runs, verdicts).
report::CompareReport compare_report(const CompareResult& r);

/// The step outputs: verdict (the worst), regressions, series, pairs, runs.
std::map<std::string, std::string> compare_outputs(const CompareResult& r);

} // namespace perfsweep::app
