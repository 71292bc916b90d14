#pragma once
// Use case: detect change points and a verdict on a history or an import file, for one series or
// for every series it holds (core/series: benchmark, metric, testbed).

#include "app/import.hpp"
#include "app/threshold.hpp"
#include "core/detect.hpp"
#include "core/import_formats.hpp"
#include "core/series.hpp"
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
    std::string testbed;                      ///< filter (--testbed)
    std::string unit;                         ///< unit for imports
    std::optional<core::Direction> direction; ///< overrides the stored direction
    core::DetectOptions options;
    /// When set, options.threshold is derived from it with the series' direction.
    std::optional<Threshold> threshold;
    /// No matching measurement (or an empty history) is an inconclusive result, not an error
    /// (investigate over an explicit --from/--to range needs no history).
    bool allow_empty = false;
    /// An empty history (an existing file without records, a git branch not pushed yet: the
    /// first night) is an inconclusive result that says so, while a history file that does not
    /// exist and a selection that matches nothing in a non-empty history stay errors.
    bool empty_history_inconclusive = false;
};

/// The result and any warnings met while loading (e.g. a torn last history line).
struct DetectOutcome {
    core::DetectResult result;
    std::vector<std::string> warnings;
};

/// Every selected series' result, in series order; what `detect` prints as one table and what
/// investigate narrows series by series.
struct DetectAllOutcome {
    std::vector<core::SeriesDetect> series;
    std::vector<std::string> warnings;
    /// Set when the history holds no measurement yet (the first night): `series` is empty.
    std::string empty_reason;
};

/// The step outputs `detect` decides: verdict; relative-change of the latest change point; and
/// when that change is a regression its last-good and first-bad labels (investigate's names).
std::map<std::string, std::string> detect_outputs(const core::DetectResult& result);

/// The step outputs of a many-series detect: `verdict` (the worst), `series` (how many),
/// `regressions` (how many regressed) and, with exactly one regressed series, its outputs.
std::map<std::string, std::string> detect_all_outputs(const DetectAllOutcome& out);

/// Load and run core::detect on every series the request selects (core::group_series; an empty
/// selection is every series). A history file that does not exist, a selection that matches
/// nothing and an input without measurements are usage errors naming the input.
DetectAllOutcome run_detect_all(const DetectRequest& request, ports::Adapters& adapters);

/// Like run_detect_all, for exactly one series (an ambiguous selection is a usage error listing
/// the choices).
DetectOutcome run_detect(const DetectRequest& request, ports::Adapters& adapters);

} // namespace perfsweep::app
