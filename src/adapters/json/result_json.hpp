#pragma once
// Reading the result documents (`detect|daily|hourly --json`, investigate's result.json,
// `report --format json`) back into the result model. Writing them is pure (report/result_json).

#include "core/report_model.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfsweep::adapters {

/// Parse one result document read from `source`. Documents with "format_version" dispatch on their
/// "kind"; documents without one are read as older versions wrote them (stage results and
/// investigate's result.json, kind guessed from their fields). Numbers read back exactly as
/// written. Throws a usage error naming `source`, the JSON path and what was expected.
core::ResultDocument read_result_document(std::string_view text, const std::string& source);

/// The series of a many-series detect document (`detect --json` over several series, kind
/// "detect-series"); nullopt for any other document. Throws a usage error naming `source` and
/// the JSON path for a malformed one.
std::optional<std::vector<core::SeriesDetect>> read_series_document(std::string_view text,
                                                                    const std::string& source);

} // namespace perfsweep::adapters
