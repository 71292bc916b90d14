#pragma once
// The planner of the hourly and commit stages (pure): what is known about every source state
// (builds and runs from this invocation and, through the journal, from earlier ones), and which
// state to build or run next. The search itself is the shared SweepPlan; this layer maps source
// states to its points, replays what is known into it, and weighs a build's cost: more runs of
// the state whose build is current cost no build, so an undecided pair repeats that state first.

#include "core/journal.hpp"
#include "core/spend.hpp"
#include "core/stats.hpp"
#include "core/sweep_plan.hpp"

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace perfsweep::core {

/// What is known about one source state (all repos at given commits).
struct StateFacts {
    /// untested; unknown once it has values (measured; its level is the search's to decide);
    /// build_failed (never rebuilt) or test_failed (a run failed before any value): skipped.
    StateStatus status = StateStatus::untested;
    bool built = false;         ///< a build of it succeeded
    std::string reason;         ///< why it is skipped
    std::vector<double> values; ///< every value of its ok runs, in run order
    long runs = 0;              ///< benchmark runs executed for it
    std::string failure_log;    ///< exit-code mode: the log of its first failing run
    int failure_code = 0;       ///< and that run's exit status
};

/// Everything the source stages know, keyed by state (its commits), across stages and
/// invocations; fed with journal events.
class SourceBook {
public:
    /// Apply one event; `resumed` when it was read back from an earlier invocation's journal.
    void apply(const JournalEvent& e, bool resumed);
    /// Values of state `key` taken from the evidence (core/evidence), not run: they join its
    /// values like a run's, counted in spend().reused_values, not in runs.
    void reuse(const std::string& key, const std::vector<double>& values);
    /// Runs and builds the evidence spared (counted in spend()).
    void avoided(long runs, long builds);
    /// The facts of state `key`, or nullptr when nothing is known.
    const StateFacts* find(const std::string& key) const;
    /// The state the build output is of; empty when unknown (nothing built, or a build started
    /// and did not finish); a kept build put back (restored) makes it that state's.
    const std::string& built() const { return m_built; }
    /// Runs and builds of every event applied.
    const Spend& spend() const { return m_spend; }
    /// The metric name of the first ok run, if any.
    const std::string& metric() const { return m_metric; }

private:
    std::map<std::string, StateFacts> m_states;
    std::string m_built;
    std::string m_metric;
    Spend m_spend;
};

/// One step the planner asks for: `runs` more runs of state `index` (built first when its build
/// is not the current one).
struct SourceStep {
    std::size_t index = 0; ///< index into the plan's states
    int runs = 1;          ///< benchmark runs wanted
};

/// One search over an ordered list of source states (the hourly grid's distinct states, or the
/// commit timeline), driven like SweepPlan: loop { sync(book); step = next(book); if none: stop;
/// build/run it; record it in the book }.
class SourcePlan {
public:
    /// A plan over states `keys` (commit keys) with display `labels` (same size). Throws a usage
    /// error on bad options or mismatched sizes.
    SourcePlan(std::vector<std::string> keys, std::vector<std::string> labels,
               SweepOptions options);
    /// Feed the planner what `book` knows about its states and it has not seen yet.
    void sync(const SourceBook& book);
    /// The next useful step, preferring the state whose build is current; nullopt when nothing
    /// useful is left.
    std::optional<SourceStep> next(const SourceBook& book) const;
    /// The search so far (points, boundaries); `stop_reason` when it did not finish.
    SweepResult result(const std::string& stop_reason = {}) const;
    /// The underlying sweep planner.
    const SweepPlan& sweep() const { return m_plan; }
    /// Number of states.
    std::size_t size() const { return m_keys.size(); }

private:
    std::vector<std::string> m_keys;
    SweepPlan m_plan;
    std::vector<std::size_t> m_seen_values;
    std::vector<long> m_seen_runs;
    std::vector<bool> m_seen_broken;
};

/// The boundary that is the regression of a search: the first regression, else the first decided
/// change; nullptr when there is none.
const Boundary* regression_boundary(const SweepResult& r);

/// What a search says about its state `i` with facts `f` (null: nothing known): untested,
/// build_failed or test_failed from the facts, else good up to `b`'s last_before, bad from its
/// first_after, unknown between them or without a boundary `b`.
StateStatus search_status(const StateFacts* f, std::size_t i, const Boundary* b);

/// How the hourly stage compares its window ends.
struct EndsOptions {
    int repeats = 3;        ///< runs of each end at first
    int max_repeats = 12;   ///< undecided ends double their runs up to this many
    double alpha = 0.01;    ///< significance level
    bool pass_fail = false; ///< exit-code mode: failure indicators, the pass/fail rule
};

/// The window ends compared: Welch's t-test of the values, or in exit-code mode the pass/fail
/// rule (relative_change is then the bad end's failure rate minus the good end's).
Comparison compare_window_ends(const std::vector<double>& good, const std::vector<double>& bad,
                               const EndsOptions& options);

/// One round of more runs for undecided window ends.
struct EndsStep {
    bool bad_first = true; ///< the end built last runs first (each round costs one rebuild)
    int runs = 0;          ///< more runs of each end
};

/// The window ends' planner (pure). The daily stage found the two nightlies different, so
/// undecided ends double their runs (up to max_repeats) before the stage may say "no change": a
/// flaky failure hides easily in a few runs, and a few percent drop in a few noisy runs (3 H200
/// runs of a -3.8 % step gave p=0.011). Loop: while (step = next()) { run both ends; observe }.
class WindowEnds {
public:
    /// The ends as first measured (every value of each).
    WindowEnds(std::vector<double> good, std::vector<double> bad, const EndsOptions& options);
    /// The next round, or nullopt when the ends differ or reached max_repeats.
    std::optional<EndsStep> next() const;
    /// Every value of each end after round `step`.
    void observe(const EndsStep& step, std::vector<double> good, std::vector<double> bad);
    /// The comparison so far.
    const Comparison& comparison() const { return m_cmp; }
    /// Every value of the good end so far.
    const std::vector<double>& good() const { return m_good; }
    /// Every value of the bad end so far.
    const std::vector<double>& bad() const { return m_bad; }
    /// Why they are undecided: "change -7.01%, p=0.0512" or "good failed 0 of 3 runs (0 %), bad
    /// failed 1 of 3 runs (33 %)".
    std::string describe() const;

private:
    EndsOptions m_options;
    std::vector<double> m_good, m_bad;
    Comparison m_cmp;
    int m_per_end = 0;
    bool m_bad_first = true;
};

/// The hourly stage's evidence for the commit stage: up to `per_side` states measured at the good
/// level before the window's last good state `lo` and at the bad level after its first bad state
/// `hi` (statuses of the distinct states, in order) join its search as context (known values: no
/// build, no run), so it confirms the two levels with what the hourly stage measured instead of
/// rebuilding the window's states for more runs. Indices in order.
struct ContextPoints {
    std::vector<std::size_t> before; ///< good states before `lo`
    std::vector<std::size_t> after;  ///< bad states after `hi`
};

/// See ContextPoints.
ContextPoints context_points(const std::vector<StateStatus>& statuses, std::size_t lo,
                             std::size_t hi, std::size_t per_side = 2);

} // namespace perfsweep::core
