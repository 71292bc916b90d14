#pragma once
// Use case: the dashboard — every series of a history with detect's levels and change points and
// the marks of the investigations kept beside the history, written as a static site through
// ports::Files (and, with --publish, committed into a git branch). Also where `investigate` keeps
// its result so that the dashboard finds it.

#include "app/option_values.hpp"
#include "app/threshold.hpp"
#include "core/report_model.hpp"
#include "core/series_view.hpp"
#include "ports/adapters.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace perfsweep::app {

/// The folder beside a history where `investigate` keeps its results (one JSON document each).
inline constexpr const char* k_investigations_folder = "investigations";

/// Decodes a result document (adapters::read_result_document; `source` names it in errors).
/// Text formats are not ports: the CLI hands the decoder in.
using ResultDecoder = core::ResultDocument (*)(std::string_view text, const std::string& source);

/// What `perfsweep dashboard` was asked for.
struct DashboardRequest {
    std::string history;                         ///< --history spec
    std::string out_dir = "perfsweep-dashboard"; ///< where the site is written
    std::string title = "perfsweep dashboard";   ///< page title
    Threshold threshold;                         ///< detect's, made relative per series
    std::string publish;     ///< a git branch spec to commit the site into ("" = none)
    std::string publish_dir; ///< folder of that branch ("" = its root)
};

/// What was written.
struct DashboardResult {
    std::string index_path;            ///< OUT/index.html
    std::size_t series = 0;            ///< series shown
    std::size_t investigations = 0;    ///< kept investigations read
    std::size_t files = 0;             ///< files written
    std::size_t bytes = 0;             ///< their total size
    std::size_t regressions = 0;       ///< series whose verdict is a regression
    std::vector<std::string> warnings; ///< skipped history lines and investigation files
    std::string published;             ///< where --publish committed it ("" = not asked)
};

/// Resolve `dashboard`'s options.
DashboardRequest resolve_dashboard(const OptionValues& values);

/// The dashboard model: every series of `records` (core::group_series, as detect: in key order)
/// with detect over it, and the investigations in `kept`.
core::Dashboard build_dashboard(std::vector<core::Measurement> records,
                                std::vector<core::KeptInvestigation> kept,
                                const Threshold& threshold);

/// Read the history and its kept investigations, render the site and write it to
/// `request.out_dir` (and commit it into `request.publish`); `decode` reads the kept results.
DashboardResult run_dashboard(const DashboardRequest& request, ports::Adapters& adapters,
                              ResultDecoder decode);

/// Keep `inv` beside `history` as investigations/NAME.json (NAME: its latest narrowed window and
/// series; a rerun of the same night replaces it), so the dashboard shows its marks, and say so
/// on `progress`. Nothing is kept when it narrowed nothing. A store that fails is a warning on
/// `progress`, never an error: the investigation's own results are written already. Returns the
/// path kept ("" when none).
std::string keep_investigation(ports::HistoryStore& history, const core::Investigation& inv,
                               ports::Progress& progress);

/// The kept investigations beside `history` (documents that are not investigations, or do not
/// parse, are skipped with a warning in `warnings`).
std::vector<core::KeptInvestigation> read_investigations(ports::HistoryStore& history,
                                                         ResultDecoder decode,
                                                         std::vector<std::string>& warnings);

} // namespace perfsweep::app
