#pragma once
// JSON encoding of measurements: one compact object per line in JSON Lines histories.

#include "core/model.hpp"
#include "core/series.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace perfsweep::adapters {

/// Encode `m` as one compact JSON object (no newline).
std::string measurement_to_json(const core::Measurement& m);

/// Decode one JSON object into a measurement. Throws perfsweep::Error (usage) naming `where`
/// (e.g. "history.jsonl:12") and the field that is missing or has the wrong type.
core::Measurement measurement_from_json(std::string_view json, const std::string& where);

/// What a record's line says of its series without decoding the rest.
struct RecordKey {
    core::SeriesKey key; ///< core::series_key of the record
    core::Stage stage = core::Stage::record;
};

/// The series key and stage that measurement_from_json(json) would give, read quickly (a
/// history scan that keeps one series); nullopt when only measurement_from_json can say what
/// the line is (not one well-formed object, no metric, a field of the key that is no string, an
/// unknown stage, a field given twice).
std::optional<RecordKey> record_key_from_json(std::string_view json);

} // namespace perfsweep::adapters
