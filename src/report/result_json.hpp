#pragma once
// JSON rendering of the result model (pure): the documents `detect|daily|hourly --json`,
// investigate's result.json and `report --format json` print. Every document carries "kind" and
// "format_version"; docs/json.md lists the fields of each kind (checked by a test).

#include "core/report_model.hpp"
#include "core/series.hpp"

#include <string>

namespace perfsweep::report {

/// `doc` as one pretty-printed JSON object ending in a newline.
std::string render_json(const core::ResultDocument& doc);

/// The document of many series (`detect --json` when several are selected): kind
/// "detect-series", the worst verdict, how many series have each verdict, and per series its
/// testbed, notes and every field of a detect document (docs/json.md).
std::string render_series_json(const std::vector<core::SeriesDetect>& series);

} // namespace perfsweep::report
