#pragma once
// JSON rendering of the result model (pure): the documents `detect|daily|hourly --json`,
// investigate's result.json and `report --format json` print. Every document carries "kind" and
// "format_version"; docs/json.md lists the fields of each kind (checked by a test).

#include "core/report_model.hpp"

#include <string>

namespace perfsweep::report {

/// `doc` as one pretty-printed JSON object ending in a newline.
std::string render_json(const core::ResultDocument& doc);

} // namespace perfsweep::report
