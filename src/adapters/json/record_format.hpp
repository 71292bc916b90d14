#pragma once
// The JSON text formats of measurement records at perfsweep's edges: `merge` inputs and the
// benchmark-action and JSON Lines imports (plain functions, called from the CLI; the history
// record line is measurement_to_json).

#include "core/import_formats.hpp"
#include "core/model.hpp"

#include <string>
#include <vector>

namespace perfsweep::adapters {

/// Every record of a `merge` input `text` read from `source`: one record object (possibly
/// pretty-printed) or one per line. Throws a usage error naming `source` (and line).
std::vector<core::Measurement> read_records(const std::string& text, const std::string& source);

/// The measurements of a JSON-based import (`format` benchmark_action or jsonl) read from `file`;
/// errors name file:line.
std::vector<core::Measurement> read_json_import(const std::string& text, const std::string& file,
                                                core::ImportFormat format,
                                                const core::ImportDefaults& defaults);

} // namespace perfsweep::adapters
