#pragma once
// The planner of the hourly and commit stages (pure): what is known about every source state
// (builds and runs from this invocation and, through the journal, from earlier ones), and which
// state to build or run next. The search itself is the shared SweepPlan; this layer maps source
// states to its points, replays what is known into it, and weighs a build's cost: more runs of
// the state whose build is current cost no build, so an undecided pair repeats that state first.

#include "core/journal.hpp"
#include "core/spend.hpp"
#include "core/sweep_plan.hpp"

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace perfsweep::core {

/// What is known about one source state (all repos at given commits).
struct StateFacts {
    bool built = false;         ///< a build of it succeeded
    bool build_failed = false;  ///< its build failed: the state is skipped, never rebuilt
    std::string build_reason;   ///< why the build failed
    std::vector<double> values; ///< every value of its ok runs, in run order
    long runs = 0;              ///< benchmark runs executed for it
    bool run_failed = false;    ///< a run failed before any value: the state is skipped
    std::string run_reason;     ///< why the run failed
    std::string failure_log;    ///< exit-code mode: the log of its first failing run
    int failure_code = 0;       ///< and that run's exit status
};

/// Everything the source stages know, keyed by state (its commits), across stages and
/// invocations; fed with journal events.
class SourceBook {
public:
    /// Apply one event; `resumed` when it was read back from an earlier invocation's journal.
    void apply(const JournalEvent& e, bool resumed);
    /// The facts of state `key`, or nullptr when nothing is known.
    const StateFacts* find(const std::string& key) const;
    /// The state the build output is of; empty when unknown (nothing built, or a build started
    /// and did not finish).
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

} // namespace perfsweep::core
