#pragma once
// Use case: daily narrowing over dated nightly builds (`perfsweep daily`). Candidates are the
// calendar dates of [from, to]; the pure planner (core/sweep_plan) picks which to run; every
// finished run is committed to the state directory before the next round, so a killed sweep
// resumes without rerunning or losing a run.

#include "app/instruments.hpp"
#include "core/daily_result.hpp"
#include "core/date_range.hpp"
#include "core/model.hpp"
#include "core/sweep_plan.hpp"
#include "ports/adapters.hpp"

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace perfsweep::app {

/// What `perfsweep daily` was asked to do.
struct DailyOptions {
    core::DateRange dates; ///< the nightly dates (publisher's calendar dates)
    std::string benchmark; ///< benchmark name, to match history records
    /// the metric, to match history records (core::points_of_series); "" = any ("failed" in
    /// exit-code mode, as the runner stores it)
    std::string metric;
    core::SweepOptions sweep;         ///< strategy, repeats, budgets, workers (set from the runner)
    std::string state_dir;            ///< resumable state; empty = none
    bool rerun = false;               ///< ignore history points
    std::chrono::seconds max_time{0}; ///< wall-clock budget; 0 = none
    std::string identity;             ///< journal_identity (app/options.hpp), kept in the state dir
    std::vector<std::string> secrets; ///< values masked in log excerpts (exit-code mode)
    /// repo name → image label holding the commit it was built from (read from the recorded
    /// environment's "label.LABEL" when no commits probe named the commits)
    std::map<std::string, std::string> commit_labels;
};

/// The range of --from `from` --to `to` (two dates YYYY-MM-DD); a usage error naming the flag on a
/// bad date, and for a reversed or too long range (core::check_daily_range).
core::DateRange resolve_date_range(const std::string& from, const std::string& to);

/// Called once, as soon as the focus (DailyOptions::sweep.focus) is decided, with the sweep so far
/// and its boundary: investigate starts the hourly stage there; the coverage of the rest of the
/// range goes on when it returns.
using FocusHook = std::function<void(const core::DailyResult& so_far, const core::Boundary& focus)>;

/// Run the sweep with `with.runner`, reusing and appending to `with.history` (when given).
/// `with.probe` (when given) runs the commits probe once per date that measured ok (not as a
/// benchmark run: not counted); its output is parsed with core::parse_commit_probe. Each boundary
/// is printed as soon as it is decided; `on_focus` (when set) as above.
core::DailyResult run_daily(const DailyOptions& options, ports::Adapters& adapters,
                            const DailyInstruments& with, const FocusHook& on_focus = {});

} // namespace perfsweep::app
