#pragma once
// Result of the hourly and commit stages (pure data): part of the result model (core/report_model)
// that the markdown and JSON renderers of src/report draw.

#include "core/exit_code.hpp"
#include "core/source_states.hpp"
#include "core/spend.hpp"
#include "util/enum_names.hpp"
#include "util/time.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfsweep::core {

/// What the hourly (and commit) stage concluded.
enum class HourlyConclusion {
    planned,     ///< `--plan`: states listed only
    window,      ///< narrowed to a good→bad window of source states
    culprit,     ///< narrowed to one commit
    no_change,   ///< the window ends do not differ (or no repo changed)
    inconclusive ///< a window end failed, the budget ran out, or no level change was located
};

/// The names of HourlyConclusion, as the JSON's "conclusion" holds them.
inline constexpr util::EnumName<HourlyConclusion> k_conclusion_names[] = {
    {HourlyConclusion::planned, "planned"},           {HourlyConclusion::window, "window"},
    {HourlyConclusion::culprit, "culprit"},           {HourlyConclusion::no_change, "no_change"},
    {HourlyConclusion::inconclusive, "inconclusive"},
};

/// "planned" / "window" / "culprit" / "no_change" / "inconclusive" (k_conclusion_names).
std::string_view to_string(HourlyConclusion c);
/// Parse a conclusion name; nullopt otherwise.
std::optional<HourlyConclusion> parse_hourly_conclusion(std::string_view s);

/// One tested (or planned) source state: a grid point or a step of the commit timeline (its
/// time is the grid time or the moved commit's time), and what is known about it.
struct StateOutcome : SourceState {
    StateStatus status = StateStatus::untested; ///< what is known about the state
    std::vector<double> values;                 ///< every metric value measured for this state
    std::string reason;                         ///< why it was skipped, when it was
    std::string log;                            ///< log file of its last run or build, if known
};

/// One end of a window: a time and the commit of every repo.
struct WindowEnd {
    util::UnixSeconds time = 0;
    std::map<std::string, std::string> commits;
};

/// The commit the commit stage blamed.
struct Culprit {
    std::string repo;
    CommitInfo commit;
    std::string note; ///< e.g. which repo carries the change when several changed
};

/// Everything the hourly stage found.
struct HourlyResult {
    HourlyConclusion conclusion = HourlyConclusion::inconclusive; ///< what it concluded
    std::string message;                    ///< one human sentence about the conclusion
    std::string metric;                     ///< metric name, when known
    std::string unit;                       ///< metric unit, when known
    std::vector<StateOutcome> states;       ///< every grid state, in time order
    std::vector<StateOutcome> commit_steps; ///< commit timeline states (with --to-commit)
    std::optional<WindowEnd> last_good;
    std::optional<WindowEnd> first_bad;
    std::vector<std::string> changed_repos; ///< repos that differ across window
    std::map<std::string, std::vector<CommitInfo>>
        candidates;                                  ///< repo → main-line commits in window
    std::map<std::string, std::string> compare_urls; ///< repo → GitHub compare URL
    std::optional<Culprit> culprit;
    /// Exit-code mode: every run of the last good and first bad state (of the culprit step, when
    /// found), and the first failing run's log of that bad state.
    bool failure_rates = false;
    PassFail good_runs;
    PassFail bad_runs;
    std::optional<FailureLog> first_bad_log;
    /// Runs and builds of the hourly and commit stages, across every invocation that worked on
    /// the same state directory (the resumed part included and also shown on its own).
    Spend spend;
    bool budget_exhausted = false;
};

} // namespace perfsweep::core
