#pragma once
// JSON ↔ report input model: reads any stage's result (detect, daily, hourly, investigate).

#include "core/report_model.hpp"

#include <string>
#include <string_view>

namespace perfsweep::adapters {

/// Parse a stage result `json` read from `source` (a file name, for messages). Extra fields are
/// ignored; a used field of the wrong type throws a usage error naming `source` and the JSON path.
core::ReportInput report_input_from_json(std::string_view json, const std::string& source);

/// Encode `input` as pretty JSON (the normalized report model).
std::string report_input_to_json(const core::ReportInput& input);

} // namespace perfsweep::adapters
