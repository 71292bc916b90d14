#pragma once
// JSON encoding of measurements: one compact object per line in JSON Lines histories.

#include "core/model.hpp"

#include <string>
#include <string_view>

namespace perfsweep::adapters {

/// Encode `m` as one compact JSON object (no newline).
std::string measurement_to_json(const core::Measurement& m);

/// Decode one JSON object into a measurement. Throws perfsweep::Error (usage) naming `where`
/// (e.g. "history.jsonl:12") and the field that is missing or has the wrong type.
core::Measurement measurement_from_json(std::string_view json, const std::string& where);

} // namespace perfsweep::adapters
