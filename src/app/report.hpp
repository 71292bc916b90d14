#pragma once
// Use cases over result documents read from files: render one as a markdown or JSON report, and
// take the good→bad window of a daily result for the hourly stage.

#include "core/daily_result.hpp"
#include "ports/adapters.hpp"

#include <string>

namespace perfsweep::app {

/// What `perfsweep report` was asked for.
struct ReportRequest {
    std::string input;               ///< result JSON path ("-" = stdin)
    std::string format = "markdown"; ///< "markdown" or "json"
    std::string key = "default";     ///< sticky-comment key for the marker
    std::string output;              ///< file to write; empty = return only
};

/// Read, render and (if `req.output` is set) write the report; returns the rendered text.
std::string make_report(const ReportRequest& req, ports::Adapters& a);

/// The good→bad window (core::regression_window) of the daily result in file `path`: a `daily
/// --json` document, or an investigation's first narrowed regression (else its first daily
/// result). Throws a usage error naming `path` for any other document.
core::DailyWindow read_daily_window(const std::string& path, ports::Adapters& a);

} // namespace perfsweep::app
