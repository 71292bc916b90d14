#pragma once
// Use case: detect change points and a verdict on a history or an import file.

#include "app/import.hpp"
#include "app/threshold.hpp"
#include "core/detect.hpp"
#include "core/import_formats.hpp"
#include "ports/adapters.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace perfsweep::app {

/// What `perfsweep detect` needs: exactly one of `history` and `input`.
struct DetectRequest {
    std::string history;                      ///< --history spec
    std::string input;                        ///< --input file
    std::optional<core::ImportFormat> format; ///< --format for --input
    JsonImportReader read_json = nullptr;     ///< --input's JSON formats (set by the CLI)
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
    /// A missing or empty history is an inconclusive result (exit 4: not enough data), while a
    /// selection that matches nothing in a non-empty history stays an error (`perfsweep detect`).
    bool empty_history_inconclusive = false;
};

/// The result and any warnings met while loading (e.g. a torn last history line).
struct DetectOutcome {
    core::DetectResult result;
    std::vector<std::string> warnings;
};

/// The step outputs `detect` decides: verdict; relative-change of the latest change point; and
/// when that change is a regression its last-good and first-bad labels (investigate's names).
std::map<std::string, std::string> detect_outputs(const core::DetectResult& result);

/// Load, select one benchmark/metric series (an ambiguous selection is a usage error listing the
/// choices) and run core::detect on it.
DetectOutcome run_detect(const DetectRequest& request, ports::Adapters& adapters);

} // namespace perfsweep::app
