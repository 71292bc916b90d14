#pragma once
// Use case: render a stage result as a markdown or JSON report.

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
std::string make_report(ports::Adapters& a, const ReportRequest& req);

} // namespace perfsweep::app
