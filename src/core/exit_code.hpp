#pragma once
// Exit-code mode (`--mode exit-code`): git bisect's contract for one run's exit status, and the
// pass/fail counts and wording built on it (pure).

#include "core/model.hpp"
#include "util/enum_names.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfsweep::core {

/// How a point is judged: by a metric read from the output (default) or by the exit status.
enum class RunMode { metric, exit_code };

/// The names of RunMode (--check, the JSON's "mode"); "exit_code" is another accepted spelling.
inline constexpr util::EnumName<RunMode> k_run_mode_names[] = {
    {RunMode::metric, "metric"},
    {RunMode::exit_code, "exit-code"},
    {RunMode::exit_code, "exit_code"},
};

/// "metric" / "exit-code" (k_run_mode_names).
std::string_view to_string(RunMode m);
/// Parse "metric" / "exit-code" (also "exit_code"); nullopt otherwise.
std::optional<RunMode> parse_run_mode(std::string_view s);

/// What one run's exit status means (git bisect run's contract).
enum class ExitVerdict {
    good,  ///< 0
    bad,   ///< 1..127 except 124 and 125, or killed by a signal it did not get from perfsweep
    skip,  ///< 125 (cannot test this point), 124 (a `timeout` wrapper fired), or our own timeout
    abort, ///< 128 and above: stop the whole search
};

/// The skip status of git bisect run.
inline constexpr int k_exit_skip = 125;
/// The status of coreutils `timeout` when it fired: a skip, never a failure.
inline constexpr int k_exit_timeout_wrapper = 124;
/// The first status that aborts the search.
inline constexpr int k_exit_abort_min = 128;

/// Classify an exit status as recorded in Measurement::exit_codes (negative -N: the test process
/// was killed by signal N, a crash: bad).
ExitVerdict classify_exit_code(int code);

/// "good" / "bad" / "skip" / "abort".
std::string_view to_string(ExitVerdict v);

/// The first recorded exit status of `m` that aborts the search, if any.
std::optional<int> abort_code(const Measurement& m);

/// Failure indicator values of an exit-code measurement: 1 per failed run, 0 per passed run.
/// These are the `values` the planner compares in pass/fail mode.
double failure_value(ExitVerdict v);

/// Passed and failed runs of a sample of failure indicators (values > 0.5 count as failed).
struct PassFail {
    long passed = 0;
    long failed = 0;
    /// Runs in all.
    long total() const { return passed + failed; }
    /// Failed / total (0 for an empty sample).
    double rate() const {
        return total() == 0 ? 0 : static_cast<double>(failed) / static_cast<double>(total());
    }
};

/// Count a sample of failure indicators.
PassFail count_pass_fail(const std::vector<double>& indicators);

/// Complete separation: every run of one side passed and every run of the other failed, with at
/// least `min_runs` runs on each side (git bisect decides on this with any number of repeats).
bool completely_separated(const PassFail& a, const PassFail& b, long min_runs = 1);

/// The one pass/fail rule: two samples of runs differ when they are completely separated
/// (`min_runs` each) or Fisher's exact test on their counts is below `alpha`. The sweep planner,
/// the segmentation of failure counts and the hourly stage's window ends all decide with it.
bool pass_fail_differ(const PassFail& a, const PassFail& b, double alpha, long min_runs = 1);

/// "failed 3 of 10 runs (30 %)".
std::string describe_rate(const PassFail& p);

/// How `segment_failure_counts` decides a split.
struct SegmentOptions {
    double alpha = 0.001;        ///< Fisher's exact test must be below this
    long min_separated_runs = 1; ///< complete separation decides with this many runs per side
    bool dips = false;           ///< also look for an inner run that differs from the rest
};

/// Where a sequence of points' failure counts changes level: binary segmentation. A segment
/// splits at the position of largest binomial likelihood when the two parts differ by Fisher's
/// exact test below `alpha`, or are completely separated (every run of one part passed, every run
/// of the other failed) with at least `min_separated_runs` runs on each side; failing that, with
/// `dips`, at the two ends of the inner run that differs most from the rest (a dip that
/// recovers, O(n^2)). The parts recurse. Returns the sorted positions k of the splits (a change
/// between points k and k + 1).
std::vector<std::size_t> segment_failure_counts(const std::vector<PassFail>& points,
                                                const SegmentOptions& options);

/// A failing run's log, cut for a report (exit-code mode).
struct FailureLog {
    std::string point;   ///< the point's label (a nightly date or a source state's time)
    std::string log;     ///< path of the log file
    int exit_code = 0;   ///< the run's exit status (-N: killed by signal N)
    std::string excerpt; ///< its last lines: ANSI stripped, secrets masked (report/log_excerpt)
};

/// "exit status 1", "killed by signal 11 (SIGSEGV)", ...
std::string describe_exit_status(int code);

/// One line for a change of failure rate from `before` to `after`: "started failing (0/3 runs
/// failed → 3/3)", "failure rate rose from 0 % (0/10) to 30 % (3/10)", "stopped failing ...",
/// or "failure rate fell ...".
std::string describe_failure_change(const PassFail& before, const PassFail& after);

} // namespace perfsweep::core
