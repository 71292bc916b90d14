#pragma once
// The JSON text formats of measurement records (ports::RecordFormat): the history record line,
// `merge` inputs, and the benchmark-action and JSON Lines imports.

#include "ports/record_format.hpp"

namespace perfsweep::adapters {

/// Measurement records as JSON.
class JsonRecordFormat final : public ports::RecordFormat {
public:
    /// One compact JSON object (measurement_to_json).
    std::string record_line(const core::Measurement& m) const override;
    /// One JSON object (possibly pretty-printed) or JSON Lines; errors name source(:line).
    std::vector<core::Measurement> read_records(const std::string& text,
                                                const std::string& source) const override;
    /// benchmark-action JSON (parse_benchmark_action) or a JSON Lines history.
    std::vector<core::Measurement> read_import(const std::string& text, const std::string& file,
                                               core::ImportFormat format,
                                               const core::ImportDefaults& defaults) const override;
};

} // namespace perfsweep::adapters
