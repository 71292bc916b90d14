#pragma once
// Use cases of the distributed fan-out: `perfsweep plan` lists the points of the daily stage as
// the entries of a GitHub Actions matrix (one job per point), and `perfsweep merge` combines the
// per-point results (`perfsweep run --json`) uploaded by the matrix jobs into the history and a
// daily-stage result computed by the same pure planner as `perfsweep daily`.

#include "core/daily_result.hpp"
#include "core/date_range.hpp"
#include "core/model.hpp"
#include "core/sweep_plan.hpp"
#include "ports/history_store.hpp"

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace perfsweep::app {

/// GitHub Actions refuses a matrix with more entries than this.
inline constexpr std::size_t k_max_matrix_entries = 256;

/// One matrix entry: ordered (key, value) fields, e.g. label, date, image.
using MatrixEntry = std::vector<std::pair<std::string, std::string>>;

/// What `perfsweep plan --stage daily` was asked to do.
struct PlanOptions {
    core::DateRange dates;         ///< the dates of the matrix
    std::string image;             ///< image template ({date}, {yyyy}, {mm}, {dd}); may be empty
    std::string benchmark;         ///< benchmark name, to match history records
    bool exclude_measured = false; ///< leave out dates measured ok in the history
    int max_points = 0;            ///< 0 = every date; else N dates spread evenly incl. both ends
};

/// The planned matrix and what was left out.
struct MatrixPlan {
    std::vector<MatrixEntry> entries; ///< in date order
    std::size_t candidates = 0;       ///< dates in [from, to]
    std::vector<std::string> notes;   ///< human-readable remarks for stderr
};

/// Plan the daily points. Throws a usage error on bad dates/options, and when the matrix would
/// exceed k_max_matrix_entries (naming the count and the flags that reduce it).
MatrixPlan plan_daily_matrix(const PlanOptions& options, ports::HistoryStore* history);

/// `entries` as the one compact line GitHub Actions reads as a matrix,
/// `{"include":[{"label":"...","date":"..."},...]}` (pure; strings escaped, valid UTF-8).
std::string matrix_json(const std::vector<MatrixEntry>& entries);

/// `count` indices spread evenly over [0, n-1], both ends included (all of them when count >= n).
std::vector<std::size_t> spread_evenly(std::size_t n, std::size_t count);

/// One uploaded result file: its name (for messages) and its text.
struct MergeInput {
    std::string name;                       ///< path as given
    std::vector<core::Measurement> records; ///< its records (adapters::read_records)
};

/// What `perfsweep merge` was asked to do.
struct MergeOptions {
    std::string from;         ///< first date; empty = earliest merged date
    std::string to;           ///< last date; empty = latest merged date
    std::string benchmark;    ///< keep only this benchmark; empty = all inputs must agree
    core::SweepOptions sweep; ///< statistics options (alpha, min_change, direction from inputs)
};

/// What a merge did.
struct MergeResult {
    core::DailyResult daily;       ///< the daily-stage result over the merged points
    std::size_t records = 0;       ///< measurement records read from the inputs
    std::size_t appended = 0;      ///< records appended to the history
    std::size_t already = 0;       ///< records already in the history (not appended again)
    std::size_t from_history = 0;  ///< dates whose values came from the history, not the inputs
    std::vector<std::string> next; ///< dates the adaptive planner would measure next
};

/// Merge `inputs`: append records not yet in `history` (same label+benchmark+timestamp; may be
/// null), then compute the daily result over the merged dates (plus ok history dates of the same
/// benchmark that no input covers).
MergeResult merge_points(const std::vector<MergeInput>& inputs, const MergeOptions& options,
                         ports::HistoryStore* history);

} // namespace perfsweep::app
