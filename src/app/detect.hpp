#pragma once
// Use case: detect change points and a verdict on a history or an import file.

#include "core/detect.hpp"
#include "core/import_formats.hpp"
#include "ports/adapters.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace perfsweep::app {

/// A --threshold as written: a relative change ("0.05", "5%": a 5 % change counts) or
/// github-action-benchmark's ratio of how much worse ("150%", "1.5x": 1.5 times worse counts).
struct Threshold {
    double value = 0.02; ///< the relative change, or the ratio when `ratio`
    bool ratio = false;
};

/// What `perfsweep detect` needs: exactly one of `history` and `input`.
struct DetectRequest {
    std::string history;                      ///< --history spec
    std::string input;                        ///< --input file
    std::optional<core::ImportFormat> format; ///< --format for --input
    std::string benchmark;                    ///< filter (and default name for imports)
    std::string metric;                       ///< filter (and metric name for imports)
    std::string unit;                         ///< unit for imports
    std::optional<core::Direction> direction; ///< overrides the stored direction
    core::DetectOptions options;
    /// When set, options.threshold is derived from it with the series' direction.
    std::optional<Threshold> threshold;
    /// No matching measurement (or an empty history) is an inconclusive result, not an error
    /// (investigate over an explicit --from/--to range needs no history).
    bool allow_empty = false;
};

/// The result and any warnings met while loading (e.g. a torn last history line).
struct DetectOutcome {
    core::DetectResult result;
    std::vector<std::string> warnings;
};

/// Parse a --threshold value: below 100 % a relative change ("0.02", "2%"), from 100 % on
/// github-action-benchmark's ratio of how much worse ("150%"), or an explicit ratio ("1.5x").
Threshold parse_threshold(const std::string& text);

/// The relative change that `t` means for a metric going `direction`: a ratio r is 1 - 1/r when
/// higher is better (150% = a 33.3 % drop) and r - 1 when lower is better (150% = 50 % more).
double relative_threshold(const Threshold& t, core::Direction direction);

/// The step outputs `detect` decides: verdict; relative-change of the latest change point; and
/// when that change is a regression its last-good and first-bad labels (investigate's names).
std::map<std::string, std::string> detect_outputs(const core::DetectResult& result);

/// Load, select one benchmark/metric series (an ambiguous selection is a usage error listing the
/// choices) and run core::detect on it.
DetectOutcome run_detect(const DetectRequest& request, ports::Adapters& adapters);

} // namespace perfsweep::app
