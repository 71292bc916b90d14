#pragma once
// Result of the hourly and commit stages (pure data), rendered by the JSON writer and the report.

#include "core/exit_code.hpp"
#include "core/source_states.hpp"
#include "core/spend.hpp"
#include "util/time.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace perfsweep::core {

/// One tested (or planned) source state: a grid point or a step of the commit timeline.
struct StateOutcome {
    util::UnixSeconds time = 0;                 ///< grid time, or the moved commit's time
    std::map<std::string, std::string> commits; ///< repo → sha
    std::vector<std::string> changed;           ///< repos changed since the previous state
    bool duplicate = false;                     ///< same commits as the previous grid point
    /// planned | untested | duplicate | good | bad | unknown | build_failed | test_failed
    std::string status = "untested";
    std::vector<double> values; ///< every metric value measured for this state
    std::string reason;         ///< why it was skipped, when it was
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

/// The window a daily result reports: the recorded commits and committer times (ISO 8601) of the
/// last good and first bad builds of its regression boundary.
struct DailyWindow {
    std::string last_good_label; ///< e.g. "2023-08-24"
    std::string first_bad_label;
    std::map<std::string, std::string> good_commits; ///< repo → sha
    std::map<std::string, std::string> bad_commits;
    std::map<std::string, std::string> good_times; ///< repo → ISO 8601 committer time
    std::map<std::string, std::string> bad_times;
};

/// Everything the hourly stage found.
struct HourlyResult {
    /// planned | window | culprit | no_change | inconclusive
    std::string conclusion = "inconclusive";
    std::string message;                    ///< one human sentence about the conclusion
    std::string metric;                     ///< metric name, when known
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
