#pragma once
// Parsing of plain-text import formats into measurements (pure): CSV `label,value[,status]` and the
// output of `grep METRIC OUT*`. JSON-based formats are parsed by adapters (adapters/json).

#include "core/model.hpp"
#include "util/enum_names.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfsweep::core {

/// A file format `import` and `detect --input` understand.
enum class ImportFormat { csv, grep, benchmark_action, jsonl };

/// The names of ImportFormat, as --format takes them.
inline constexpr util::EnumName<ImportFormat> k_import_format_names[] = {
    {ImportFormat::csv, "csv"},
    {ImportFormat::grep, "grep"},
    {ImportFormat::benchmark_action, "benchmark-action"},
    {ImportFormat::jsonl, "jsonl"},
};

/// "csv" / "grep" / "benchmark-action" / "jsonl" (k_import_format_names).
std::string_view to_string(ImportFormat f);
/// Parse a --format value (k_import_format_names); nullopt when unknown.
std::optional<ImportFormat> parse_import_format(std::string_view s);

/// Guess the format of `text` from its first line. Throws perfsweep::Error (usage) naming `file`
/// when no format fits.
ImportFormat detect_import_format(std::string_view text, const std::string& file);

/// Defaults applied to every imported measurement (benchmark, metric, unit, direction).
struct ImportDefaults {
    std::string benchmark;
    std::string metric;
    std::string unit;
    /// --direction; when absent the format decides (github-action-benchmark's `tool`, else the
    /// unit, see direction_for_unit), and higher-is-better only when nothing tells
    std::optional<Direction> direction;
};

/// Which way a github-action-benchmark `tool` scores: cargo, go, googlecpp, catch2,
/// benchmarkdotnet, julia, jmh, benchmarkluau and customSmallerIsBetter report times (lower is
/// better); benchmarkjs (ops/sec), pytest (iter/sec) and customBiggerIsBetter higher. nullopt for
/// an unknown tool.
std::optional<Direction> direction_for_tool(std::string_view tool);

/// The direction a unit implies: times (ns, us, ms, s, ns/iter, ns/op, ms/iter, sec, ...), sizes
/// and counts per operation (B, bytes, KB..TB, KiB..TiB, B/op, allocs/op) are lower-is-better;
/// rates ("per second": ops/sec, iter/sec, it/s, MB/s, req/s, ...), MLUPS, FLOPS and
/// "points/s"-style units higher. nullopt when the unit says nothing (empty, "%", "count").
std::optional<Direction> direction_for_unit(std::string_view unit);

/// Why `label` cannot label a point, e.g. "'2023-02-30' looks like a date but 2023-02-30 is not a
/// calendar date"; "" when it can. Refused: empty, white space at either end, control characters,
/// and text that looks like a date (YYYY-M-D, alone or with a time) but is not a zero-padded
/// calendar date YYYY-MM-DD or a valid ISO 8601 time with a zone. Other text is a free label.
std::string label_problem(std::string_view label);

/// Parse RFC 4180 CSV with a header naming `label` and `value` columns (optional `status`,
/// `reason`, `timestamp`; any order): a field in double quotes may hold ',', line breaks and '""';
/// the quotes are not part of the value. `value` may hold several repeats separated by ';'. An
/// empty value or a non-ok status is a failed point. Labels must pass label_problem. Throws
/// perfsweep::Error (usage) naming `file:line` (the line a record starts on).
std::vector<Measurement> parse_csv(std::string_view text, const std::string& file,
                                   const ImportDefaults& defaults);

/// Parse `grep METRIC FILES` output: "LABEL:...METRIC...: NUMBER" per line; the label is the text
/// before the first colon. When `defaults.metric` is empty, the metric is the text between the
/// first and second colon of the first line. A line with the metric but no finite number after
/// it is a failed point for its label. A blank label (only spaces before the first colon) or one
/// that fails label_problem is an error. Throws perfsweep::Error (usage) naming `file:line`.
std::vector<Measurement> parse_grep(std::string_view text, const std::string& file,
                                    const ImportDefaults& defaults);

} // namespace perfsweep::core
