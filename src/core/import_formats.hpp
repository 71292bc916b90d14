#pragma once
// Parsing of plain-text import formats into measurements (pure): CSV `label,value[,status]` and the
// output of `grep METRIC OUT*`. JSON-based formats are parsed by adapters (adapters/json).

#include "core/model.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfsweep::core {

/// A file format `import` and `detect --input` understand.
enum class ImportFormat { csv, grep, benchmark_action, jsonl };

/// "csv" / "grep" / "benchmark-action" / "jsonl".
std::string_view to_string(ImportFormat f);
/// Parse a --format value; nullopt when unknown.
std::optional<ImportFormat> parse_import_format(std::string_view s);

/// Guess the format of `text` from its first line. Throws perfsweep::Error (usage) naming `file`
/// when no format fits.
ImportFormat detect_import_format(std::string_view text, const std::string& file);

/// Defaults applied to every imported measurement (benchmark, metric, unit, direction).
struct ImportDefaults {
    std::string benchmark;
    std::string metric;
    std::string unit;
    Direction direction = Direction::higher_is_better;
};

/// Parse CSV with a header naming `label` and `value` columns (optional `status`, `reason`,
/// `timestamp`; any order). `value` may hold several repeats separated by ';'. An empty value or a
/// non-ok status is a failed point. Throws perfsweep::Error (usage) naming `file:line`.
std::vector<Measurement> parse_csv(std::string_view text, const std::string& file,
                                   const ImportDefaults& defaults);

/// Parse `grep METRIC FILES` output: "LABEL:...METRIC...: NUMBER" per line; the label is the text
/// before the first colon. When `defaults.metric` is empty, the metric is the text between the
/// first and second colon of the first line. A line with the metric but no finite number after
/// it is a failed point for its label. Throws perfsweep::Error (usage) naming `file:line`.
std::vector<Measurement> parse_grep(std::string_view text, const std::string& file,
                                    const ImportDefaults& defaults);

} // namespace perfsweep::core
