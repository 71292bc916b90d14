#pragma once
// Use cases over result documents (read from files by the CLI, adapters/json/result_json): render
// one as a markdown or JSON report, and take the good→bad window of a daily result for the hourly
// stage.

#include "core/daily_result.hpp"
#include "core/report_model.hpp"
#include "ports/files.hpp"
#include "util/time.hpp"

#include <string>
#include <utility>
#include <vector>

namespace perfsweep::app {

/// What `perfsweep report` was asked for.
struct ReportRequest {
    std::string input;               ///< result JSON path ("-" = stdin)
    std::string format = "markdown"; ///< "markdown" or "json"
    std::string key = "default";     ///< sticky-comment key for the marker
    std::string output;              ///< file to write; empty = return only
};

/// Render `doc` (read from req.input) and, if `req.output` is set, write the report; returns the
/// rendered text.
std::string make_report(const ReportRequest& req, const core::ResultDocument& doc,
                        ports::Files& files);

/// Render the series of a many-series detect document (read from req.input, `detect --json` over
/// several series): markdown is the table `detect` writes to the job summary (with the sticky
/// marker of req.key), json the same document again; written to `req.output` when set.
std::string make_series_report(const ReportRequest& req,
                               const std::vector<core::SeriesDetect>& series, ports::Files& files);

/// The good→bad window (core::regression_window) of `doc`, read from `path`: a `daily --json`
/// document, or an investigation's first narrowed regression (else its first daily result).
/// Throws a usage error naming `path` for any other document.
core::DailyWindow daily_window_of(const core::ResultDocument& doc, const std::string& path);

/// The hourly window of `hourly --from-result PATH` (`doc` read from `path`, as daily_window_of):
/// from the newest recorded commit time of the last good build to that of the first bad build.
/// Throws a usage error naming `path` and the field for a time that is not ISO 8601 UTC.
std::pair<util::Time, util::Time> hourly_window_of(const core::ResultDocument& doc,
                                                   const std::string& path);

} // namespace perfsweep::app
